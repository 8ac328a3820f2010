//! pi (`pi -p --mode json`): JSON lines in both shapes pi has shipped.
//!
//! Up to the 0.8x releases every `message_update` repeats the whole message so far twice
//! (`assistantMessageEvent.partial` and `message`), so lines grow with the answer and the
//! stream grows quadratically. The parser reads the event type and the small
//! `assistantMessageEvent` head (`type`, `delta`) and stops: the snapshots are never
//! scanned, let alone built. Later releases send the delta-only shape (no snapshots,
//! plus `agent_settled`, `compaction_*`, `queue_update`, `parentToolCallId`); the same
//! code reads both because it never depends on a field being absent.
//!
//! Facts the parser relies on (see the real captures under tests/fixtures/pi):
//! - errors arrive as an assistant `message_end`/`turn_end` with `stopReason` "error" or
//!   "aborted" and an `errorMessage`, never as a `message_update` error, and pi exits 0;
//! - every retry attempt has its own `agent_start … agent_end`, and a run whose last
//!   attempt failed ends with `auto_retry_end {success: false}`;
//! - failed attempts stream text too, so text is only final once its message ended well;
//! - the same usage appears in `message_end`, `turn_end` and `agent_end`: it is counted
//!   once, from the assistant `message_end` (or `turn_end` if that was missing).

use std::fmt::Write as _;

use crate::event::AgentEvent;
use crate::event::Phase;
use crate::event::Stop;
use crate::event::Tokens;
use crate::event::Usage;
use crate::json::Cursor;
use crate::json::JsonStr;
use crate::json::Malformed;
use crate::json::Next;
use crate::json::Scratch;
use crate::json::Walked;
use crate::json::walk;
use crate::parser::Emit;
use crate::parser::saturate;
use crate::parser::text_of;

/// Parses pi's JSON lines; keeps the little state that spans lines.
#[derive(Debug, Default)]
pub(crate) struct PiParser {
    scratch: Scratch,
    /// How the last assistant message ended.
    last_stop: Option<Stop>,
    /// The last error message seen, for the run's final verdict.
    last_error: Option<String>,
    /// Whether the current turn's usage was already counted (from `message_end`).
    turn_usage_seen: bool,
    /// Whether `RunFinished` was emitted since the last `agent_start`.
    run_finished: bool,
}

#[derive(Clone, Copy, Debug)]
enum Kind<'a> {
    Session,
    AgentStart,
    AgentEnd,
    AgentSettled,
    TurnStart,
    TurnEnd,
    MessageStart,
    MessageUpdate,
    MessageEnd,
    ToolStart,
    ToolUpdate,
    ToolEnd,
    RetryStart,
    RetryEnd,
    CompactionStart,
    CompactionEnd,
    /// Known, carries nothing ralph uses.
    Ignored,
    Unknown(JsonStr<'a>),
}

fn classify(ty: JsonStr<'_>) -> Kind<'_> {
    match ty.raw() {
        b"session" => Kind::Session,
        b"agent_start" => Kind::AgentStart,
        b"agent_end" => Kind::AgentEnd,
        b"agent_settled" => Kind::AgentSettled,
        b"turn_start" => Kind::TurnStart,
        b"turn_end" => Kind::TurnEnd,
        b"message_start" => Kind::MessageStart,
        b"message_update" => Kind::MessageUpdate,
        b"message_end" => Kind::MessageEnd,
        b"tool_execution_start" => Kind::ToolStart,
        b"tool_execution_update" => Kind::ToolUpdate,
        b"tool_execution_end" => Kind::ToolEnd,
        b"auto_retry_start" => Kind::RetryStart,
        b"auto_retry_end" => Kind::RetryEnd,
        b"auto_compaction_start" | b"compaction_start" => Kind::CompactionStart,
        b"auto_compaction_end" | b"compaction_end" => Kind::CompactionEnd,
        b"queue_update"
        | b"entry_appended"
        | b"session_info_changed"
        | b"thinking_level_changed"
        | b"summarization_retry_start"
        | b"summarization_retry_end"
        | b"bash_execution_update" => Kind::Ignored,
        _ => Kind::Unknown(ty),
    }
}

/// The top-level fields of one pi event that ralph reads.
#[derive(Debug, Default)]
struct Fields<'a> {
    id: Option<JsonStr<'a>>,
    message: Option<Message<'a>>,
    update: Option<Update<'a>>,
    tool_call_id: Option<JsonStr<'a>>,
    tool_name: Option<JsonStr<'a>>,
    args: Option<&'a [u8]>,
    parent_id: Option<JsonStr<'a>>,
    result_texts: Vec<JsonStr<'a>>,
    is_error: Option<bool>,
    attempt: Option<u64>,
    max_attempts: Option<u64>,
    delay_ms: Option<u64>,
    error_message: Option<JsonStr<'a>>,
    success: Option<bool>,
    final_error: Option<JsonStr<'a>>,
    will_retry: Option<bool>,
    reason: Option<JsonStr<'a>>,
}

