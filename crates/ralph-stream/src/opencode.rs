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
//!   `statusCode`) and exit code 1;
//! - there is no final summary event: a successful run just ends. OpenCode therefore has
//!   no terminal event, and a run's success is judged from its last step's stop reason.

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::event::AgentEvent;
use crate::event::Stop;
use crate::event::Tokens;
use crate::event::Usage;
use crate::json::Cursor;
use crate::json::JsonStr;
use crate::json::Malformed;
use crate::json::Next;
use crate::json::Scratch;
use crate::json::Span;
use crate::parser::Emit;
use crate::parser::append;
use crate::parser::read_event;

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

#[derive(Clone, Copy, Debug)]
enum Kind<'a> {
    StepStart,
    StepFinish,
    Text,
    Reasoning,
    ToolUse,
    Error,
    Unknown(JsonStr<'a>),
}

fn classify(ty: JsonStr<'_>) -> Kind<'_> {
    match ty.raw() {
        b"step_start" => Kind::StepStart,
        b"step_finish" => Kind::StepFinish,
        b"text" => Kind::Text,
        b"reasoning" => Kind::Reasoning,
        b"tool_use" => Kind::ToolUse,
        b"error" => Kind::Error,
        _ => Kind::Unknown(ty),
    }
}

#[derive(Debug, Default)]
struct Fields<'a> {
    session_id: Option<JsonStr<'a>>,
    part: Part<'a>,
    error: Option<ErrorInfo<'a>>,
}

/// The `part` of a line: the union of the fields ralph reads from every part type.
#[derive(Debug, Default)]
struct Part<'a> {
    message_id: Option<JsonStr<'a>>,
    text: Option<JsonStr<'a>>,
    tool: Option<JsonStr<'a>>,
    call_id: Option<JsonStr<'a>>,
    state: State<'a>,
    reason: Option<JsonStr<'a>>,
    tokens: Option<Tokens>,
    cost: Option<f64>,
}

/// A tool part's `state`.
#[derive(Debug, Default)]
struct State<'a> {
    status: Option<JsonStr<'a>>,
    input: Option<&'a [u8]>,
    output: Option<JsonStr<'a>>,
    error: Option<JsonStr<'a>>,
    exit: Option<f64>,
}

/// `error: {name, data: {message, statusCode}}`.
#[derive(Debug, Default)]
struct ErrorInfo<'a> {
    name: Option<JsonStr<'a>>,
    message: Option<JsonStr<'a>>,
    status_code: Option<u64>,
}

impl OpencodeParser {
    pub(crate) fn parse_line(&mut self, line: &[u8], emit: &mut Emit<'_>) {
        self.scratch.clear();
        if let Some((kind, fields)) = read_event(line, emit, classify, read_field) {
            self.on_event(kind, fields, emit);
        }
    }

    fn on_event(&mut self, kind: Kind<'_>, f: Fields<'_>, emit: &mut Emit<'_>) {
        if !self.session_announced
            && let Some(id) = f.session_id
        {
            self.session_announced = true;
            emit(&AgentEvent::SessionStarted {
                session_id: Some(id.decode()),
                model: None,
                provider: None,
            });
        }
        let part = f.part;
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
            Kind::ToolUse => self.on_tool(&part, emit),
            Kind::StepFinish => {
                let stop = part.reason.map_or(Stop::Other, stop_of);
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
                let error = self.describe_error(f.error.unwrap_or_default());
                let text = self.step.take().map(|s| s.text).unwrap_or_default();
                emit(&AgentEvent::MessageFinished {
                    text: text.into(),
                    stop: Stop::Error,
                    error: Some(error.resolve(&self.scratch).into()),
                });
            }
            Kind::Unknown(ty) => emit(&AgentEvent::Unknown {
                event_type: ty.decode(),
            }),
        }
    }

    fn on_tool(&mut self, part: &Part<'_>, emit: &mut Emit<'_>) {
        let id = part.call_id.map(JsonStr::decode).unwrap_or_default();
        let name = part.tool.map(JsonStr::decode).unwrap_or_default();
        let state = &part.state;
        let done = state
            .status
            .is_some_and(|s| matches!(s.raw(), b"completed" | b"error"));
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
        let message = error.message.or(error.name);
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

fn stop_of(reason: JsonStr<'_>) -> Stop {
    match reason.raw() {
        b"stop" => Stop::Completed,
        b"tool-calls" => Stop::ToolUse,
        b"length" => Stop::Length,
        b"error" => Stop::Error,
        _ => Stop::Other,
    }
}

fn read_field<'a>(
    kind: Kind<'a>,
    key: JsonStr<'a>,
    c: &mut Cursor<'a>,
    f: &mut Fields<'a>,
) -> Result<Next, Malformed> {
    if key.eq("sessionID") {
        f.session_id = c.read_str()?;
        return Ok(Next::More);
    }
    match kind {
        Kind::StepStart | Kind::StepFinish | Kind::Text | Kind::Reasoning | Kind::ToolUse => {
            if key.eq("part") {
                f.part = read_part(c)?;
                return Ok(Next::More);
            }
        }
        Kind::Error => {
            if key.eq("error") {
                f.error = Some(read_error(c)?);
                return Ok(Next::More);
            }
        }
        Kind::Unknown(_) => {}
    }
    c.skip()?;
    Ok(Next::More)
}

