//! Text ralph did not write, made safe to show: an agent's output, an event's payload, a
//! hat's name from a cloned repository's `ralph.yml`, a config file's bytes in an error.
//!
//! Terminals act on control characters (an escape sequence can retitle the window, move
//! the cursor or hide what follows) and bidirectional overrides make text read
//! differently from what it is. Each such character is shown as its escape (`\u{1b}`),
//! so the reader sees that it is there and nothing acts on it. Newlines and tabs stay:
//! they are layout, and every view handles them.

use std::borrow::Cow;
use std::fmt::Write as _;

/// `text` with every control character (but newline and tab) and every bidirectional
/// formatting character written as a `\u{…}` escape; borrowed when there is none.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// [`visible`] for a place that must stay on one line (a table's cell): newlines and
/// tabs too are written as escapes, `\n` and `\t`, so a value that holds them shows what
/// it is without breaking the lines around it.
pub fn visible_line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c == '\n' || c == '\t') {
        return visible(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether `c` must not reach a terminal as it is.
fn needs_escape(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        // C0, DEL and C1 controls: ESC, BEL, NUL, CR (which can overwrite a line), CSI…
        c if c.is_control() => true,
        // Bidirectional marks, embeddings, overrides and isolates (Unicode's
        // Bidi_Control property): they reorder what follows them.
        '\u{061c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

#[cfg(test)]
#[path = "visible_tests.rs"]
mod tests;