/// The head of `assistantMessageEvent`.
#[derive(Debug, Default)]
struct Update<'a> {
    kind: Option<JsonStr<'a>>,
    delta: Option<JsonStr<'a>>,
}

/// An assistant (or other) message.
#[derive(Debug, Default)]
struct Message<'a> {
    role: Option<JsonStr<'a>>,
    texts: Vec<JsonStr<'a>>,
    stop_reason: Option<JsonStr<'a>>,
    error_message: Option<JsonStr<'a>>,
    usage: Option<(Tokens, Option<f64>)>,
    model: Option<JsonStr<'a>>,
    provider: Option<JsonStr<'a>>,
}

impl PiParser {
    pub(crate) fn parse_line(&mut self, line: &[u8], emit: &mut Emit<'_>) {
        self.scratch.clear();
        let mut fields = Fields::default();
        let turn_usage_seen = self.turn_usage_seen;
        let walked = walk(line, classify, |kind, key, c| {
            read_field(kind, key, c, &mut fields, turn_usage_seen)
        });
        match walked {
            Walked::Typed(kind) => self.on_event(kind, fields, emit),
            Walked::NotJson | Walked::Broken(_) => emit(&AgentEvent::NonJson {
                line: String::from_utf8_lossy(line),
            }),
            Walked::Untyped => emit(&AgentEvent::Unknown {
                event_type: "".into(),
            }),
        }
    }

