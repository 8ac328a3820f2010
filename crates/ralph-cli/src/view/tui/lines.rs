//! An iteration's transcript as screen lines, built from the bottom up and only as far as
//! the window needs: following a long iteration costs the visible lines per frame, not
//! the whole transcript.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use super::model::{Entry, Iteration, ToolCall};
use super::theme::Theme;
use crate::view::term::gate_lines::SHOWN_OUTPUT_LINES;
use crate::view::term::tool_preview;

/// How the transcript is looked at.
#[derive(Clone, Debug, Default)]
pub(crate) struct Look {
    /// Lines scrolled back from the bottom.
    pub(crate) scroll_back: usize,
    /// The entry of the selected tool call.
    pub(crate) tool: Option<usize>,
    /// Lower-cased search text (empty: none).
    pub(crate) search: String,
}

/// The window of lines to draw, and whether it reaches the top of the transcript.
pub(crate) struct Window {
    pub(crate) lines: Vec<Line<'static>>,
    /// The most `scroll_back` can be (the transcript's top is in view).
    pub(crate) max_scroll_back: Option<usize>,
}

/// The `height` lines ending `look.scroll_back` lines above the transcript's end.
pub(crate) fn window(it: &Iteration, look: &Look, width: u16, height: u16, theme: Theme) -> Window {
    let width = usize::from(width.max(1));
    let height = usize::from(height);
    let need = look.scroll_back + height;
    let mut chunks: Vec<Vec<Line<'static>>> = Vec::new();
    let mut count = 0;
    let mut reached_top = true;
    for (index, entry) in it.entries.iter().enumerate().rev() {
        let mut lines = Vec::new();
        entry_lines(
            entry,
            index,
            look,
            width,
            need - count.min(need),
            theme,
            &mut lines,
        );
        count += lines.len();
        chunks.push(lines);
        if count >= need && index > 0 {
            reached_top = false;
            break;
        }
    }
    let mut all: Vec<Line<'static>> = chunks.into_iter().rev().flatten().collect();
    let end = all
        .len()
        .saturating_sub(look.scroll_back)
        .max(height.min(all.len()));
    let start = end.saturating_sub(height);
    all.truncate(end);
    let lines = all.split_off(start);
    let max_scroll_back = reached_top.then(|| count.saturating_sub(height));
    if !look.search.is_empty() {
        let mut lines = lines;
        for line in &mut lines {
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            if text.to_lowercase().contains(&look.search) {
                *line = std::mem::take(line).patch_style(theme.found());
            }
        }
        return Window {
            lines,
            max_scroll_back,
        };
    }
    Window {
        lines,
        max_scroll_back,
    }
}

/// How many screen lines the entries from `index` on take (for jumping to an entry).
pub(crate) fn lines_from(it: &Iteration, index: usize, look: &Look, width: u16) -> usize {
    let width = usize::from(width.max(1));
    let theme = Theme { color: false };
    let mut lines = Vec::new();
    for (i, entry) in it.entries.iter().enumerate().skip(index) {
        entry_lines(entry, i, look, width, usize::MAX, theme, &mut lines);
    }
    lines.len()
}

/// The lines of one entry, at most `budget` of its last ones for long text.
fn entry_lines(
    entry: &Entry,
    index: usize,
    look: &Look,
    width: usize,
    budget: usize,
    theme: Theme,
    out: &mut Vec<Line<'static>>,
) {
    match entry {
        Entry::Text(text) => text_tail(text, "", "", Style::default(), width, budget, out),
        Entry::Thinking(text) => text_tail(text, "┊ ", "┊ ", theme.thinking(), width, budget, out),
        Entry::Tool(call) => tool_lines(call, look.tool == Some(index), width, theme, out),
        Entry::Events(events) => {
            for (topic, payload) in events {
                let text = format!("⇢ {topic} {payload}");
                wrapped(&text, "", "  ", theme.event(), width, out);
            }
        }
        Entry::Gate(gate) => {
            let (mark, style) = match gate.passed {
                None => ("…", theme.dim()),
                Some(true) => ("✓", theme.success()),
                Some(false) => ("✗", theme.error()),
            };
            let text = format!("{mark} gate {}: {}", gate.name, gate.detail);
            wrapped(&text, "", "  ", style, width, out);
            if let Some(output) = &gate.output {
                for line in tool_preview::output_tail(output, SHOWN_OUTPUT_LINES) {
                    wrapped(&line, "  │ ", "  │ ", theme.dim(), width, out);
                }
            }
        }
        Entry::Note(text) if text.is_empty() => out.push(Line::default()),
        Entry::Note(text) => wrapped(text, "", "  ", theme.notice(), width, out),
    }
}

fn tool_lines(
    call: &ToolCall,
    selected: bool,
    width: usize,
    theme: Theme,
    out: &mut Vec<Line<'static>>,
) {
    let (mark, style) = match call.failed {
        None => ("…", theme.tool()),
        Some(false) => ("✓", theme.tool()),
        Some(true) => ("✗", theme.error()),
    };
    let fold = if call.expanded { "▾" } else { "▸" };
    let head = format!("{fold} {mark} {} {}", call.name, call.preview);
    let first = out.len();
    wrapped(&head, "", "    ", style, width, out);
    if selected {
        for line in &mut out[first..] {
            *line = std::mem::take(line).patch_style(theme.selected());
        }
    }
    if call.expanded {
        for line in call.output.lines() {
            wrapped(line, "  │ ", "  │ ", theme.dim(), width, out);
        }
    } else if call.failed == Some(true) {
        let why = tool_preview::failure_preview(&call.output);
        wrapped(&why, "  │ ", "  │ ", theme.error(), width, out);
    }
}

/// The last `budget` screen lines of `text`, each line's first with `lead`.
fn text_tail(
    text: &str,
    lead: &str,
    cont: &str,
    style: Style,
    width: usize,
    budget: usize,
    out: &mut Vec<Line<'static>>,
) {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let mut reversed: Vec<Vec<Line<'static>>> = Vec::new();
    let mut count = 0;
    for line in text.rsplit('\n') {
        let mut lines = Vec::new();
        wrapped(line, lead, cont, style, width, &mut lines);
        count += lines.len();
        reversed.push(lines);
        if count >= budget {
            break;
        }
    }
    out.extend(reversed.into_iter().rev().flatten());
}

/// `text` cut to `width` columns; the first screen line starts with `lead`, the others
/// with `cont`. A prefix that leaves no room is dropped.
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
    for c in text.chars() {
        let c = if c == '\t' { ' ' } else { c };
        if c.is_control() {
            continue;
        }
        let w = c.width().unwrap_or(0);
        if used + w > room(prefix) && used > 0 {
            flush(&mut current, prefix, out);
            prefix = cont;
            used = 0;
        }
        current.push(c);
        used += w;
    }
    flush(&mut current, prefix, out);
}
