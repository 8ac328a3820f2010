//! Reading pi's events: the kinds ralph knows and the fields it uses, read lazily
//! from the line.

use super::PiParser;

use crate::event::Tokens;
use crate::json::Cursor;
use crate::json::JsonStr;
use crate::json::Malformed;
use crate::json::Read;
use crate::json::fields;
use crate::parser::Hints;
use crate::parser::Vocabulary;
use crate::parser::event_kinds;
use crate::parser::field_of;
use crate::parser::read_text_blocks;

event_kinds! {
    pub(crate) enum Kind {
        Session = b"session",
        AgentStart = b"agent_start",
        AgentEnd = b"agent_end",
        AgentSettled = b"agent_settled",
        TurnStart = b"turn_start",
        TurnEnd = b"turn_end",
        MessageStart = b"message_start",
        MessageUpdate = b"message_update",
        MessageEnd = b"message_end",
        ToolStart = b"tool_execution_start",
        ToolUpdate = b"tool_execution_update",
        ToolEnd = b"tool_execution_end",
        RetryStart = b"auto_retry_start",
        RetryEnd = b"auto_retry_end",
        CompactionStart = b"auto_compaction_start"
            | b"compaction_start",
        CompactionEnd = b"auto_compaction_end"
            | b"compaction_end",
        /// RPC mode's answer to a command ralph wrote (`prompt`, `steer`, `abort`).
        Response = b"response",
        /// Known, carries nothing ralph uses.
        Ignored = b"queue_update"
            | b"entry_appended"
            | b"session_info_changed"
            | b"thinking_level_changed"
            | b"summarization_retry_start"
            | b"summarization_retry_end"
            | b"bash_execution_update",
    }
}

impl Vocabulary for PiParser {
    type Kind = Kind;
    type Fields<'a> = Fields<'a>;
    /// pi's types are its own; nothing else is needed to tell its lines.
    const HINTS: &'static Hints = &Hints {
        shared_types: &[],
        keys: &[],
        type_prefixes: &[],
    };
    /// Its long lines are `message_update`s, two snapshots of the message so far that
    /// are skipped whole.
    const INDEX_LONG_LINES: bool = true;

    fn read_field<'a>(&self, k: Kind, key: &[u8], c: &mut Cursor<'a>, f: &mut Fields<'a>) -> Read {
        match (k, key) {
            (Kind::MessageUpdate, b"assistantMessageEvent") => f.update = Some(read_update(c)?),
            (Kind::MessageEnd, b"message") => f.message = Some(read_message(c)?),
            // A turn's usage is counted once: its message is then not needed.
            (Kind::TurnEnd, b"message") if !self.turn_usage_seen => {
                f.message = Some(read_message(c)?)
            }
            (Kind::Session, b"id") => f.id = c.read_str()?,
            (Kind::Response, _) => match key {
                b"command" => f.command = c.read_str()?,
                b"success" => f.success = c.read_bool()?,
                b"error" => f.error_message = c.read_str()?,
                _ => c.skip()?,
            },
            (Kind::ToolStart | Kind::ToolEnd, _) => match key {
                b"toolCallId" => f.tool_call_id = c.read_str()?,
                b"toolName" => f.tool_name = c.read_str()?,
                b"args" => f.args = Some(c.read_raw()?),
                b"parentToolCallId" => f.parent_id = c.read_str()?,
                b"isError" => f.is_error = c.read_bool()?,
                b"result" => {
                    f.result_texts = field_of(c, b"content", |c| read_text_blocks(c).map(Some))?
                        .unwrap_or_default();
                }
                _ => c.skip()?,
            },
            (
                Kind::AgentEnd
                | Kind::RetryStart
                | Kind::RetryEnd
                | Kind::CompactionStart
                | Kind::CompactionEnd,
                _,
            ) => match key {
                b"willRetry" => f.will_retry = c.read_bool()?,
                b"attempt" => f.attempt = c.read_u64()?,
                b"maxAttempts" => f.max_attempts = c.read_u64()?,
                b"delayMs" => f.delay_ms = c.read_u64()?,
                b"errorMessage" => f.error_message = c.read_str()?,
                b"success" => f.success = c.read_bool()?,
                b"finalError" => f.final_error = c.read_str()?,
                b"reason" => f.reason = c.read_str()?,
                _ => c.skip()?,
            },
            _ => c.skip()?,
        }
        Ok(())
    }
}

/// The top-level fields of one pi event that ralph reads.
#[derive(Debug, Default)]
pub(crate) struct Fields<'a> {
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
    /// The command a `response` answers.
    pub(super) command: Option<JsonStr<'a>>,
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

/// Reads `assistantMessageEvent`'s `type` and `delta` (its snapshot is skipped).
fn read_update<'a>(c: &mut Cursor<'a>) -> Result<Update<'a>, Malformed> {
    let mut update = Update::default();
    fields!(c, {
        b"type" => update.kind = c.read_str()?,
        b"delta" => update.delta = c.read_str()?,
    })?;
    Ok(update)
}

fn read_message<'a>(c: &mut Cursor<'a>) -> Result<Message<'a>, Malformed> {
    let mut m = Message::default();
    fields!(c, {
        b"role" => m.role = c.read_str()?,
        b"content" => m.texts = read_text_blocks(c)?,
        b"stopReason" => m.stop_reason = c.read_str()?,
        b"errorMessage" => m.error_message = c.read_str()?,
        b"usage" => m.usage = read_usage(c)?,
        b"model" => m.model = c.read_str()?,
        b"provider" => m.provider = c.read_str()?,
    })?;
    Ok(m)
}

/// `{input, output, cacheRead, cacheWrite, totalTokens, cost: {…, total}}`.
fn read_usage(c: &mut Cursor<'_>) -> Result<Option<(Tokens, Option<f64>)>, Malformed> {
    let mut tokens = Tokens::default();
    let mut cost = None;
    let object = fields!(c, {
        b"input" => tokens.input = c.read_u64()?.unwrap_or(0),
        b"output" => tokens.output = c.read_u64()?.unwrap_or(0),
        b"cacheRead" => tokens.cache_read = c.read_u64()?.unwrap_or(0),
        b"cacheWrite" => tokens.cache_write = c.read_u64()?.unwrap_or(0),
        b"cost" => cost = field_of(c, b"total", Cursor::read_f64)?,
    })?;
    Ok(object.then_some((tokens, cost)))
}