    fn on_event(&mut self, kind: Kind<'_>, f: Fields<'_>, emit: &mut Emit<'_>) {
        match kind {
            Kind::Session => emit(&AgentEvent::SessionStarted {
                session_id: f.id.map(JsonStr::decode),
                model: None,
                provider: None,
            }),
            Kind::AgentStart => self.run_finished = false,
            Kind::TurnStart => self.turn_usage_seen = false,
            Kind::MessageUpdate => self.on_update(f.update.unwrap_or_default(), emit),
            Kind::MessageEnd => {
                if let Some(message) = f.message {
                    self.on_message_end(message, emit);
                }
            }
            Kind::TurnEnd => {
                // Only when the turn's message_end was missing: the usage is the same.
                if let Some(message) = f.message
                    && !self.turn_usage_seen
                {
                    self.on_message_end(message, emit);
                }
            }
            Kind::ToolStart => {
                let args = f.args.map_or("{}".into(), String::from_utf8_lossy);
                emit(&AgentEvent::ToolCallStarted {
                    id: f.tool_call_id.map(JsonStr::decode).unwrap_or_default(),
                    name: f.tool_name.map(JsonStr::decode).unwrap_or_default(),
                    args,
                    parent_id: f.parent_id.map(JsonStr::decode),
                });
            }
            Kind::ToolEnd => {
                let output = text_of(&f.result_texts, "\n", &mut self.scratch);
                emit(&AgentEvent::ToolCallFinished {
                    id: f.tool_call_id.map(JsonStr::decode).unwrap_or_default(),
                    name: f.tool_name.map(JsonStr::decode),
                    output: output.resolve(&self.scratch).into(),
                    is_error: f.is_error.unwrap_or(false),
                });
            }
            Kind::AgentEnd => {
                let failed = self.last_stop.is_some_and(Stop::is_failure);
                // Old pi says nothing about retries here; after a failed message a retry
                // may follow, so only `auto_retry_end` or `agent_settled` can end it.
                let finished = match f.will_retry {
                    Some(will_retry) => !will_retry,
                    None => !failed,
                };
                if finished {
                    self.finish_run(failed, emit);
                }
            }
            Kind::AgentSettled => {
                if !self.run_finished {
                    let failed = self.last_stop.is_some_and(Stop::is_failure);
                    self.finish_run(failed, emit);
                }
            }
            Kind::RetryStart => emit(&AgentEvent::RetryStarted {
                attempt: f.attempt.map(saturate),
                max_attempts: f.max_attempts.map(saturate),
                delay_ms: f.delay_ms,
                error: f.error_message.map(JsonStr::decode),
            }),
            Kind::RetryEnd => {
                let success = f.success.unwrap_or(false);
                let error = f.final_error.map(JsonStr::decode);
                emit(&AgentEvent::RetryFinished {
                    success,
                    attempt: f.attempt.map(saturate),
                    error: error.clone(),
                });
                if !success {
                    if let Some(error) = error {
                        self.last_error = Some(error.into_owned());
                    }
                    self.finish_run(true, emit);
                }
            }
            Kind::CompactionStart => emit(&AgentEvent::Compaction {
                phase: Phase::Started,
                reason: f.reason.map(JsonStr::decode),
                error: None,
            }),
            Kind::CompactionEnd => emit(&AgentEvent::Compaction {
                phase: Phase::Finished,
                reason: f.reason.map(JsonStr::decode),
                error: f.error_message.map(JsonStr::decode),
            }),
            Kind::MessageStart | Kind::ToolUpdate | Kind::Ignored => {}
            Kind::Unknown(ty) => emit(&AgentEvent::Unknown {
                event_type: ty.decode(),
            }),
        }
    }

    fn on_update(&mut self, update: Update<'_>, emit: &mut Emit<'_>) {
        let Some(kind) = update.kind else {
            emit(&AgentEvent::Unknown {
                event_type: "message_update".into(),
            });
            return;
        };
        match kind.raw() {
            b"text_delta" => {
                if let Some(delta) = update.delta {
                    emit(&AgentEvent::TextDelta {
                        text: delta.decode(),
                    });
                }
            }
            b"thinking_delta" => {
                if let Some(delta) = update.delta {
                    emit(&AgentEvent::ThinkingDelta {
                        text: delta.decode(),
                    });
                }
            }
            b"text_start" | b"text_end" | b"thinking_start" | b"thinking_end"
            | b"toolcall_start" | b"toolcall_delta" | b"toolcall_end" | b"start" | b"done"
            | b"error" => {}
            _ => {
                let _ = write!(self.scratch, "message_update/{}", kind.decode());
                emit(&AgentEvent::Unknown {
                    event_type: self.scratch.as_str().into(),
                });
            }
        }
    }

    fn on_message_end(&mut self, message: Message<'_>, emit: &mut Emit<'_>) {
        if !message.role.is_some_and(|r| r.eq("assistant")) {
            return;
        }
        let stop = message.stop_reason.map_or(Stop::Other, stop_of);
        let text = text_of(&message.texts, "\n", &mut self.scratch);
        let error = message
            .error_message
            .map(|e| e.decode_into(&mut self.scratch))
            .filter(|_| stop.is_failure());
        self.turn_usage_seen = true;
        self.last_stop = Some(stop);
        if let Some(error) = &error {
            self.last_error = Some(error.resolve(&self.scratch).to_owned());
        }
        emit(&AgentEvent::MessageFinished {
            text: text.resolve(&self.scratch).into(),
            stop,
            error: error.as_ref().map(|e| e.resolve(&self.scratch).into()),
        });
        let (tokens, cost) = message.usage.unwrap_or_default();
        emit(&AgentEvent::TurnFinished {
            usage: Usage::reported(tokens, cost, message.model.map(JsonStr::decode)),
            is_error: stop.is_failure(),
        });
        // The provider is only known here; it is not worth its own event.
        let _ = message.provider;
    }

