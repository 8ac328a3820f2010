//! Plain-text agents: every line is assistant text.

use std::borrow::Cow;

use crate::event::AgentEvent;
use crate::event::Stop;
use crate::json::LineIndex;
use crate::parser::Emit;
use crate::parser::Lines;

/// How much of a text agent's output is kept as its final message. Completion detection
/// reads only the last lines; keeping everything would let a chatty agent grow memory
/// without bound.
pub const TEXT_TAIL_BYTES: usize = 64 * 1024;

#[derive(Debug, Default)]
pub(crate) struct TextParser {
    tail: String,
}

impl Lines for TextParser {
    fn line(&mut self, line: &[u8], _index: Option<&LineIndex>, emit: &mut Emit<'_>) {
        let text = String::from_utf8_lossy(line);
        let mut delta = String::with_capacity(text.len() + 1);
        delta.push_str(&text);
        delta.push('\n');
        self.keep(&delta);
        emit(&AgentEvent::TextDelta {
            text: Cow::Owned(delta),
        });
    }

    fn end(&mut self, emit: &mut Emit<'_>) {
        emit(&AgentEvent::MessageFinished {
            text: Cow::Borrowed(self.tail.trim_end_matches('\n')),
            stop: Stop::Completed,
            error: None,
        });
    }
}

impl TextParser {
    fn keep(&mut self, delta: &str) {
        self.tail.push_str(delta);
        if self.tail.len() > 2 * TEXT_TAIL_BYTES {
            let cut = self
                .tail
                .ceil_char_boundary(self.tail.len() - TEXT_TAIL_BYTES);
            self.tail.drain(..cut);
        }
    }
}
