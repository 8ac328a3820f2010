//! Claude's text and thinking as the model writes them (`--include-partial-messages`):
//! each `stream_event` delta is shown as it arrives, and the complete `assistant` line
//! that follows for the block shows only what the deltas did not, so that every
//! character is seen once.
//!
//! Facts it relies on (tests/fixtures/claude/v2.1.332_partial_*): a block's deltas come
//! before its `assistant` line, under the message's `api_message_id` (and after a
//! `message_start` naming the message); a call that breaks off mid-stream gets no
//! `assistant` line for what it streamed, Claude Code ends it with a `message_stop` that
//! no `message_delta` came before (`abandoned_blocks` names the blocks it dropped, a tool
//! call begun among them: `v2.1.332_partial_tool_call_cut`), and its retry comes as a new
//! message; a sub-agent's lines come without deltas; a message's stop reason comes only in
//! its `message_delta`, after its last `assistant` line (which says `stop_reason: null`)
//! (`v2.1.332_partial_max_tokens_*`), with the call's final output count: the `assistant`
//! lines carry the `message_start` snapshot (`output_tokens: 1`), and only `result` would
//! correct it, which an interrupted or timed-out Claude Code never writes. The
//! `message_start` names the model and gives the request's input usage: a call cut
//! before any of its lines is known, and priced, by it alone.

use std::borrow::Cow;

use super::ClaudeParser;
use super::PendingMessage;
use super::fields::Delta;
use super::fields::Fields;
use super::fields::Partial;
use crate::event::AgentEvent;
use crate::event::Stop;
use crate::json::Span;
use crate::parser::Emit;

/// The error of a message whose streamed block never came whole: the call broke off.
pub(super) const BROKE_OFF: &str = "the model's response broke off before it was complete";

/// The start of the error of a message cut while the model wrote a tool call.
pub(super) const BROKE_OFF_IN_A_CALL: &str =
    "the model's response broke off while it wrote a tool call";

/// What separates the text blocks of one message: they are paragraphs.
pub(super) const PARAGRAPH: &str = "\n";

/// The kinds of block ralph shows as they are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Written {
    Text,
    Thinking,
}

/// The block being written, as far as its deltas went.
#[derive(Debug, Default)]
pub(super) struct Streamed {
    /// The block's kind and its index in the message; `None` when no block is open.
    block: Option<(Written, Option<u64>)>,
    /// Its text so far.
    text: String,
    /// Where it starts in the message's text (before its separator).
    start: usize,
}

impl ClaudeParser {
    /// A `stream_event` line: a delta of the main agent's text or thinking shows now.
    pub(super) fn on_stream_event(&mut self, f: &Fields<'_>, emit: &mut Emit<'_>) {
        if f.parent_id.is_some() {
            // A sub-agent's words are not the agent's answer.
            return;
        }
        match f.partial {
            Some(Partial::Start { id, model, usage }) => {
                self.streaming_id.clear();
                if let Some(id) = id {
                    self.streaming_id.push_str(&id.decode());
                }
                // The response has begun: its request is billed whether or not a block of
                // it comes whole. A call cut now (Ctrl-C, a timeout, a broken stream) gets
                // no `assistant` line, so this is the only word of its model and input.
                if model.is_none() && usage.is_none() {
                    return;
                }
                let id = self.message_of(f);
                self.open(&id, emit);
                if let Some(pending) = self.pending.as_mut() {
                    if pending.model.is_none() {
                        pending.model = model.map(|m| m.decode().into_owned());
                    }
                    if let Some(tokens) = usage {
                        pending.tokens = tokens;
                    }
                }
            }
            Some(Partial::Delta { delta, index }) => {
                let id = self.message_of(f);
                self.open(&id, emit);
                self.on_delta(delta, index, emit);
            }
            Some(Partial::ToolBegun { name }) => {
                let id = self.message_of(f);
                self.open(&id, emit);
                if let Some(pending) = self.pending.as_mut() {
                    pending.tool_begun = Some(name.map(|n| n.decode().into_owned()));
                }
            }
            Some(Partial::End) => {
                // The message ends here, well or cut: closing it now puts a cut before the
                // retry Claude Code announces next (`api_retry`), as it happened, and not
                // at the retry's `message_start`. One that a tool's result already
                // completed was reported.
                let id = self.message_of(f);
                if let Some(pending) = self.pending.as_mut()
                    && pending.id == *id
                {
                    pending.ended = true;
                    self.flush(emit);
                }
            }
            Some(Partial::Stop { reason, output }) => {
                let id = self.message_of(f);
                // Only the message being assembled takes it: one that a tool's result
                // already completed was reported, and an empty one is not opened for it.
                if let Some(pending) = self.pending.as_mut()
                    && pending.id == *id
                {
                    if let Some(reason) = reason
                        && pending.stop.is_none()
                    {
                        pending.stop_on(reason);
                    }
                    if output.is_some() {
                        pending.final_output = output;
                    }
                }
            }
            None => {}
        }
    }

