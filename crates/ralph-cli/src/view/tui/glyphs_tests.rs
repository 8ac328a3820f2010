//! Cells whose width terminals disagree on are drawn as something every terminal
//! measures as ratatui does (see `glyphs.rs`).

use ralph_core::run_event::RunEvent;
use ratatui::buffer::{Buffer, CellWidth};
use unicode_width::UnicodeWidthChar;

use super::*;

/// What models write: an emoji family (ZWJ), a flag, a ZWJ between letters, a symbol with
/// VS16, a skin tone, a keycap; then text that is measured alike everywhere.
const TEXT: &str = "fam 👩\u{200d}👩\u{200d}👧\u{200d}👦 flag 🇯🇵 zwj a\u{200d}b \
    heart ❤\u{fe0f} thumb 👍🏽 key #\u{fe0f}\u{20e3} end\nCJK 漢字 é\u{301} Z\u{351}\n";

/// The cells of `buffer` a terminal that measures character by character lays out
/// otherwise than ratatui: at another column, or as several cells where ratatui has one
/// (a terminal clears a wide character whole, but two characters one column at a time).
fn misplaced(buffer: &Buffer) -> Vec<String> {
    let width = usize::from(buffer.area.width);
    let mut out = Vec::new();
    for (row, cells) in buffer.content.chunks(width).enumerate() {
        let (mut x, mut column) = (0, 0);
        while x < cells.len() {
            let symbol = cells[x].symbol();
            let wide = symbol.chars().filter(|c| c.width().unwrap_or(0) > 0);
            if x != column || wide.count() > 1 || symbol.contains(['\u{200d}', '\u{fe0f}']) {
                out.push(format!(
                    "row {row}: {symbol:?} at {x}, terminal at {column}"
                ));
                break;
            }
            column += symbol
                .chars()
                .map(|c| c.width().unwrap_or(0))
                .sum::<usize>();
            x += usize::from(symbol.cell_width().max(1));
        }
    }
    out
}

/// The screen's text: each cell's symbol, the columns a wide one covers left out.
fn text_of(buffer: &Buffer) -> String {
    let mut out = String::new();
    for cells in buffer.content.chunks(usize::from(buffer.area.width)) {
        let mut x = 0;
        while x < cells.len() {
            out.push_str(cells[x].symbol());
            x += usize::from(cells[x].symbol().cell_width().max(1));
        }
        out = out.trim_end().to_owned();
        out.push('\n');
    }
    out
}

#[test]
fn cells_terminals_measure_differently_are_drawn_as_ones_they_measure_alike() {
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "builder", "pi");
    let text = AgentEvent::TextDelta { text: TEXT.into() };
    feed(
        &mut model,
        &RunEvent::Agent {
            iteration: 1,
            event: &text,
        },
    );
    let mut app = App::new(true);
    let mut terminal = Terminal::new(TestBackend::new(120, 12)).unwrap();
    terminal
        .draw(|f| draw::frame(f, &model, &mut app, Theme { color: false }, NOW_MS))
        .unwrap();
    let buffer = terminal.backend().buffer();
    assert_eq!(misplaced(buffer), Vec::<String>::new());
    let shown = text_of(buffer);
    let stand_ins = "fam 👩 flag JP zwj ab heart ❤  thumb 👍 key #  end\n";
    assert!(shown.contains(stand_ins), "{shown}");
    // Text every terminal measures alike is left as it is.
    assert!(shown.contains("CJK 漢字 é\u{301} Z\u{351}\n"), "{shown}");
    // The record and the export keep what the model wrote.
    assert!(export::markdown(&model, &model.iterations[0]).contains(TEXT.trim_end()));
}
