use super::*;

fn logged(limits: (usize, usize), writes: &[&[u8]]) -> String {
    let mut log = CappedLog::with_limits(Vec::new(), limits.0, limits.1);
    for w in writes {
        assert_eq!(log.write(w).unwrap(), w.len());
    }
    String::from_utf8(log.finish().unwrap()).unwrap()
}

#[test]
fn output_under_the_ceiling_is_logged_whole() {
    assert_eq!(logged((8, 8), &[b"abc", b"defgh", b"ijkl"]), "abcdefghijkl");
    assert_eq!(logged((8, 8), &[]), "");
}

#[test]
fn past_the_ceiling_the_log_keeps_the_start_and_the_end_and_says_what_went() {
    let text = logged((4, 6), &[b"0123", b"45", b"6789ab", b"cdefghij"]);
    assert_eq!(
        text,
        "0123\n[ralph: 10 bytes of output left out here; the log keeps the first 4 and the \
         last 6]\nefghij"
    );
    // One write larger than both at once.
    let big = vec![b'x'; 100];
    let text = logged((3, 5), &[b"ab", &big, b"END"]);
    assert!(text.starts_with("abx\n[ralph: 97 bytes"), "{text}");
    assert!(text.ends_with("xxEND"), "{text}");
}

#[test]
fn every_byte_is_kept_or_counted() {
    // Writes of every size across both limits: head + left out + tail is what came.
    for size in 1..=13 {
        let data: Vec<u8> = (0..60u8).map(|i| b'a' + i % 26).collect();
        let mut log = CappedLog::with_limits(Vec::new(), 7, 11);
        for chunk in data.chunks(size) {
            log.write_all(chunk).unwrap();
        }
        let (head, left_out, tail) = (log.head, log.left_out, log.tail.len());
        assert_eq!(head as u64 + left_out + tail as u64, 60, "size {size}");
        let text = log.finish().unwrap();
        assert!(text.starts_with(&data[..7]), "size {size}");
        assert!(text.ends_with(&data[49..]), "size {size}");
    }
}
