use super::*;

#[test]
fn keeps_everything_below_the_cap() {
    let mut t = StderrTail::default();
    t.push(b"error: ");
    t.push(b"boom\n");
    assert_eq!((t.to_text(), t.total()), ("error: boom\n".to_owned(), 12));
}

#[test]
fn keeps_only_the_last_bytes_and_starts_on_a_character() {
    let mut t = StderrTail::default();
    t.push(b"head");
    let junk = "é".repeat(STDERR_TAIL_BYTES / 2);
    t.push(junk.as_bytes());
    // Five more bytes put the cut one byte into a two-byte character.
    t.push(b"xEND1");
    let text = t.to_text();
    assert_eq!(text.len(), STDERR_TAIL_BYTES - 1);
    assert!(text.ends_with("éxEND1"));
    assert!(!text.contains('\u{FFFD}'));
    assert_eq!(t.total(), (4 + junk.len() + 5) as u64);
}
