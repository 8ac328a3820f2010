//! Claude Code (`claude -p --output-format stream-json --verbose`).
//!
//! Facts the parser relies on (see the real transcripts under tests/fixtures/claude):
//! - one `assistant` line per content block (thinking, text, tool_use), all sharing
//!   `message.id`; a message is complete when a line of another message, a `user` line
//!   (its tool results) or the `result` arrives;
//! - `assistant.message.usage` is a `message_start` snapshot (`output_tokens: 1`), so
//!   usage and cost come from `result` only;
//! - `type` is not always the first key (`result` in 2.1.332 starts with
//!   `duration_api_ms`);
//! - `tool_result.content` is a string or an array of text blocks; `is_error` may be
//!   absent;
//! - a failed run ends with a synthetic assistant message (`model: "<synthetic>"`,
//!   `is_api_error_message: true`) and a `result` with `is_error: true`;
//! - a background sub-agent adds a second `system/init` and a second `result` whose
//!   `total_cost_usd` repeats the cumulative cost, while its `num_turns` and `usage`
//!   count only that part; `modelUsage` is cumulative.

use std::collections::HashMap;
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
use crate::parser::read_string_field;
use crate::parser::read_strings;
use crate::parser::saturate;
use crate::parser::text_of;

/// Parses Claude Code's stream-json lines.
#[derive(Debug, Default)]
pub(crate) struct ClaudeParser {
    scratch: Scratch,
    /// The main agent's message being assembled from its per-block lines.
    pending: Option<PendingMessage>,
    /// Tool names by call id: results do not repeat them.
    tool_names: HashMap<String, String>,
}

#[derive(Debug, Default)]
struct PendingMessage {
    id: String,
    text: String,
    has_tool_use: bool,
    stop: Option<Stop>,
    error: Option<String>,
}

#[derive(Clone, Copy, Debug)]
enum Kind<'a> {
    System,
    Assistant,
    User,
    Result,
    RateLimit,
    Ignored,
    Unknown(JsonStr<'a>),
}

fn classify(ty: JsonStr<'_>) -> Kind<'_> {
    match ty.raw() {
        b"system" => Kind::System,
        b"assistant" => Kind::Assistant,
        b"user" => Kind::User,
        b"result" => Kind::Result,
        b"rate_limit_event" => Kind::RateLimit,
        // Partial-message deltas, only with --include-partial-messages: the complete
        // blocks follow as `assistant` lines anyway.
        b"stream_event" => Kind::Ignored,
        _ => Kind::Unknown(ty),
    }
}

#[derive(Debug, Default)]
struct Fields<'a> {
    subtype: Option<JsonStr<'a>>,
    message: Option<Message<'a>>,
    parent_id: Option<JsonStr<'a>>,
    session_id: Option<JsonStr<'a>>,
    model: Option<JsonStr<'a>>,
    error: Option<JsonStr<'a>>,
    error_status: Option<u64>,
    api_error: bool,
    attempt: Option<u64>,
    max_retries: Option<u64>,
    retry_delay_ms: Option<u64>,
    is_error: Option<bool>,
    num_turns: Option<u64>,
    duration_ms: Option<u64>,
    total_cost_usd: Option<f64>,
    usage: Option<Tokens>,
    model_usage: Option<(Tokens, Option<JsonStr<'a>>)>,
    result: Option<JsonStr<'a>>,
    errors: Vec<JsonStr<'a>>,
    rate_status: Option<JsonStr<'a>>,
    resets_at: Option<u64>,
    trigger: Option<JsonStr<'a>>,
}

#[derive(Debug, Default)]
struct Message<'a> {
    id: Option<JsonStr<'a>>,
    model: Option<JsonStr<'a>>,
    stop_reason: Option<JsonStr<'a>>,
    blocks: Vec<Block<'a>>,
}

