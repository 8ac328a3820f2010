use super::*;

#[test]
fn the_tail_keeps_the_last_lines_without_escapes_or_progress_overwrites() {
    let text = "one\n\x1b[31merror\x1b[0m: two\n\n50%\r100%\r\nthree\n";
    assert_eq!(output_tail(text, 3, 1000), "error: two\n100%\nthree");
    assert_eq!(output_tail(text, 1, 1000), "three");
}

#[test]
fn the_tail_is_bounded_in_bytes_at_a_character_boundary() {
    let text = "ééééé\n";
    let tail = output_tail(text, 10, 5);
    assert!(tail.len() <= 5 && "ééééé".ends_with(&tail), "{tail:?}");
}

#[test]
fn every_line_of_the_output_is_counted_though_only_its_tail_is_kept() {
    let lines = |chunks: &[&[u8]]| {
        let mut sink = CommandSink::new(None, 0);
        for chunk in chunks {
            sink.on_stdout(chunk);
        }
        sink.finish(Termination::Exited { code: 1 }, Duration::ZERO)
            .output_lines
    };
    assert_eq!(lines(&[]), 0);
    assert_eq!(lines(&[b"", b"one"]), 1);
    // A line split across chunks is one line; a last line without a newline counts.
    assert_eq!(lines(&[b"one\ntw", b"o\n", b"", b"three"]), 3);
    assert_eq!(lines(&[b"\n\n"]), 2);
    // Far more lines than the tail holds.
    let many = b"x\n".repeat(1_000_000);
    assert_eq!(lines(&[&many, &many]), 2_000_000);
}
