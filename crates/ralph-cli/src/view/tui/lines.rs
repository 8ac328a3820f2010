//! An iteration's transcript as source lines: each entry is a run of them (a line of the
//! agent's text, a tool call's head, a line of its output), wrapped to the window's width
//! only when drawn. A long answer is never split up front: its lines are found in place
//! from a byte offset, so [`super::window`] can start anywhere and lay out only what it
//! shows.

use ratatui::buffer::CellWidth;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_segmentation::UnicodeSegmentation;

use super::model::{Entry, ToolCall};
use super::theme::Theme;
use super::window::Pos;
use crate::view::term::gate_lines::SHOWN_OUTPUT_LINES;
use crate::view::term::tool_preview;

/// How the transcript is looked at.
#[derive(Clone, Debug, Default)]
pub(crate) struct Look {
    /// Where the window starts; `None`: at the end, kept in view.
    pub(crate) top: Option<Pos>,
    /// The entry of the selected tool call.
    pub(crate) tool: Option<usize>,
    /// Lower-cased search text (empty: none).
    pub(crate) search: String,
}

/// The source lines of one entry. A line is named by a number that stays valid while
/// the entry grows: the byte offset where it starts in text, its index in the others.
pub(crate) enum Source<'a> {
    /// Text or thinking: any length, its lines found where they are.
    Text {
        text: &'a str,
        lead: &'static str,
        style: Style,
    },
    /// Everything else: a few lines (a tool's output is kept to its tail), built whole.
    Built(Vec<Built>),
}

/// A line of an entry other than text.
pub(crate) struct Built {
    text: String,
    lead: &'static str,
    cont: &'static str,
    style: Style,
    /// A selected tool call's head: how it is marked.
    selected: Option<Style>,
}

impl Built {
    fn new(text: String, lead: &'static str, cont: &'static str, style: Style) -> Built {
        Built {
            text,
            lead,
            cont,
            style,
            selected: None,
        }
    }
}

impl<'a> Source<'a> {
    /// Entry `index`'s lines as drawn with `look`; `unfolded` shows every tool call's
    /// output (what search looks in).
    pub(crate) fn of(
        entry: &'a Entry,
        index: usize,
        look: &Look,
        unfolded: bool,
        theme: Theme,
    ) -> Source<'a> {
        let text = |text: &'a str, lead, style| Source::Text {
            // A last newline ends the last line; it does not start an empty one.
            text: text.strip_suffix('\n').unwrap_or(text),
            lead,
            style,
        };
        match entry {
            Entry::Text(t) => text(t, "", Style::default()),
            Entry::Thinking(t) => text(t, "┊ ", theme.thinking()),
            Entry::Tool(call) => {
                let selected = look.tool == Some(index);
                Source::Built(tool_lines(call, selected, unfolded, theme))
            }
            Entry::Events(events) => Source::Built(
                events
                    .iter()
                    .map(|(topic, payload)| {
                        let text = format!("⇢ {topic} {payload}");
                        Built::new(text, "", "  ", theme.event())
                    })
                    .collect(),
            ),
            Entry::Gate(gate) => {
                let (mark, style) = match gate.passed {
                    None => ("…", theme.dim()),
                    Some(true) => ("✓", theme.success()),
                    Some(false) => ("✗", theme.error()),
                };
                let text = format!("{mark} gate {}: {}", gate.name, gate.detail);
                let mut lines = vec![Built::new(text, "", "  ", style)];
                if let Some(output) = &gate.output {
                    for line in tool_preview::output_tail(output, SHOWN_OUTPUT_LINES) {
                        lines.push(Built::new(line, "  │ ", "  │ ", theme.dim()));
                    }
                }
                Source::Built(lines)
            }
            Entry::Note(text) => {
                Source::Built(vec![Built::new(text.clone(), "", "  ", theme.notice())])
            }
        }
    }

    /// The first line, if the entry has any.
    pub(crate) fn first(&self) -> Option<usize> {
        match self {
            Source::Text { .. } => Some(0),
            Source::Built(lines) => (!lines.is_empty()).then_some(0),
        }
    }

    /// The last line, if the entry has any.
    pub(crate) fn last(&self) -> Option<usize> {
        match self {
            Source::Text { text, .. } => Some(text.rfind('\n').map_or(0, |at| at + 1)),
            Source::Built(lines) => lines.len().checked_sub(1),
        }
    }

    /// The line after `line`.
    pub(crate) fn next(&self, line: usize) -> Option<usize> {
        match self {
            Source::Text { text, .. } => {
                let rest = text.get(line..)?;
                rest.find('\n').map(|at| line + at + 1)
            }
            Source::Built(lines) => (line + 1 < lines.len()).then_some(line + 1),
        }
    }

    /// The line before `line`.
    pub(crate) fn prev(&self, line: usize) -> Option<usize> {
        match self {
            Source::Text { text, .. } => {
                let before = text.get(..line.checked_sub(1)?)?;
                Some(before.rfind('\n').map_or(0, |at| at + 1))
            }
            Source::Built(_) => line.checked_sub(1),
        }
    }

    /// The line `line` names, or the nearest before it when it names none (a position
    /// kept from a longer or different entry).
    pub(crate) fn line_at(&self, line: usize) -> Option<usize> {
        match self {
            Source::Text { text, .. } => {
                let at = text.floor_char_boundary(line);
                Some(text[..at].rfind('\n').map_or(0, |nl| nl + 1))
            }
            Source::Built(lines) => lines.len().checked_sub(1).map(|last| line.min(last)),
        }
    }

    /// The text of `line`, as searched.
    pub(crate) fn text(&self, line: usize) -> &str {
        match self {
            Source::Text { text, .. } => {
                let rest = text.get(line..).unwrap_or_default();
                rest.split('\n').next().unwrap_or_default()
            }
            Source::Built(lines) => lines.get(line).map_or("", |l| l.text.as_str()),
        }
    }

    /// `line` wrapped to `width` columns, added to `out`; how many screen lines it took
    /// (one at least).
    pub(crate) fn rows(&self, line: usize, width: usize, out: &mut Vec<Line<'static>>) -> usize {
        let first = out.len();
        match self {
            Source::Text { lead, style, .. } => {
                wrapped(self.text(line), lead, lead, *style, width, out);
            }
            Source::Built(lines) => {
                let Some(built) = lines.get(line) else {
                    out.push(Line::default());
                    return 1;
                };
                if built.text.is_empty() {
                    out.push(Line::default());
                } else {
                    wrapped(&built.text, built.lead, built.cont, built.style, width, out);
                }
                if let Some(mark) = built.selected {
                    for row in &mut out[first..] {
                        *row = std::mem::take(row).patch_style(mark);
                    }
                }
            }
        }
        out.len() - first
    }
}

