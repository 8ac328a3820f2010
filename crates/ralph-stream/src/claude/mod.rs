//! Claude Code (`claude -p --output-format stream-json --include-partial-messages --verbose`).
//!
//! Facts the parser relies on (see the real transcripts under tests/fixtures/claude):
//! - one `assistant` line per content block (thinking, text, tool_use), all sharing
//!   `message.id`; a message is complete when a line of another message, a `user` line
//!   (its tool results) or the `result` arrives;
//! - `assistant.message.usage` is a `message_start` snapshot (`output_tokens: 1`): its
//!   input (uncached, cache reads and writes) is the request's whole prompt, the context
//!   the call read (its final output count comes in the `message_delta` stream event,
//!   `partial.rs`), but the session's usage and cost come from `result` when it comes (its
//!   totals replace the turns' sums); each main-agent message is one model call
//!   (a `turn_finished`), while `result.num_turns` counts tool round trips plus one
//!   (9 parallel tool calls in 4 model calls make 10);
//! - `type` is not always the first key (`result` in 2.1.332 starts with
//!   `duration_api_ms`);
//! - `tool_result.content` is a string or an array of text blocks; `is_error` may be
//!   absent;
//! - a failed run ends with a synthetic assistant message (`model: "<synthetic>"`,
//!   `is_api_error_message: true`) and a `result` with `is_error: true`;
//! - a background sub-agent adds a second `system/init` and a second `result` whose
//!   `total_cost_usd` repeats the cumulative cost, while its `num_turns` and `usage`
//!   count only that part; `modelUsage` is cumulative.
//! - with `--include-partial-messages` (as ralph runs it), `stream_event` lines carry
//!   the model's deltas before each block's `assistant` line, and the message's stop
//!   reason after them (see `partial.rs`); the `assistant` lines then say
//!   `stop_reason: null`, which they also say without that option (only the
//!   non-streaming retry's line names its reason);
//! - with `--input-format stream-json --replay-user-messages` (as ralph steers it), each
//!   user message ralph sends comes back as a `user` line with `isReplay: true` when
//!   Claude Code takes it into the conversation: the prompt first, a steering message
//!   after the tool results it waited for, or, when it came after the last model call,
//!   at the start of a second turn (a second `system/init` … `result`).

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::event::AgentEvent;
use crate::event::Phase;
use crate::event::Stop;
use crate::event::Tokens;
use crate::event::Usage;
use crate::json::JsonStr;
use crate::json::Scratch;
use crate::json::Span;
use crate::parser::AgentParser;
use crate::parser::Emit;
use crate::parser::saturate;
use crate::parser::stop_of;

mod fields;
mod partial;

use crate::parser::text_of;
use crate::parser::unknown_sub;
use crate::rate_limit::with_status;
use fields::Block;
use fields::Fields;
use fields::Kind;
use partial::PARAGRAPH;
use partial::Streamed;
use partial::Written;

/// Parses Claude Code's stream-json lines.
#[derive(Debug, Default)]
pub(crate) struct ClaudeParser {
    scratch: Scratch,
    /// The main agent's message being assembled from its per-block lines.
    pending: Option<PendingMessage>,
    /// Tool names by call id, until the call finishes: results do not repeat them.
    tool_names: HashMap<String, String>,
    /// The id of the last message counted as a model turn: a message whose lines a tool
    /// result interrupts comes back under the same id, and is still one model call.
    counted_id: String,
    /// The message the last `message_start` began: the one deltas without an
    /// `api_message_id` belong to.
    streaming_id: String,
}

#[derive(Debug, Default)]
struct PendingMessage {
    id: String,
    /// The model that wrote it (none for Claude Code's own error message).
    model: Option<String>,
    /// Its request's usage, as its `message_start` or its last line gave it.
    tokens: Tokens,
    /// Its final output count, from its `message_delta` (see `partial.rs`): the lines'
    /// usage is the `message_start` snapshot.
    final_output: Option<u64>,
    text: String,
    has_tool_use: bool,
    stop: Option<Stop>,
    error: Option<String>,
    /// The block whose deltas are being shown.
    streamed: Streamed,
    /// An `assistant` line of it came: some block of it came whole.
    came_whole: bool,
    /// A tool call it began (`content_block_start`) whose block has not come whole: the
    /// tool's name, when given.
    tool_begun: Option<Option<String>>,
    /// Its `message_stop` came: nothing more of it will.
    ended: bool,
}

