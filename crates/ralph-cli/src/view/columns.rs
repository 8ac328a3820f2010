//! How many terminal columns text takes, for everything the views fit to a terminal's
//! width or line up in columns. A character is not a column: CJK ideographs and most
//! emoji take two, combining marks none. Counting `chars()` instead lets a line that
//! should fit wrap (and a wrapped status line cannot be erased, so every redraw would
//! leave a copy in the scrollback).

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The columns `text` takes on a terminal.
///
/// Terminals disagree about emoji sequences (a heart followed by the emoji variation
/// selector is two columns in some, one in others), so this is the larger of the two
/// readings: the string's width as a whole and the sum of its characters' widths. A line
/// fitted with it fits in either kind of terminal.
pub(crate) fn columns(text: &str) -> usize {
    let by_char: usize = text.chars().map(char_columns).sum();
    by_char.max(text.width())
}

/// The longest start of `text` that takes at most `room` columns (by [`columns`]). The
/// cut falls between characters, so a wide character that would straddle the edge is
/// left out whole.
pub(crate) fn cut(text: &str, room: usize) -> &str {
    let mut used = 0;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        used += char_columns(c);
        if used > room {
            break;
        }
        end = at + c.len_utf8();
    }
    // A sequence can be wider as a whole than its characters (an emoji presentation
    // selector makes the character before it wide): step back until it fits.
    let mut shown = &text[..end];
    while columns(shown) > room {
        let Some(last) = shown.chars().next_back() else {
            break;
        };
        shown = &shown[..shown.len() - last.len_utf8()];
    }
    shown
}

/// `text` followed by spaces up to `width` columns (left-aligned in a column).
pub(crate) fn pad_right(text: &str, width: usize) -> String {
    format!("{text}{}", " ".repeat(width.saturating_sub(columns(text))))
}

/// Spaces up to `width` columns, then `text` (right-aligned in a column).
pub(crate) fn pad_left(text: &str, width: usize) -> String {
    format!("{}{text}", " ".repeat(width.saturating_sub(columns(text))))
}

/// One character's columns; control characters (never shown as such: the views escape
/// them first) count as none.
fn char_columns(c: char) -> usize {
    c.width().unwrap_or(0)
}

#[cfg(test)]
#[path = "columns_tests.rs"]
mod tests;
