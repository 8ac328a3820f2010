//! OpenCode (`opencode run --format json`).
//!
//! Facts the parser relies on (see the real transcripts under tests/fixtures/opencode,
//! OpenCode 1.18.33):
//! - every line carries the session (`sessionID`) and one `part`; no line names the model;
//! - one `step_start` … `step_finish` pair per model request; `step_finish.part` has the
//!   stop `reason` (`stop`, `tool-calls`, `length`, …), that step's `tokens` (`input`
//!   excludes the cached tokens, `cache.read` / `cache.write` are separate, `reasoning`
//!   is already part of `output` for the providers that report it) and its `cost` in
//!   dollars, from the model's configured price (0 for an unpriced model);
//! - text, reasoning and tool calls arrive as whole parts, not deltas; a tool part comes
//!   once, already `completed` (or `error`), and a failing shell command is still
//!   `completed`, with `metadata.exit` ≠ 0;
//! - a step cut by a connection error is left open (its `step_start` has no finish) and
//!   the request is retried within the same message;
//! - a run that fails for good ends with one `error` line (`error.data.message`,
//!   `statusCode`) and exit code 1; an HTTP error carries the provider's response headers
//!   (`error.data.responseHeaders`), and the line its time (`timestamp`, Unix ms): with a
//!   429, `retry-after` in seconds from then is when the limit resets;
//! - there is no final summary event: a successful run just ends. OpenCode therefore has
//!   no terminal event, and a run's success is judged from its last step's stop reason;
//!   a stream that ends inside a step was cut (the step ends `aborted`).

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::event::AgentEvent;
use crate::event::Stop;
use crate::event::Usage;
use crate::json::JsonStr;
use crate::json::Scratch;
use crate::json::Span;
use crate::parser::AgentParser;
use crate::parser::Emit;
use crate::parser::append;
use crate::parser::stop_of;
use crate::summary::REJECTED;

mod fields;

use fields::ErrorInfo;
use fields::Fields;
use fields::Kind;
use fields::Part;

/// Parses OpenCode's JSON lines.
#[derive(Debug, Default)]
pub(crate) struct OpencodeParser {
    scratch: Scratch,
    session_announced: bool,
    /// The step (model request) in progress.
    step: Option<Step>,
    /// Tool calls announced while still pending or running.
    open_tools: HashSet<String>,
}

#[derive(Debug, Default)]
struct Step {
    message_id: String,
    text: String,
}

impl AgentParser for OpencodeParser {
    fn scratch(&mut self) -> &mut Scratch {
        &mut self.scratch
    }

    /// End of stream: a step still open was cut there (OpenCode stopped or died while
    /// its model answered). Its call was billed and OpenCode never priced it: it ends
    /// aborted, which tells the summary the stream was cut
    /// ([`SessionSummary::stream_ended`](crate::SessionSummary::stream_ended)).
    fn finish(&mut self, emit: &mut Emit<'_>) {
        if let Some(cut) = self.step.take() {
            emit(&AgentEvent::MessageFinished {
                text: cut.text.into(),
                stop: Stop::Aborted,
                error: None,
            });
        }
    }

    fn on_unknown(&mut self, ty: JsonStr<'_>, f: &mut Fields<'_>, emit: &mut Emit<'_>) {
        self.announce(f.session_id, emit);
        emit(&AgentEvent::Unknown {
            event_type: ty.decode(),
        });
    }