impl AgentParser for ClaudeParser {
    fn scratch(&mut self) -> &mut Scratch {
        &mut self.scratch
    }

    /// End of stream: a message still being assembled is complete now.
    fn finish(&mut self, emit: &mut Emit<'_>) {
        self.flush(emit);
    }

    fn on_event(&mut self, kind: Kind, f: &mut Fields<'_>, emit: &mut Emit<'_>) {
        match kind {
            Kind::System => self.on_system(f, emit),
            Kind::Assistant => self.on_assistant(f, emit),
            Kind::User => self.on_user(f, emit),
            Kind::Result => self.on_result(f, emit),
            Kind::RateLimit => emit(&AgentEvent::RateLimit {
                status: f.rate_status.map(JsonStr::decode),
                resets_at: f.resets_at,
            }),
            Kind::StreamEvent => self.on_stream_event(f, emit),
            Kind::Ignored => {}
        }
    }
}

impl ClaudeParser {
    fn on_system(&mut self, f: &mut Fields<'_>, emit: &mut Emit<'_>) {
        let Some(subtype) = f.subtype else {
            emit(&AgentEvent::Unknown {
                event_type: "system".into(),
            });
            return;
        };
        match &*subtype.name() {
            b"init" => emit(&AgentEvent::SessionStarted {
                session_id: f.session_id.map(JsonStr::decode),
                model: f.model.map(JsonStr::decode),
                provider: Some("anthropic".into()),
            }),
            b"api_retry" => {
                let error = f.error.map(|e| e.decode_into(&mut self.scratch));
                let start = self.scratch.len();
                let _ = match (f.error_status, &error) {
                    (Some(status), Some(e)) => {
                        let e = e.resolve(&self.scratch).to_owned();
                        write!(self.scratch, "HTTP {status}: {e}")
                    }
                    (Some(status), None) => write!(self.scratch, "HTTP {status}"),
                    (None, Some(e)) => {
                        let e = e.resolve(&self.scratch).to_owned();
                        write!(self.scratch, "{e}")
                    }
                    (None, None) => Ok(()),
                };
                let text = &self.scratch.as_str()[start..];
                emit(&AgentEvent::RetryStarted {
                    attempt: f.attempt.map(saturate),
                    max_attempts: f.max_retries.map(saturate),
                    delay_ms: f.retry_delay_ms,
                    error: (!text.is_empty()).then(|| text.into()),
                });
            }
            b"compact_boundary" => emit(&AgentEvent::Compaction {
                phase: Phase::Finished,
                reason: f.trigger.map(JsonStr::decode),
                error: None,
            }),
            b"thinking_tokens"
            | b"task_started"
            | b"task_progress"
            | b"task_updated"
            | b"task_notification"
            | b"background_tasks_changed"
            | b"hook_started"
            | b"hook_progress"
            | b"hook_response"
            | b"status"
            | b"informational"
            | b"local_command_output"
            | b"files_persisted" => {}
            _ => unknown_sub("system", subtype, &mut self.scratch, emit),
        }
    }