    fn finish_run(&mut self, is_error: bool, emit: &mut Emit<'_>) {
        self.run_finished = true;
        emit(&AgentEvent::RunFinished {
            is_error,
            error: if is_error {
                self.last_error.as_deref().map(Into::into)
            } else {
                None
            },
            turns: None,
            duration_ms: None,
            totals: None,
        });
    }
}

fn stop_of(reason: JsonStr<'_>) -> Stop {
    match reason.raw() {
        b"stop" => Stop::Completed,
        b"toolUse" => Stop::ToolUse,
        b"length" => Stop::Length,
        b"error" => Stop::Error,
        b"aborted" => Stop::Aborted,
        _ => Stop::Other,
    }
}

fn read_field<'a>(
    kind: Kind<'a>,
    key: JsonStr<'a>,
    c: &mut Cursor<'a>,
    f: &mut Fields<'a>,
    turn_usage_seen: bool,
) -> Result<Next, Malformed> {
    match kind {
        Kind::MessageUpdate => {
            if key.eq("assistantMessageEvent") {
                f.update = Some(read_update(c)?);
                // The snapshots that follow are never needed.
                return Ok(Next::Done);
            }
        }
        Kind::MessageEnd => {
            if key.eq("message") {
                f.message = Some(read_message(c)?);
                return Ok(Next::Done);
            }
        }
        Kind::TurnEnd => {
            if turn_usage_seen {
                return Ok(Next::Done);
            }
            if key.eq("message") {
                f.message = Some(read_message(c)?);
                return Ok(Next::Done);
            }
        }
        Kind::Session => {
            if key.eq("id") {
                f.id = c.read_str()?;
                return Ok(Next::More);
            }
        }
        Kind::ToolStart | Kind::ToolEnd => {
            if key.eq("toolCallId") {
                f.tool_call_id = c.read_str()?;
            } else if key.eq("toolName") {
                f.tool_name = c.read_str()?;
            } else if key.eq("args") {
                f.args = Some(c.read_raw()?);
            } else if key.eq("parentToolCallId") {
                f.parent_id = c.read_str()?;
            } else if key.eq("isError") {
                f.is_error = c.read_bool()?;
            } else if key.eq("result") {
                f.result_texts = read_tool_result(c)?;
            } else {
                c.skip()?;
            }
            return Ok(Next::More);
        }
        Kind::AgentEnd
        | Kind::RetryStart
        | Kind::RetryEnd
        | Kind::CompactionStart
        | Kind::CompactionEnd => {
            if key.eq("willRetry") {
                f.will_retry = c.read_bool()?;
            } else if key.eq("attempt") {
                f.attempt = c.read_u64()?;
            } else if key.eq("maxAttempts") {
                f.max_attempts = c.read_u64()?;
            } else if key.eq("delayMs") {
                f.delay_ms = c.read_u64()?;
            } else if key.eq("errorMessage") {
                f.error_message = c.read_str()?;
            } else if key.eq("success") {
                f.success = c.read_bool()?;
            } else if key.eq("finalError") {
                f.final_error = c.read_str()?;
            } else if key.eq("reason") {
                f.reason = c.read_str()?;
            } else {
                c.skip()?;
            }
            return Ok(Next::More);
        }
        Kind::AgentStart
        | Kind::AgentSettled
        | Kind::TurnStart
        | Kind::MessageStart
        | Kind::ToolUpdate
        | Kind::Ignored
        | Kind::Unknown(_) => return Ok(Next::Done),
    }
    c.skip()?;
    Ok(Next::More)
}