    /// The id of the message a stream event belongs to.
    fn message_of<'a>(&self, f: &Fields<'a>) -> Cow<'a, str> {
        match f.api_message_id {
            Some(id) => id.decode(),
            None => Cow::Owned(self.streaming_id.clone()),
        }
    }

    fn on_delta(&mut self, delta: Delta<'_>, index: Option<u64>, emit: &mut Emit<'_>) {
        let Some(pending) = self.pending.as_mut() else {
            return;
        };
        let (written, text) = match delta {
            Delta::Text(text) => (Written::Text, text),
            Delta::Thinking(text) => (Written::Thinking, text),
        };
        let start = self.scratch.len();
        if pending.streamed.block != Some((written, index)) {
            // A new block. What an earlier one streamed without coming whole stays in
            // the message's text, as it was shown.
            pending.streamed = Streamed {
                block: Some((written, index)),
                text: String::new(),
                start: pending.text.len(),
            };
            if written == Written::Text && !pending.text.is_empty() {
                self.scratch.push_str(PARAGRAPH);
            }
        }
        let body = self.scratch.len();
        if let Span::Line(plain) = text.decode_into(&mut self.scratch) {
            self.scratch.push_str(plain);
        }
        let shown = &self.scratch.as_str()[start..];
        pending
            .streamed
            .text
            .push_str(&self.scratch.as_str()[body..]);
        match written {
            Written::Text => {
                pending.text.push_str(shown);
                emit(&AgentEvent::TextDelta { text: shown.into() });
            }
            Written::Thinking => emit(&AgentEvent::ThinkingDelta { text: shown.into() }),
        }
    }
}

impl PendingMessage {
    /// Where a complete text block's separator would go: where its streamed text
    /// began, or the end of the message's text when nothing of it streamed.
    pub(super) fn text_before_block(&self) -> usize {
        match self.streamed.block {
            Some((Written::Text, _)) => self.streamed.start,
            _ => self.text.len(),
        }
    }

    /// A complete block of kind `written` whose text is `whole`: how many of its
    /// bytes its deltas showed already, or `None` when they showed none of it (or
    /// something else, whose text is taken out of the message's again). Closes the
    /// streamed block of that kind.
    pub(super) fn shown_of(&mut self, written: Written, whole: &str) -> Option<usize> {
        if self.streamed.block.is_none_or(|(kind, _)| kind != written) {
            return None;
        }
        let streamed = std::mem::take(&mut self.streamed);
        if whole.starts_with(&*streamed.text) {
            return Some(streamed.text.len());
        }
        if written == Written::Text {
            self.text.truncate(streamed.start);
        }
        None
    }

    /// Ends a message whose last block streamed and never came whole, that began
    /// (`message_start`) and got no block whole at all, that ended (`message_stop`)
    /// without a stop reason, or that began a tool call whose block never came whole: the
    /// call broke off (an error mid-stream, a cut connection, an interrupt). Claude Code
    /// drops a cut tool call and asks again (`v2.1.332_partial_tool_call_cut`): the call
    /// did not run, and its error says so.
    pub(super) fn note_broken_off(&mut self) {
        if self.stop == Some(Stop::Error) {
            return;
        }
        if let Some(tool) = self.tool_begun.take() {
            self.stop = Some(Stop::Error);
            self.error = Some(match tool {
                Some(name) => format!("{BROKE_OFF_IN_A_CALL} to {name}, which did not run"),
                None => format!("{BROKE_OFF_IN_A_CALL}, which did not run"),
            });
            return;
        }
        let cut = self.streamed.block.is_some() || !self.came_whole || self.ended;
        if cut && self.stop.is_none() {
            self.stop = Some(Stop::Error);
            self.error = Some(BROKE_OFF.to_owned());
        }
    }
}

#[cfg(test)]
#[path = "partial_tests.rs"]
mod tests;