    fn on_assistant(&mut self, f: &mut Fields<'_>, emit: &mut Emit<'_>) {
        let Some(message) = &f.message else {
            emit(&AgentEvent::Unknown {
                event_type: "assistant".into(),
            });
            return;
        };
        let parent = f.parent_id;
        let synthetic_error =
            f.api_error || f.error.is_some() || message.model.is_some_and(|m| m.eq("<synthetic>"));
        // A sub-agent's words are not the agent's answer; its tools still show.
        let main = parent.is_none();
        if main {
            let id = message.id.map(JsonStr::decode).unwrap_or_default();
            self.open(&id, emit);
            if let Some(pending) = self.pending.as_mut() {
                pending.came_whole = true;
                if pending.model.is_none() && !synthetic_error {
                    // Its deltas, when they came first, did not name the model.
                    pending.model = message.model.map(|m| m.decode().into_owned());
                }
            }
        }
        for block in &message.blocks {
            match block {
                Block::Text(text) => {
                    if !main {
                        continue;
                    }
                    let Some(pending) = self.pending.as_mut() else {
                        continue;
                    };
                    let start = self.scratch.len();
                    if pending.text_before_block() > 0 && !synthetic_error {
                        // Blocks of one message are paragraphs: keep them apart.
                        self.scratch.push_str(PARAGRAPH);
                    }
                    let body = self.scratch.len();
                    if let Span::Line(plain) = text.decode_into(&mut self.scratch) {
                        self.scratch.push_str(plain);
                    }
                    let whole = &self.scratch.as_str()[body..];
                    if synthetic_error {
                        let named = f.api_error_status.and_then(|s| with_status(s, whole));
                        pending.error = Some(named.unwrap_or_else(|| whole.to_owned()));
                        pending.stop = Some(Stop::Error);
                        continue;
                    }
                    // What its deltas showed is not shown again.
                    let delta = match pending.shown_of(Written::Text, whole) {
                        Some(shown) if shown == whole.len() => continue,
                        Some(shown) => &whole[shown..],
                        None => &self.scratch.as_str()[start..],
                    };
                    pending.text.push_str(delta);
                    emit(&AgentEvent::TextDelta { text: delta.into() });
                }
                Block::Thinking(text) => {
                    if !main {
                        continue;
                    }
                    let text = text.decode_into(&mut self.scratch);
                    let whole = text.resolve(&self.scratch);
                    let delta = match self.pending.as_mut() {
                        Some(pending) => match pending.shown_of(Written::Thinking, whole) {
                            Some(shown) if shown == whole.len() => continue,
                            Some(shown) => &whole[shown..],
                            None => whole,
                        },
                        None => whole,
                    };
                    emit(&AgentEvent::ThinkingDelta { text: delta.into() });
                }
                Block::ToolUse { id, name, input } => {
                    let id = id.map(JsonStr::decode).unwrap_or_default();
                    let name = name.map(JsonStr::decode).unwrap_or_default();
                    self.tool_names.insert(id.to_string(), name.to_string());
                    if main && let Some(pending) = self.pending.as_mut() {
                        pending.has_tool_use = true;
                        pending.tool_begun = None;
                    }
                    emit(&AgentEvent::ToolCallStarted {
                        id,
                        name,
                        args: input.map_or("{}".into(), String::from_utf8_lossy),
                        parent_id: parent.map(JsonStr::decode),
                    });
                }
                Block::ToolResult { .. } | Block::Ignored => {}
                Block::Unknown(ty) => unknown_sub("assistant", *ty, &mut self.scratch, emit),
            }
        }
        if main && let Some(pending) = self.pending.as_mut() {
            if let Some(reason) = message.stop_reason
                && pending.stop.is_none()
            {
                pending.stop_on(reason);
            }
            if let Some(tokens) = message.usage {
                pending.tokens = tokens;
            }
        }
    }