/// Reads `assistantMessageEvent` up to its `type` and `delta`, and stops there.
fn read_update<'a>(c: &mut Cursor<'a>) -> Result<Update<'a>, Malformed> {
    let mut update = Update::default();
    let Some(mut object) = c.enter_object()? else {
        return Ok(update);
    };
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq("type") {
            update.kind = c.read_str()?;
        } else if key.eq("delta") {
            update.delta = c.read_str()?;
        } else {
            c.skip()?;
        }
        if let Some(kind) = update.kind
            && (update.delta.is_some() || !matches!(kind.raw(), b"text_delta" | b"thinking_delta"))
        {
            break;
        }
    }
    Ok(update)
}

fn read_message<'a>(c: &mut Cursor<'a>) -> Result<Message<'a>, Malformed> {
    let mut message = Message::default();
    let Some(mut object) = c.enter_object()? else {
        return Ok(message);
    };
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq("role") {
            message.role = c.read_str()?;
        } else if key.eq("content") {
            message.texts = read_text_blocks(c)?;
        } else if key.eq("stopReason") {
            message.stop_reason = c.read_str()?;
        } else if key.eq("errorMessage") {
            message.error_message = c.read_str()?;
        } else if key.eq("usage") {
            message.usage = read_usage(c)?;
        } else if key.eq("model") {
            message.model = c.read_str()?;
        } else if key.eq("provider") {
            message.provider = c.read_str()?;
        } else {
            c.skip()?;
        }
    }
    Ok(message)
}

/// The text of a `content` value: a plain string, or the `text` of every
/// `{"type":"text"}` block of an array.
fn read_text_blocks<'a>(c: &mut Cursor<'a>) -> Result<Vec<JsonStr<'a>>, Malformed> {
    if c.peek() == Some(b'"') {
        return Ok(c.read_str()?.into_iter().collect());
    }
    let mut texts = Vec::new();
    let Some(mut array) = c.enter_array()? else {
        return Ok(texts);
    };
    while c.next_element(&mut array)? {
        let Some(mut block) = c.enter_object()? else {
            continue;
        };
        let (mut kind, mut text) = (None, None);
        while let Some(key) = c.next_key(&mut block)? {
            if key.eq("type") {
                kind = c.read_str()?;
            } else if key.eq("text") {
                text = c.read_str()?;
            } else {
                c.skip()?;
            }
        }
        if let (Some(kind), Some(text)) = (kind, text)
            && kind.eq("text")
        {
            texts.push(text);
        }
    }
    Ok(texts)
}

fn read_tool_result<'a>(c: &mut Cursor<'a>) -> Result<Vec<JsonStr<'a>>, Malformed> {
    let mut texts = Vec::new();
    let Some(mut object) = c.enter_object()? else {
        return Ok(texts);
    };
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq("content") {
            texts = read_text_blocks(c)?;
        } else {
            c.skip()?;
        }
    }
    Ok(texts)
}

/// `{input, output, cacheRead, cacheWrite, totalTokens, cost: {…, total}}`.
fn read_usage(c: &mut Cursor<'_>) -> Result<Option<(Tokens, Option<f64>)>, Malformed> {
    let Some(mut object) = c.enter_object()? else {
        return Ok(None);
    };
    let mut tokens = Tokens::default();
    let mut cost = None;
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq("input") {
            tokens.input = c.read_u64()?.unwrap_or(0);
        } else if key.eq("output") {
            tokens.output = c.read_u64()?.unwrap_or(0);
        } else if key.eq("cacheRead") {
            tokens.cache_read = c.read_u64()?.unwrap_or(0);
        } else if key.eq("cacheWrite") {
            tokens.cache_write = c.read_u64()?.unwrap_or(0);
        } else if key.eq("cost") {
            cost = read_cost_total(c)?;
        } else {
            c.skip()?;
        }
    }
    Ok(Some((tokens, cost)))
}

fn read_cost_total(c: &mut Cursor<'_>) -> Result<Option<f64>, Malformed> {
    let Some(mut object) = c.enter_object()? else {
        return Ok(None);
    };
    let mut total = None;
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq("total") {
            total = c.read_f64()?;
        } else {
            c.skip()?;
        }
    }
    Ok(total)
}

#[cfg(test)]
#[path = "pi_tests.rs"]
mod tests;
