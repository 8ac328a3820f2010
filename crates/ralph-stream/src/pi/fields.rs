//! Reading pi's events: the kinds ralph knows and the fields it uses, read lazily
//! from the line.

use crate::event::Tokens;
use crate::json::Cursor;
use crate::json::JsonStr;
use crate::json::Malformed;
use crate::json::Next;
use crate::parser::read_text_blocks;

#[derive(Clone, Copy, Debug)]
pub(super) enum Kind<'a> {
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

pub(super) fn classify(ty: JsonStr<'_>) -> Kind<'_> {
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
pub(super) struct Fields<'a> {
    pub(super) id: Option<JsonStr<'a>>,
    pub(super) message: Option<Message<'a>>,
    pub(super) update: Option<Update<'a>>,
    pub(super) tool_call_id: Option<JsonStr<'a>>,
    pub(super) tool_name: Option<JsonStr<'a>>,
    pub(super) args: Option<&'a [u8]>,
    pub(super) parent_id: Option<JsonStr<'a>>,
    pub(super) result_texts: Vec<JsonStr<'a>>,
    pub(super) is_error: Option<bool>,
    pub(super) attempt: Option<u64>,
    pub(super) max_attempts: Option<u64>,
    pub(super) delay_ms: Option<u64>,
    pub(super) error_message: Option<JsonStr<'a>>,
    pub(super) success: Option<bool>,
    pub(super) final_error: Option<JsonStr<'a>>,
    pub(super) will_retry: Option<bool>,
    pub(super) reason: Option<JsonStr<'a>>,
}

/// The head of `assistantMessageEvent`.
#[derive(Debug, Default)]
pub(super) struct Update<'a> {
    pub(super) kind: Option<JsonStr<'a>>,
    pub(super) delta: Option<JsonStr<'a>>,
}

/// An assistant (or other) message.
#[derive(Debug, Default)]
pub(super) struct Message<'a> {
    pub(super) role: Option<JsonStr<'a>>,
    pub(super) texts: Vec<JsonStr<'a>>,
    pub(super) stop_reason: Option<JsonStr<'a>>,
    pub(super) error_message: Option<JsonStr<'a>>,
    pub(super) usage: Option<(Tokens, Option<f64>)>,
    pub(super) model: Option<JsonStr<'a>>,
    pub(super) provider: Option<JsonStr<'a>>,
}

pub(super) fn read_field<'a>(
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