fn read_part<'a>(c: &mut Cursor<'a>) -> Result<Part<'a>, Malformed> {
    let mut part = Part::default();
    let Some(mut object) = c.enter_object()? else {
        return Ok(part);
    };
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq("messageID") {
            part.message_id = c.read_str()?;
        } else if key.eq("text") {
            part.text = c.read_str()?;
        } else if key.eq("tool") {
            part.tool = c.read_str()?;
        } else if key.eq("callID") {
            part.call_id = c.read_str()?;
        } else if key.eq("state") {
            part.state = read_state(c)?;
        } else if key.eq("reason") {
            part.reason = c.read_str()?;
        } else if key.eq("tokens") {
            part.tokens = read_tokens(c)?;
        } else if key.eq("cost") {
            part.cost = c.read_f64()?;
        } else {
            c.skip()?;
        }
    }
    Ok(part)
}

fn read_state<'a>(c: &mut Cursor<'a>) -> Result<State<'a>, Malformed> {
    let mut state = State::default();
    let Some(mut object) = c.enter_object()? else {
        return Ok(state);
    };
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq("status") {
            state.status = c.read_str()?;
        } else if key.eq("input") {
            state.input = Some(c.read_raw()?);
        } else if key.eq("output") {
            state.output = c.read_str()?;
        } else if key.eq("error") {
            state.error = c.read_str()?;
        } else if key.eq("metadata") {
            state.exit = read_exit(c)?;
        } else {
            c.skip()?;
        }
    }
    Ok(state)
}

/// `metadata.exit`: the shell's exit code (the metadata also repeats the output).
fn read_exit(c: &mut Cursor<'_>) -> Result<Option<f64>, Malformed> {
    let Some(mut object) = c.enter_object()? else {
        return Ok(None);
    };
    let mut exit = None;
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq("exit") {
            exit = c.read_f64()?;
        } else {
            c.skip()?;
        }
    }
    Ok(exit)
}

/// `{total, input, output, reasoning, cache: {read, write}}`.
fn read_tokens(c: &mut Cursor<'_>) -> Result<Option<Tokens>, Malformed> {
    let Some(mut object) = c.enter_object()? else {
        return Ok(None);
    };
    let mut tokens = Tokens::default();
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq("input") {
            tokens.input = c.read_u64()?.unwrap_or(0);
        } else if key.eq("output") {
            tokens.output = c.read_u64()?.unwrap_or(0);
        } else if key.eq("cache") {
            let Some(mut cache) = c.enter_object()? else {
                continue;
            };
            while let Some(key) = c.next_key(&mut cache)? {
                if key.eq("read") {
                    tokens.cache_read = c.read_u64()?.unwrap_or(0);
                } else if key.eq("write") {
                    tokens.cache_write = c.read_u64()?.unwrap_or(0);
                } else {
                    c.skip()?;
                }
            }
        } else {
            c.skip()?;
        }
    }
    Ok(Some(tokens))
}

fn read_error<'a>(c: &mut Cursor<'a>) -> Result<ErrorInfo<'a>, Malformed> {
    let mut error = ErrorInfo::default();
    if c.peek() == Some(b'"') {
        error.message = c.read_str()?;
        return Ok(error);
    }
    let Some(mut object) = c.enter_object()? else {
        return Ok(error);
    };
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq("name") {
            error.name = c.read_str()?;
        } else if key.eq("message") {
            error.message = c.read_str()?;
        } else if key.eq("data") {
            let Some(mut data) = c.enter_object()? else {
                continue;
            };
            while let Some(key) = c.next_key(&mut data)? {
                if key.eq("message") {
                    error.message = c.read_str()?;
                } else if key.eq("statusCode") {
                    error.status_code = c.read_u64()?;
                } else {
                    c.skip()?;
                }
            }
        } else {
            c.skip()?;
        }
    }
    Ok(error)
}

#[cfg(test)]
#[path = "opencode_tests.rs"]
mod tests;