#[derive(Debug)]
enum Block<'a> {
    Text(JsonStr<'a>),
    Thinking(JsonStr<'a>),
    ToolUse {
        id: Option<JsonStr<'a>>,
        name: Option<JsonStr<'a>>,
        input: Option<&'a [u8]>,
    },
    ToolResult {
        id: Option<JsonStr<'a>>,
        texts: Vec<JsonStr<'a>>,
        is_error: bool,
    },
    /// Known blocks with nothing ralph uses (redacted thinking, images, ...).
    Ignored,
    Unknown(JsonStr<'a>),
}

impl ClaudeParser {
    pub(crate) fn parse_line(&mut self, line: &[u8], emit: &mut Emit<'_>) {
        self.scratch.clear();
        let mut fields = Fields::default();
        let walked = walk(line, classify, |kind, key, c| {
            read_field(kind, key, c, &mut fields)
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

    /// End of stream: a message still being assembled is complete now.
    pub(crate) fn finish(&mut self, emit: &mut Emit<'_>) {
        self.flush(emit);
    }

    fn on_event(&mut self, kind: Kind<'_>, f: Fields<'_>, emit: &mut Emit<'_>) {
        match kind {
            Kind::System => self.on_system(f, emit),
            Kind::Assistant => self.on_assistant(f, emit),
            Kind::User => self.on_user(f, emit),
            Kind::Result => self.on_result(f, emit),
            Kind::RateLimit => emit(&AgentEvent::RateLimit {
                status: f.rate_status.map(JsonStr::decode),
                resets_at: f.resets_at,
            }),
            Kind::Ignored => {}
            Kind::Unknown(ty) => emit(&AgentEvent::Unknown {
                event_type: ty.decode(),
            }),
        }
    }

    fn on_system(&mut self, f: Fields<'_>, emit: &mut Emit<'_>) {
        let Some(subtype) = f.subtype else {
            emit(&AgentEvent::Unknown {
                event_type: "system".into(),
            });
            return;
        };
        match subtype.raw() {
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
            _ => {
                let _ = write!(self.scratch, "system/{}", subtype.decode());
                emit(&AgentEvent::Unknown {
                    event_type: self.scratch.as_str().into(),
                });
            }
        }
    }

    fn on_assistant(&mut self, f: Fields<'_>, emit: &mut Emit<'_>) {
        let Some(message) = f.message else {
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
            if self.pending.as_ref().is_none_or(|p| p.id != id) {
                self.flush(emit);
                self.pending = Some(PendingMessage {
                    id: id.into_owned(),
                    ..PendingMessage::default()
                });
            }
        }
        for block in &message.blocks {
            match block {
                Block::Text(text) => {
                    if !main {
                        continue;
                    }
                    let text = text.decode();
                    let Some(pending) = self.pending.as_mut() else {
                        continue;
                    };
                    if synthetic_error {
                        pending.error = Some(text.into_owned());
                        pending.stop = Some(Stop::Error);
                        continue;
                    }
                    let delta = if pending.text.is_empty() {
                        text
                    } else {
                        format!("\n{text}").into()
                    };
                    pending.text.push_str(&delta);
                    emit(&AgentEvent::TextDelta { text: delta });
                }
                Block::Thinking(text) => {
                    if main {
                        emit(&AgentEvent::ThinkingDelta {
                            text: text.decode(),
                        });
                    }
                }
                Block::ToolUse { id, name, input } => {
                    let id = id.map(JsonStr::decode).unwrap_or_default();
                    let name = name.map(JsonStr::decode).unwrap_or_default();
                    self.tool_names.insert(id.to_string(), name.to_string());
                    if main && let Some(pending) = self.pending.as_mut() {
                        pending.has_tool_use = true;
                    }
                    emit(&AgentEvent::ToolCallStarted {
                        id,
                        name,
                        args: input.map_or("{}".into(), String::from_utf8_lossy),
                        parent_id: parent.map(JsonStr::decode),
                    });
                }
                Block::ToolResult { .. } | Block::Ignored => {}
                Block::Unknown(ty) => {
                    let start = self.scratch.len();
                    let _ = write!(self.scratch, "assistant/{}", ty.decode());
                    emit(&AgentEvent::Unknown {
                        event_type: self.scratch.as_str()[start..].into(),
                    });
                }
            }
        }
        if main
            && let Some(pending) = self.pending.as_mut()
            && let Some(reason) = message.stop_reason
            && pending.stop.is_none()
        {
            pending.stop = Some(stop_of(reason));
        }
    }

    fn on_user(&mut self, f: Fields<'_>, emit: &mut Emit<'_>) {
        let Some(message) = f.message else {
            return;
        };
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
                let name = self.tool_names.get(id.as_ref()).map(|n| n.as_str().into());
                emit(&AgentEvent::ToolCallFinished {
                    id,
                    name,
                    output: output.resolve(&self.scratch).into(),
                    is_error: *is_error,
                });
            }
        }
    }

    fn on_result(&mut self, f: Fields<'_>, emit: &mut Emit<'_>) {
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

    fn flush(&mut self, emit: &mut Emit<'_>) {
        let Some(pending) = self.pending.take() else {
            return;
        };
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
    }
}

fn stop_of(reason: JsonStr<'_>) -> Stop {
    match reason.raw() {
        b"end_turn" | b"stop_sequence" => Stop::Completed,
        b"tool_use" => Stop::ToolUse,
        b"max_tokens" => Stop::Length,
        _ => Stop::Other,
    }
}

fn read_field<'a>(
    kind: Kind<'a>,
    key: JsonStr<'a>,
    c: &mut Cursor<'a>,
    f: &mut Fields<'a>,
) -> Result<Next, Malformed> {
    match kind {
        Kind::Assistant | Kind::User => {
            if key.eq("message") {
                f.message = Some(read_message(c)?);
                // A user line's tool output is repeated in `tool_use_result`: skip it.
                if matches!(kind, Kind::User) {
                    return Ok(Next::Done);
                }
            } else if key.eq("parent_tool_use_id") {
                f.parent_id = c.read_str()?;
            } else if key.eq("error") {
                f.error = c.read_str()?;
            } else if key.eq("is_api_error_message") {
                f.api_error = c.read_bool()?.unwrap_or(false);
            } else {
                c.skip()?;
            }
        }
        Kind::System => {
            if key.eq("subtype") {
                f.subtype = c.read_str()?;
            } else if key.eq("session_id") {
                f.session_id = c.read_str()?;
            } else if key.eq("model") {
                f.model = c.read_str()?;
            } else if key.eq("error") {
                f.error = c.read_str()?;
            } else if key.eq("error_status") {
                f.error_status = c.read_u64()?;
            } else if key.eq("attempt") {
                f.attempt = c.read_u64()?;
            } else if key.eq("max_retries") {
                f.max_retries = c.read_u64()?;
            } else if key.eq("retry_delay_ms") {
                f.retry_delay_ms = c.read_u64()?;
            } else if key.eq("compact_metadata") {
                f.trigger = read_string_field(c, "trigger")?;
            } else {
                c.skip()?;
            }
        }
        Kind::Result => {
            if key.eq("subtype") {
                f.subtype = c.read_str()?;
            } else if key.eq("is_error") {
                f.is_error = c.read_bool()?;
            } else if key.eq("num_turns") {
                f.num_turns = c.read_u64()?;
            } else if key.eq("duration_ms") {
                f.duration_ms = c.read_u64()?;
            } else if key.eq("total_cost_usd") {
                f.total_cost_usd = c.read_f64()?;
            } else if key.eq("usage") {
                f.usage = read_usage(c)?;
            } else if key.eq("modelUsage") {
                f.model_usage = read_model_usage(c)?;
            } else if key.eq("result") {
                f.result = c.read_str()?;
            } else if key.eq("errors") {
                f.errors = read_strings(c)?;
            } else {
                c.skip()?;
            }
        }
        Kind::RateLimit => {
            if key.eq("rate_limit_info") {
                read_rate_limit(c, f)?;
            } else {
                c.skip()?;
            }
        }
        Kind::Ignored | Kind::Unknown(_) => return Ok(Next::Done),
    }
    Ok(Next::More)
}

fn read_message<'a>(c: &mut Cursor<'a>) -> Result<Message<'a>, Malformed> {
    let mut message = Message::default();
    let Some(mut object) = c.enter_object()? else {
        return Ok(message);
    };
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq("id") {
            message.id = c.read_str()?;
        } else if key.eq("model") {
            message.model = c.read_str()?;
        } else if key.eq("stop_reason") {
            message.stop_reason = c.read_str()?;
        } else if key.eq("content") {
            message.blocks = read_blocks(c)?;
        } else {
            c.skip()?;
        }
    }
    Ok(message)
}