    fn on_event(&mut self, kind: Kind, f: &mut Fields<'_>, emit: &mut Emit<'_>) {
        self.announce(f.session_id, emit);
        let part = &f.part;
        match kind {
            Kind::StepStart => {
                let message_id = part.message_id.map(JsonStr::decode).unwrap_or_default();
                if let Some(cut) = self.step.take() {
                    // The previous step never finished: its request failed.
                    let retried = cut.message_id == message_id;
                    emit(&AgentEvent::MessageFinished {
                        text: cut.text.into(),
                        stop: Stop::Error,
                        error: None,
                    });
                    if retried {
                        emit(&AgentEvent::RetryStarted {
                            attempt: None,
                            max_attempts: None,
                            delay_ms: None,
                            error: None,
                        });
                    }
                }
                self.step = Some(Step {
                    message_id: message_id.into_owned(),
                    text: String::new(),
                });
            }
            Kind::Text => {
                let Some(text) = part.text else {
                    return;
                };
                let step = self.step.get_or_insert_with(Step::default);
                // Parts of one step join like the blocks of one message.
                let start = self.scratch.len();
                if !step.text.is_empty() {
                    self.scratch.push_str("\n");
                }
                append(text, &mut self.scratch);
                let delta = &self.scratch.as_str()[start..];
                step.text.push_str(delta);
                emit(&AgentEvent::TextDelta { text: delta.into() });
            }
            Kind::Reasoning => {
                if let Some(text) = part.text {
                    let text = text.decode_into(&mut self.scratch);
                    emit(&AgentEvent::ThinkingDelta {
                        text: text.resolve(&self.scratch).into(),
                    });
                }
            }
            Kind::ToolUse => self.on_tool(part, emit),
            Kind::StepFinish => {
                let stop = part.reason.map_or(Stop::Other, |r| stop_of(r, STOPS));
                let text = self.step.take().map(|s| s.text).unwrap_or_default();
                emit(&AgentEvent::MessageFinished {
                    text: text.into(),
                    stop,
                    error: None,
                });
                emit(&AgentEvent::TurnFinished {
                    usage: Usage::reported(part.tokens.unwrap_or_default(), part.cost, None),
                    is_error: stop.is_failure(),
                });
            }
            Kind::Error => {
                let error = f.error.take().unwrap_or_default();
                if let Some(resets_at) = limit_reset(&error, f.timestamp_ms) {
                    emit(&AgentEvent::RateLimit {
                        status: Some(REJECTED.into()),
                        resets_at: Some(resets_at),
                    });
                }
                let error = self.describe_error(error);
                let text = self.step.take().map(|s| s.text).unwrap_or_default();
                emit(&AgentEvent::MessageFinished {
                    text: text.into(),
                    stop: Stop::Error,
                    error: Some(error.resolve(&self.scratch).into()),
                });
            }
        }
    }
}

impl OpencodeParser {
    /// Announces the session the first time a line names it.
    fn announce(&mut self, session_id: Option<JsonStr<'_>>, emit: &mut Emit<'_>) {
        if !self.session_announced
            && let Some(id) = session_id
        {
            self.session_announced = true;
            emit(&AgentEvent::SessionStarted {
                session_id: Some(id.decode()),
                model: None,
                provider: None,
            });
        }
    }

    fn on_tool(&mut self, part: &Part<'_>, emit: &mut Emit<'_>) {
        let id = part.call_id.map(JsonStr::decode).unwrap_or_default();
        let name = part.tool.map(JsonStr::decode).unwrap_or_default();
        let state = &part.state;
        let done = state
            .status
            .is_some_and(|s| matches!(&*s.name(), b"completed" | b"error"));
        if self.open_tools.insert(id.to_string()) {
            emit(&AgentEvent::ToolCallStarted {
                id: id.clone(),
                name: name.clone(),
                args: state.input.map_or("{}".into(), String::from_utf8_lossy),
                parent_id: None,
            });
        }
        if !done {
            return;
        }
        self.open_tools.remove(id.as_ref());
        let is_error = state.status.is_some_and(|s| s.eq("error"))
            || state.exit.is_some_and(|code| code != 0.0);
        let output = state
            .output
            .or(state.error)
            .map_or(Span::Line(""), |o| o.decode_into(&mut self.scratch));
        emit(&AgentEvent::ToolCallFinished {
            id,
            name: Some(name),
            output: output.resolve(&self.scratch).into(),
            is_error,
        });
    }

    /// `HTTP <status>: <message>`, or whatever part of it the error has.
    fn describe_error<'a>(&mut self, error: ErrorInfo<'a>) -> Span<'a> {
        let message = error.data_message.or(error.message).or(error.name);
        let Some(status) = error.status_code else {
            return message.map_or(Span::Line("opencode reported an error"), |m| {
                m.decode_into(&mut self.scratch)
            });
        };
        let start = self.scratch.len();
        let _ = write!(self.scratch, "HTTP {status}");
        if let Some(message) = message {
            let _ = write!(self.scratch, ": {}", message.decode());
        }
        Span::Scratch(start..self.scratch.len())
    }
}

/// HTTP's Too Many Requests.
const TOO_MANY_REQUESTS: u64 = 429;

/// When a 429's limit resets, in Unix seconds: the line's time plus the provider's
/// `retry-after` (in seconds; the HTTP-date form is not read).
fn limit_reset(error: &ErrorInfo<'_>, timestamp_ms: Option<u64>) -> Option<u64> {
    if error.status_code != Some(TOO_MANY_REQUESTS) {
        return None;
    }
    let secs: u64 = error.retry_after?.decode().trim().parse().ok()?;
    // Both numbers are the agent's: a sum past u64 stays the farthest time, not a wrap.
    Some((timestamp_ms? / 1000).saturating_add(secs))
}

/// OpenCode's step finish `reason`s.
const STOPS: &[(&[u8], Stop)] = &[
    (b"stop", Stop::Completed),
    (b"tool-calls", Stop::ToolUse),
    (b"length", Stop::Length),
    (b"error", Stop::Error),
];

#[cfg(test)]
mod tests;