fn tool_lines(call: &ToolCall, selected: bool, unfolded: bool, theme: Theme) -> Vec<Built> {
    let (mark, style) = match call.failed {
        None => ("…", theme.tool()),
        Some(false) => ("✓", theme.tool()),
        Some(true) => ("✗", theme.error()),
    };
    let fold = if call.expanded { "▾" } else { "▸" };
    let head = format!("{fold} {mark} {} {}", call.name, call.preview);
    let mut lines = vec![Built {
        selected: selected.then(|| theme.selected()),
        ..Built::new(head, "", "    ", style)
    }];
    if call.expanded || unfolded {
        for line in call.output.lines() {
            lines.push(Built::new(line.to_owned(), "  │ ", "  │ ", theme.dim()));
        }
    } else if call.failed == Some(true) {
        let why = tool_preview::failure_preview(&call.output);
        lines.push(Built::new(why, "  │ ", "  │ ", theme.error()));
    }
    lines
}

/// `text` cut to `width` columns; the first screen line starts with `lead`, the others
/// with `cont`. A prefix that leaves no room is dropped. Cut between graphemes, each
/// measured as ratatui draws it: an emoji family or a flag is one glyph, never split
/// over two rows, and takes the columns its cell takes, not the sum of its characters'.
fn wrapped(
    text: &str,
    lead: &str,
    cont: &str,
    style: Style,
    width: usize,
    out: &mut Vec<Line<'static>>,
) {
    let mut prefix = lead;
    let mut current = String::new();
    let mut used = 0;
    let room = |prefix: &str| {
        let w = prefix.chars().count();
        if w < width { width - w } else { width }
    };
    let flush = |current: &mut String, prefix: &str, out: &mut Vec<Line<'static>>| {
        let shown = if prefix.chars().count() < width {
            prefix
        } else {
            ""
        };
        out.push(Line::from(vec![
            Span::styled(shown.to_owned(), style),
            Span::styled(std::mem::take(current), style),
        ]));
    };
    for grapheme in text.graphemes(true) {
        let grapheme = if grapheme == "\t" { " " } else { grapheme };
        // A control character is a grapheme of its own (CR LF one together): ratatui
        // would not draw it.
        if grapheme.contains(char::is_control) {
            continue;
        }
        let w = usize::from(grapheme.cell_width());
        if used + w > room(prefix) && used > 0 {
            flush(&mut current, prefix, out);
            prefix = cont;
            used = 0;
        }
        current.push_str(grapheme);
        used += w;
    }
    flush(&mut current, prefix, out);
}

#[cfg(test)]
#[path = "lines_tests.rs"]
mod tests;