fn read_blocks<'a>(c: &mut Cursor<'a>) -> Result<Vec<Block<'a>>, Malformed> {
    let mut blocks = Vec::new();
    if c.peek() == Some(b'"') {
        // A user prompt given as a plain string.
        c.skip()?;
        return Ok(blocks);
    }
    let Some(mut array) = c.enter_array()? else {
        return Ok(blocks);
    };
    while c.next_element(&mut array)? {
        if let Some(block) = read_block(c)? {
            blocks.push(block);
        }
    }
    Ok(blocks)
}

fn read_block<'a>(c: &mut Cursor<'a>) -> Result<Option<Block<'a>>, Malformed> {
    let Some(mut object) = c.enter_object()? else {
        return Ok(None);
    };
    let mut kind = None;
    let (mut text, mut thinking, mut id, mut name, mut input) = (None, None, None, None, None);
    let (mut tool_use_id, mut texts, mut is_error) = (None, Vec::new(), false);
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq("type") {
            kind = c.read_str()?;
        } else if key.eq("text") {
            text = c.read_str()?;
        } else if key.eq("thinking") {
            thinking = c.read_str()?;
        } else if key.eq("id") {
            id = c.read_str()?;
        } else if key.eq("name") {
            name = c.read_str()?;
        } else if key.eq("input") {
            input = Some(c.read_raw()?);
        } else if key.eq("tool_use_id") {
            tool_use_id = c.read_str()?;
        } else if key.eq("content") {
            texts = read_result_content(c)?;
        } else if key.eq("is_error") {
            is_error = c.read_bool()?.unwrap_or(false);
        } else {
            c.skip()?;
        }
    }
    let Some(kind) = kind else {
        return Ok(None);
    };
    Ok(Some(match kind.raw() {
        b"text" => match text {
            Some(text) => Block::Text(text),
            None => Block::Ignored,
        },
        b"thinking" => match thinking {
            Some(thinking) => Block::Thinking(thinking),
            None => Block::Ignored,
        },
        b"tool_use" | b"server_tool_use" => Block::ToolUse { id, name, input },
        b"tool_result" => Block::ToolResult {
            id: tool_use_id,
            texts,
            is_error,
        },
        b"redacted_thinking" | b"image" | b"document" | b"web_search_tool_result" => Block::Ignored,
        _ => Block::Unknown(kind),
    }))
}

