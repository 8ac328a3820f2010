//! Where an answer quotes instead of saying: the Markdown that shows text as written (code)
//! or repeats it (a blockquote). An agent that writes `<event topic="x">` there is showing
//! a tag, not sending one ("I won't send `<event topic="build.done">` until the tests
//! pass"), so the tag reader skips a tag that opens in one of these spans.
//!
//! Markdown's own rules (CommonMark), kept to what an answer holds:
//! - a fenced code block: a line of three or more `` ` `` or `~` (indented at most three
//!   columns) up to a line of at least as many of the same character, or the end;
//! - an indented code block: lines indented four columns or more, starting after a blank
//!   line (or a heading, a fence's end, the start of the message), since such a line inside a
//!   paragraph only continues it; it runs on over blank lines to the next line indented less;
//! - a blockquote line, starting with `>`;
//! - a code span: a run of N backticks up to the next run of exactly N, within one
//!   paragraph (it may cross lines, not a blank line or a block); a run with no partner is
//!   plain text, and the runs after it are read on.

use std::collections::HashMap;
use std::ops::Range;

/// Shortest run of backticks or tildes that opens a fenced code block.
const FENCE_MIN: usize = 3;

/// Columns of indentation from which a line is code, not a fence, a quote or text.
const CODE_INDENT: usize = 4;

/// Columns a tab advances to the next multiple of (CommonMark's tab stop).
const TAB_STOP: usize = 4;

/// Most `#` an ATX heading opens with.
const HEADING_MAX: usize = 6;

/// The byte ranges of a message that are quotations, in order and apart.
#[derive(Debug, Default)]
pub(super) struct Quotes {
    spans: Vec<Range<usize>>,
}

/// What the line being read belongs to.
enum Block {
    /// A paragraph, or nothing yet.
    Text,
    /// A fenced code block: its fence character, the fence's length, where it starts.
    Fenced { fence: u8, len: usize, start: usize },
    /// An indented code block: where it starts and where its last non-blank line ends.
    Indented { start: usize, end: usize },
}

impl Quotes {
    /// The quotations in `text`.
    pub(super) fn of(text: &str) -> Self {
        let mut quotes = Quotes::default();
        let mut block = Block::Text;
        // The lines of the paragraph being read, for its code spans.
        let mut paragraph: Option<Range<usize>> = None;
        // Whether an indented line here starts a code block (it cannot interrupt a paragraph).
        let mut code_may_start = true;
        let mut line_start = 0;
        for line in text.split_inclusive('\n') {
            let line_end = line_start + line.len();
            let lead = Lead::of(line);
            match block {
                Block::Fenced { fence, len, start } => {
                    if lead.closes_fence(line, fence, len) {
                        quotes.spans.push(start..line_end);
                        block = Block::Text;
                        code_may_start = true;
                    }
                    line_start = line_end;
                    continue;
                }
                Block::Indented { start, end } => {
                    if lead.blank {
                        line_start = line_end;
                        continue;
                    }
                    if lead.columns >= CODE_INDENT {
                        block = Block::Indented {
                            start,
                            end: line_end,
                        };
                        line_start = line_end;
                        continue;
                    }
                    quotes.spans.push(start..end);
                    block = Block::Text;
                }
                Block::Text => {}
            }
            let starts_block = lead.blank
                || (lead.columns >= CODE_INDENT && code_may_start)
                || lead.opens_fence(line).is_some()
                || lead.quote_mark(line)
                || lead.heading(line);
            if starts_block && let Some(lines) = paragraph.take() {
                quotes.add_code_spans(text, lines);
            }
            if lead.blank {
                code_may_start = true;
            } else if lead.columns >= CODE_INDENT && code_may_start {
                block = Block::Indented {
                    start: line_start,
                    end: line_end,
                };
            } else if let Some((fence, len)) = lead.opens_fence(line) {
                block = Block::Fenced {
                    fence,
                    len,
                    start: line_start,
                };
            } else if lead.quote_mark(line) {
                quotes.spans.push(line_start..line_end);
                code_may_start = false;
            } else if lead.heading(line) {
                quotes.add_code_spans(text, line_start..line_end);
                code_may_start = true;
            } else {
                paragraph.get_or_insert(line_start..line_end).end = line_end;
                code_may_start = false;
            }
            line_start = line_end;
        }
        if let Some(lines) = paragraph {
            quotes.add_code_spans(text, lines);
        }
        match block {
            // Never closed: the rest of the message is inside.
            Block::Fenced { start, .. } => quotes.spans.push(start..text.len()),
            Block::Indented { start, end } => quotes.spans.push(start..end),
            Block::Text => {}
        }
        quotes
    }

