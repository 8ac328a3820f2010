//! Streaming Markdown styling: agent text is shown as it arrives, with headings, code,
//! quotes and bold styled, without re-rendering anything already written.
//!
//! Every character passes through once (rendering stays linear in the output, however
//! many small deltas pi sends) and every character is kept: only ANSI styles are added,
//! so with colors off the output is exactly the agent's text. Only the first characters
//! of a line (at most a fence's three) are held back until their meaning is known.

use anstyle::Style;

use super::palette;

/// The longest line prefix held back to decide a line's style (a code fence).
const MAX_HELD: usize = 3;

#[derive(Debug, Default)]
pub(crate) struct Markdown {
    /// Characters at the start of the current line not written yet.
    held: String,
    /// Still at the start of a line (its style is not decided).
    line_start: bool,
    /// The style of the whole current line (heading, quote, fence).
    line_style: Option<Style>,
    in_code_block: bool,
    inline_code: bool,
    bold: bool,
    /// The previous character was a `*` not written yet (it may open `**`).
    star: bool,
    /// A style is active on the terminal and must be reset at the end of the line.
    styled: bool,
}

impl Markdown {
    pub(crate) fn new() -> Self {
        Markdown {
            line_start: true,
            ..Markdown::default()
        }
    }

    /// Styles a piece of text, appending what can be shown now to `out`.
    pub(crate) fn push(&mut self, text: &str, out: &mut String) {
        for c in text.chars() {
            self.char(c, out);
        }
    }

    /// The end of a message: shows what was held and resets every style.
    pub(crate) fn finish(&mut self, out: &mut String) {
        self.flush_star(out);
        self.decide_line(out);
        self.reset(out);
        *self = Markdown::new();
    }

    /// Whether the last character shown ended a line.
    pub(crate) fn at_line_start(&self) -> bool {
        self.line_start && self.held.is_empty()
    }

    fn char(&mut self, c: char, out: &mut String) {
        if c == '\n' {
            self.flush_star(out);
            self.decide_line(out);
            self.reset(out);
            out.push('\n');
            self.line_start = true;
            self.line_style = None;
            self.inline_code = false;
            self.bold = false;
            return;
        }
        if self.line_start {
            self.held.push(c);
            if self.line_decidable() {
                self.decide_line(out);
            }
            return;
        }
        self.inline(c, out);
    }

    /// Whether the held prefix already tells the line's style.
    fn line_decidable(&self) -> bool {
        let h = self.held.as_str();
        if self.in_code_block {
            return !"```".starts_with(h) || h.len() >= MAX_HELD;
        }
        let hashes = h.chars().take_while(|&c| c == '#').count();
        if hashes == h.chars().count() && hashes <= 6 {
            return false;
        }
        !("```".starts_with(h) && h.len() < MAX_HELD)
    }

    /// Chooses the current line's style from its held prefix and writes the prefix.
    fn decide_line(&mut self, out: &mut String) {
        if !self.line_start {
            return;
        }
        self.line_start = false;
        let held = std::mem::take(&mut self.held);
        if held.starts_with("```") {
            self.in_code_block = !self.in_code_block;
            self.line_style = Some(palette::DIM);
            self.apply(out);
            out.push_str(&held);
            return;
        }
        if self.in_code_block {
            self.line_style = Some(palette::CODE);
            self.apply(out);
            out.push_str(&held);
            return;
        }
        let hashes = held.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && held[hashes..].starts_with(' ') {
            self.line_style = Some(palette::STRONG);
        } else if held.starts_with('>') {
            self.line_style = Some(palette::DIM);
        }
        self.apply(out);
        for c in held.chars() {
            self.inline(c, out);
        }
    }

    fn inline(&mut self, c: char, out: &mut String) {
        if self.in_code_block || self.line_style == Some(palette::DIM) {
            out.push(c);
            return;
        }
        if c == '*' && !self.inline_code {
            if self.star {
                // `**` toggles bold; the markers stay visible.
                self.star = false;
                if !self.bold {
                    self.bold = true;
                    self.apply(out);
                    out.push_str("**");
                } else {
                    out.push_str("**");
                    self.bold = false;
                    self.apply(out);
                }
            } else {
                self.star = true;
            }
            return;
        }
        self.flush_star(out);
        if c == '`' {
            if self.inline_code {
                out.push('`');
                self.inline_code = false;
                self.apply(out);
            } else {
                self.inline_code = true;
                self.apply(out);
                out.push('`');
            }
            return;
        }
        out.push(c);
    }

    fn flush_star(&mut self, out: &mut String) {
        if self.star {
            self.star = false;
            out.push('*');
        }
    }

    /// Writes the style the current state calls for.
    fn apply(&mut self, out: &mut String) {
        let mut style = self.line_style.unwrap_or_default();
        if self.inline_code {
            style = style.fg_color(palette::CODE.get_fg_color());
        }
        if self.bold {
            style = style.bold();
        }
        self.reset(out);
        if style != Style::new() {
            out.push_str(&style.render().to_string());
            self.styled = true;
        }
    }

    fn reset(&mut self, out: &mut String) {
        if self.styled {
            out.push_str(&anstyle::Reset.render().to_string());
            self.styled = false;
        }
    }
}

#[cfg(test)]
#[path = "markdown_tests.rs"]
mod tests;
