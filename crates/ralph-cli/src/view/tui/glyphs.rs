//! What a frame's cells hold, made to take on every terminal the columns ratatui gives
//! them.
//!
//! ratatui measures a cell by its grapheme (`unicode-width`): an emoji joined with ZWJ
//! (`👩‍👩‍👧‍👦`), one with a skin tone (`👍🏽`) or with VS16 (`❤️`) is one cell two columns
//! wide. Many terminals measure character by character instead (tmux 3.3a gives `👍🏽` four
//! columns and `❤️` one), store only so many bytes in a cell (tmux drops the family's last
//! member), or keep a ZWJ that joined nothing pending and glue it to a character drawn
//! later anywhere on the screen. ratatui then believes the screen holds what it does not,
//! and as it redraws only the cells it thinks changed, the difference stays: fragments
//! on other rows, even after switching to another iteration.
//!
//! So a cell whose grapheme terminals can measure differently is drawn as something
//! every terminal measures alike, in the same columns: its first characters that take
//! room (`👩`, `👍`, `❤` and a space), a flag's two letters (`🇯🇵` as `JP`). The export and
//! the records keep the text as it was; only the screen shows the stand-in.

use ratatui::buffer::{Buffer, CellWidth};
use unicode_width::UnicodeWidthChar;

/// Zero width joiner: joins emoji into one glyph, where a terminal supports the sequence.
const ZWJ: char = '\u{200d}';

/// The regional indicator symbols, `🇦` to `🇿`: two of them make a flag.
const REGIONAL_INDICATORS: std::ops::RangeInclusive<char> = '\u{1f1e6}'..='\u{1f1ff}';

/// Replaces each cell of `buffer` whose width terminals disagree on with its stand-in.
pub(crate) fn settle(buffer: &mut Buffer) {
    let cells = &mut buffer.content;
    let mut i = 0;
    while i < cells.len() {
        let symbol = cells[i].symbol();
        // ASCII, the most of any frame: one byte is one column everywhere.
        let width = usize::from(symbol.cell_width()).max(1);
        if symbol.len() == 1 || !disputed(symbol) {
            i += width;
            continue;
        }
        // Each character of the stand-in gets a cell of its own in the columns the
        // grapheme covered (ratatui left them blank, in its style): a flag's `P` is a
        // cell that a later frame overwrites or clears, not a leftover of `JP`.
        let style = cells[i].style();
        let mut at = i;
        for c in stand_in(symbol, width) {
            let mut text = [0; 4];
            cells[at]
                .set_symbol(c.encode_utf8(&mut text))
                .set_style(style);
            at += c.width().unwrap_or(1).max(1);
        }
        i += width;
    }
}

/// Whether a terminal that measures character by character can give `symbol` other
/// columns than ratatui does, or keep part of it for later.
fn disputed(symbol: &str) -> bool {
    symbol
        .chars()
        .any(|c| c == ZWJ || REGIONAL_INDICATORS.contains(&c))
        || usize::from(symbol.cell_width()) != by_characters(symbol)
}

/// The columns `symbol` takes where each character takes its own width.
fn by_characters(symbol: &str) -> usize {
    symbol.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// `width` columns that every terminal measures alike: the characters of `symbol` that
/// take room (joiners, selectors and marks do not), a regional indicator as its letter,
/// as many as fit, then spaces.
fn stand_in(symbol: &str, width: usize) -> Vec<char> {
    let mut out = Vec::new();
    let mut used = 0;
    for c in symbol.chars() {
        let c = letter(c).unwrap_or(c);
        let w = c.width().unwrap_or(0);
        if w == 0 {
            continue;
        }
        if used + w > width {
            break;
        }
        out.push(c);
        used += w;
    }
    out.extend(std::iter::repeat_n(' ', width - used));
    out
}

/// The letter a regional indicator stands for.
fn letter(c: char) -> Option<char> {
    if !REGIONAL_INDICATORS.contains(&c) {
        return None;
    }
    char::from_u32(u32::from('A') + (u32::from(c) - u32::from(*REGIONAL_INDICATORS.start())))
}