    /// Whether the byte at `at` is inside a quotation.
    pub(super) fn contains(&self, at: usize) -> bool {
        let i = self.spans.partition_point(|span| span.end <= at);
        self.spans.get(i).is_some_and(|span| span.contains(&at))
    }

    /// Adds the code spans of the paragraph `lines` of `text`. Each run of backticks is
    /// looked for among the runs of its own length, from where that search last stopped,
    /// so a paragraph full of unpaired runs is read once, not once per run.
    fn add_code_spans(&mut self, text: &str, lines: Range<usize>) {
        let bytes = &text.as_bytes()[lines.clone()];
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'`' {
                let len = bytes[i..].iter().take_while(|&&b| b == b'`').count();
                runs.push((lines.start + i, len));
                i += len;
            } else {
                i += 1;
            }
        }
        // Each length's runs (their indices in `runs`), and how far each has been searched.
        let mut by_len: HashMap<usize, (Vec<usize>, usize)> = HashMap::new();
        for (index, &(_, len)) in runs.iter().enumerate() {
            by_len.entry(len).or_default().0.push(index);
        }
        let mut opener = 0;
        while let Some(&(start, len)) = runs.get(opener) {
            let (same_len, searched) = by_len.get_mut(&len).expect("every run's length is in");
            while same_len
                .get(*searched)
                .is_some_and(|&index| index <= opener)
            {
                *searched += 1;
            }
            match same_len.get(*searched) {
                Some(&closer) => {
                    let (closer_start, _) = runs[closer];
                    self.spans.push(start..closer_start + len);
                    opener = closer + 1;
                }
                None => opener += 1,
            }
        }
    }
}

/// The start of a line: how far it is indented, and whether it is blank.
struct Lead {
    /// Columns of indentation, a tab counting to the next tab stop.
    columns: usize,
    /// Bytes of indentation.
    bytes: usize,
    blank: bool,
}

impl Lead {
    fn of(line: &str) -> Self {
        let mut columns = 0;
        let mut bytes = 0;
        for b in line.bytes() {
            match b {
                b' ' => columns += 1,
                b'\t' => columns += TAB_STOP - columns % TAB_STOP,
                _ => break,
            }
            bytes += 1;
        }
        Lead {
            columns,
            bytes,
            blank: line.trim().is_empty(),
        }
    }

    /// The line past its indentation, when that is little enough for a fence, a quote
    /// or a heading.
    fn rest<'a>(&self, line: &'a str) -> Option<&'a str> {
        (self.columns < CODE_INDENT && !self.blank).then(|| &line[self.bytes..])
    }

    /// The fence character and length, when the line opens a fenced code block.
    fn opens_fence(&self, line: &str) -> Option<(u8, usize)> {
        let rest = self.rest(line)?;
        let fence = rest.bytes().next().filter(|b| matches!(b, b'`' | b'~'))?;
        let len = rest.bytes().take_while(|&b| b == fence).count();
        // After backticks, a backtick makes it a code span, not a fence.
        let info_ok = fence == b'~' || !rest[len..].contains('`');
        (len >= FENCE_MIN && info_ok).then_some((fence, len))
    }

    /// Whether the line closes a block fenced by `len` of `fence`.
    fn closes_fence(&self, line: &str, fence: u8, len: usize) -> bool {
        self.rest(line).is_some_and(|rest| {
            let run = rest.bytes().take_while(|&b| b == fence).count();
            run >= len && rest[run..].trim().is_empty()
        })
    }

    /// Whether the line is in a blockquote.
    fn quote_mark(&self, line: &str) -> bool {
        self.rest(line).is_some_and(|rest| rest.starts_with('>'))
    }

    /// Whether the line is an ATX heading (`# Title`).
    fn heading(&self, line: &str) -> bool {
        self.rest(line).is_some_and(|rest| {
            let marks = rest.bytes().take_while(|&b| b == b'#').count();
            (1..=HEADING_MAX).contains(&marks)
                && rest[marks..].starts_with(|c: char| c.is_ascii_whitespace())
        })
    }
}

#[cfg(test)]
#[path = "quotes_tests.rs"]
mod tests;
