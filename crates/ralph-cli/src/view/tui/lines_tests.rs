//! Wrapping a line to the window: cut between graphemes, each as wide as ratatui draws it.

use ratatui::buffer::CellWidth;
use unicode_segmentation::UnicodeSegmentation;

use super::*;

/// An emoji family (four emoji joined with ZWJ): one glyph two columns wide.
const FAMILY: &str = "👩\u{200d}👩\u{200d}👧\u{200d}👦";

/// `text` wrapped to `width` columns with no prefix: each row's text.
fn rows_of(text: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    wrapped(text, "", "", Style::default(), width, &mut out);
    out.iter()
        .map(|line| line.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

/// The columns ratatui gives `row`.
fn columns(row: &str) -> usize {
    row.graphemes(true)
        .map(|g| usize::from(g.cell_width()))
        .sum()
}

#[test]
fn emoji_sequences_stay_whole_and_rows_are_filled_as_drawn() {
    let width = 50;
    for unit in [format!("{FAMILY}y"), "🇯🇵✌\u{fe0f}👍🏽".to_owned()] {
        let text = unit.repeat(30);
        let rows = rows_of(&text, width);
        // Nothing lost or added, and every cut falls between two graphemes: no row ends
        // or starts with a piece of a sequence.
        assert_eq!(rows.concat(), text);
        let whole: Vec<&str> = text.graphemes(true).collect();
        let cut: Vec<&str> = rows.iter().flat_map(|r| r.graphemes(true)).collect();
        assert_eq!(cut, whole, "{unit}: a sequence split");
        // Each row as full as the next glyph lets it be, counted as drawn.
        for pair in rows.windows(2) {
            let next = pair[1].graphemes(true).next().unwrap();
            let used = columns(&pair[0]);
            assert!(used <= width, "{unit}: {} overflows", pair[0]);
            assert!(
                used + usize::from(next.cell_width()) > width,
                "{unit}: a row of {used} columns: {}",
                pair[0]
            );
        }
    }
}

#[test]
fn a_tab_is_a_blank_and_control_characters_are_left_out() {
    assert_eq!(rows_of("a\tb\u{7}c\r\nd", 80), ["a bcd"]);
}
