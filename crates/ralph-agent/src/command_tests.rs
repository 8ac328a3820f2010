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
