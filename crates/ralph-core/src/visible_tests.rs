use super::*;

#[test]
fn plain_text_is_borrowed_as_it_is() {
    let text = "héllo\twörld\n✓ done · $0.01";
    assert!(matches!(visible(text), Cow::Borrowed(t) if t == text));
}

#[test]
fn controls_and_bidi_overrides_are_shown_as_escapes() {
    assert_eq!(
        visible("a\u{1b}]0;title\u{7}b\u{0}c\r\u{202e}d\u{2066}e\u{9b}f"),
        "a\\u{1b}]0;title\\u{7}b\\u{0}c\\u{d}\\u{202e}d\\u{2066}e\\u{9b}f"
    );
    assert_eq!(visible("\u{7f}"), "\\u{7f}");
}

#[test]
fn on_one_line_newlines_and_tabs_are_escaped_too() {
    assert_eq!(visible_line("a\nb\tc\r\u{1b}d"), "a\\nb\\tc\\u{d}\\u{1b}d");
    assert!(matches!(visible_line("plain ✓"), Cow::Borrowed("plain ✓")));
    assert_eq!(visible_line("x\u{7}"), "x\\u{7}");
}