/// A tool result's `content`: a string, or an array of `{"type":"text","text":…}`.
fn read_result_content<'a>(c: &mut Cursor<'a>) -> Result<Vec<JsonStr<'a>>, Malformed> {
    if c.peek() == Some(b'"') {
        return Ok(c.read_str()?.into_iter().collect());
    }
    let mut texts = Vec::new();
    let Some(mut array) = c.enter_array()? else {
        return Ok(texts);
    };
    while c.next_element(&mut array)? {
        if let Some(Block::Text(text)) = read_block(c)? {
            texts.push(text);
        }
    }
    Ok(texts)
}

/// `{input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens}`.
fn read_usage(c: &mut Cursor<'_>) -> Result<Option<Tokens>, Malformed> {
    let Some(mut object) = c.enter_object()? else {
        return Ok(None);
    };
    let mut tokens = Tokens::default();
    while let Some(key) = c.next_key(&mut object)? {
        let slot = if key.eq("input_tokens") {
            &mut tokens.input
        } else if key.eq("output_tokens") {
            &mut tokens.output
        } else if key.eq("cache_read_input_tokens") {
            &mut tokens.cache_read
        } else if key.eq("cache_creation_input_tokens") {
            &mut tokens.cache_write
        } else {
            c.skip()?;
            continue;
        };
        *slot = c.read_u64()?.unwrap_or(0);
    }
    Ok(Some(tokens))
}

/// `modelUsage`: cumulative per-model counts. Returns their sum, and the model's name
/// when there is exactly one.
fn read_model_usage<'a>(
    c: &mut Cursor<'a>,
) -> Result<Option<(Tokens, Option<JsonStr<'a>>)>, Malformed> {
    let Some(mut object) = c.enter_object()? else {
        return Ok(None);
    };
    let mut total = Tokens::default();
    let mut models = 0usize;
    let mut only = None;
    while let Some(model) = c.next_key(&mut object)? {
        let Some(mut counts) = c.enter_object()? else {
            continue;
        };
        models += 1;
        only = Some(model);
        while let Some(key) = c.next_key(&mut counts)? {
            let slot = if key.eq("inputTokens") {
                &mut total.input
            } else if key.eq("outputTokens") {
                &mut total.output
            } else if key.eq("cacheReadInputTokens") {
                &mut total.cache_read
            } else if key.eq("cacheCreationInputTokens") {
                &mut total.cache_write
            } else {
                c.skip()?;
                continue;
            };
            *slot += c.read_u64()?.unwrap_or(0);
        }
    }
    Ok((models > 0).then_some((total, only.filter(|_| models == 1))))
}

fn read_rate_limit<'a>(c: &mut Cursor<'a>, f: &mut Fields<'a>) -> Result<(), Malformed> {
    let Some(mut object) = c.enter_object()? else {
        return Ok(());
    };
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq("status") {
            f.rate_status = c.read_str()?;
        } else if key.eq("resetsAt") {
            f.resets_at = c.read_u64()?;
        } else {
            c.skip()?;
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "claude_tests.rs"]
mod tests;
