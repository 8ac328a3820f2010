use super::*;

#[test]
fn wide_characters_take_two_columns() {
    assert_eq!(columns("abc"), 3);
    assert_eq!(columns("日本語"), 6);
    assert_eq!(columns("🦀 ok"), 5);
    // A combining accent adds no column.
    assert_eq!(columns("e\u{301}"), 1);
    // The emoji presentation selector widens the heart in some terminals: counted wide.
    assert_eq!(columns("❤\u{fe0f}"), 2);
}

#[test]
fn a_cut_never_splits_a_wide_character_past_the_edge() {
    assert_eq!(cut("日本語", 6), "日本語");
    assert_eq!(cut("日本語", 5), "日本");
    assert_eq!(cut("日本語", 1), "");
    assert_eq!(cut("a日b", 2), "a");
    // The selector would widen the heart past the edge: it is left out.
    assert_eq!(cut("ab❤\u{fe0f}", 3), "ab❤");
    for room in 0..20 {
        let shown = cut("x日本語🦀 mixed ❤\u{fe0f} text", room);
        assert!(columns(shown) <= room, "{room}: {shown:?}");
    }
}

#[test]
fn padding_counts_columns() {
    assert_eq!(pad_right("日本", 6), "日本  ");
    assert_eq!(pad_left("日本", 6), "  日本");
    assert_eq!(pad_right("toolong", 3), "toolong");
}