    fn on_user(&mut self, f: &mut Fields<'_>, emit: &mut Emit<'_>) {
        let Some(message) = &f.message else {
            return;
        };
        if f.is_replay && f.parent_id.is_none() {
            // The prompt, or a steering message Claude Code took into the conversation.
            self.flush(emit);
            let texts: Vec<JsonStr<'_>> = match message.plain {
                Some(plain) => vec![plain],
                None => (message.blocks.iter())
                    .filter_map(|block| match block {
                        Block::Text(text) => Some(*text),
                        _ => None,
                    })
                    .collect(),
            };
            let text = text_of(&texts, "\n", &mut self.scratch);
            emit(&AgentEvent::UserMessage {
                text: text.resolve(&self.scratch).into(),
            });
            return;
        }
        for block in &message.blocks {
            if let Block::ToolResult {
                id,
                texts,
                is_error,
            } = block
            {
                if f.parent_id.is_none() {
                    // The main agent's message is complete once its tools report back.
                    self.flush(emit);
                }
                let output = text_of(texts, "\n", &mut self.scratch);
                let id = id.map(JsonStr::decode).unwrap_or_default();
                emit(&AgentEvent::ToolCallFinished {
                    // A call finishes once: its name is not needed again, and a session
                    // of many calls does not keep every name.
                    name: self.tool_names.remove(id.as_ref()).map(Into::into),
                    id,
                    output: output.resolve(&self.scratch).into(),
                    is_error: *is_error,
                });
            }
        }
    }

    fn on_result(&mut self, f: &mut Fields<'_>, emit: &mut Emit<'_>) {
        self.flush(emit);
        let is_error = f.is_error.unwrap_or(false);
        let (tokens, model) = match f.model_usage {
            Some((tokens, model)) => (tokens, model),
            None => (f.usage.unwrap_or_default(), None),
        };
        let error = if is_error {
            f.result
                .or_else(|| f.errors.first().copied())
                .or(f.subtype)
                .map(JsonStr::decode)
                .map(
                    |e| match f.api_error_status.and_then(|s| with_status(s, &e)) {
                        Some(named) => named.into(),
                        None => e,
                    },
                )
                .or(Some("claude reported an error".into()))
        } else {
            None
        };
        emit(&AgentEvent::RunFinished {
            is_error,
            error,
            turns: f.num_turns.map(saturate),
            duration_ms: f.duration_ms,
            totals: Some(Usage::reported(
                tokens,
                f.total_cost_usd,
                model.map(JsonStr::decode),
            )),
        });
    }

    /// Makes `id` the main agent's message being assembled; the one before it is
    /// complete now.
    fn open(&mut self, id: &str, emit: &mut Emit<'_>) {
        if self.pending.as_ref().is_none_or(|p| p.id != id) {
            self.flush(emit);
            self.pending = Some(PendingMessage {
                id: id.to_owned(),
                ..PendingMessage::default()
            });
        }
    }

    fn flush(&mut self, emit: &mut Emit<'_>) {
        let Some(mut pending) = self.pending.take() else {
            return;
        };
        pending.note_broken_off();
        let stop = pending.stop.unwrap_or(if pending.has_tool_use {
            Stop::ToolUse
        } else {
            Stop::Completed
        });
        emit(&AgentEvent::MessageFinished {
            text: pending.text.into(),
            stop,
            error: pending.error.map(Into::into),
        });
        // One model call per message id, however many lines and tool results it came in:
        // Claude's own `num_turns` counts tool round trips instead.
        if pending.id.is_empty() || pending.id != self.counted_id {
            // Its input is the context the request read; its cost comes with `result`,
            // whose totals replace the turns' sums (so the exact output count here is not
            // counted twice), and without which these are all there is.
            let mut tokens = pending.tokens;
            if let Some(output) = pending.final_output {
                tokens.output = output;
            }
            emit(&AgentEvent::TurnFinished {
                usage: Usage::reported(tokens, None, pending.model.map(Into::into)),
                is_error: stop.is_failure(),
            });
            self.counted_id = pending.id;
        }
    }
}

/// Claude's `stop_reason`s.
const STOPS: &[(&[u8], Stop)] = &[
    (b"end_turn", Stop::Completed),
    (b"stop_sequence", Stop::Completed),
    (b"tool_use", Stop::ToolUse),
    (b"max_tokens", Stop::Length),
    // The context window filled while the model wrote: cut for length, as at its
    // output limit.
    (b"model_context_window_exceeded", Stop::Length),
    // The API paused a long turn of its server-side tools; the agent sends it back to
    // go on. Not the answer, nor a failure: the run goes on, as after a tool call.
    (b"pause_turn", Stop::ToolUse),
    // The model declined to answer: the call gave no answer to build on. It comes
    // with no error of its own ([`REFUSED`] says what happened).
    (REFUSAL, Stop::Error),
];

/// The `stop_reason` of an answer the model declined to give.
const REFUSAL: &[u8] = b"refusal";
/// The error of a message that ended on [`REFUSAL`], shown as why the call failed.
const REFUSED: &str = "the model declined to answer (Claude's stop reason `refusal`)";

impl PendingMessage {
    /// Ends the message on Claude's `stop_reason` (once a message: not on the bytes'
    /// path).
    fn stop_on(&mut self, reason: JsonStr<'_>) {
        if *reason.name() == *REFUSAL && self.error.is_none() {
            self.error = Some(REFUSED.to_owned());
        }
        self.stop = Some(stop_of(reason, STOPS));
    }
}

#[cfg(test)]
mod tests;
