//! Reading Claude's events: the kinds ralph knows and the fields it uses, read lazily
//! from the line.

use super::ClaudeParser;

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
use crate::parser::read_strings;
use crate::parser::read_text_blocks;

event_kinds! {
    pub(crate) enum Kind {
        System = b"system",
        Assistant = b"assistant",
        User = b"user",
        Result = b"result",
        RateLimit = b"rate_limit_event",
        /// The model's stream as it arrives (`--include-partial-messages`): the deltas of
        /// its text and thinking, before each block's `assistant` line.
        StreamEvent = b"stream_event",
        /// With `--input-format stream-json`, the answer to ralph's interrupt request (the
        /// turn's end follows as a `result`).
        Ignored = b"control_response",
    }
}

#[derive(Debug, Default)]
pub(crate) struct Fields<'a> {
    pub(super) subtype: Option<JsonStr<'a>>,
    pub(super) message: Option<Message<'a>>,
    pub(super) parent_id: Option<JsonStr<'a>>,
    pub(super) session_id: Option<JsonStr<'a>>,
    pub(super) model: Option<JsonStr<'a>>,
    pub(super) error: Option<JsonStr<'a>>,
    pub(super) error_status: Option<u64>,
    pub(super) api_error: bool,
    /// The HTTP status of the failed request, on the synthetic error message and the
    /// failed `result` (`api_error_status`): its text may not name it.
    pub(super) api_error_status: Option<u64>,
    /// A user message of ralph's, shown back as Claude Code takes it into the
    /// conversation (`--replay-user-messages`).
    pub(super) is_replay: bool,
    pub(super) attempt: Option<u64>,
    pub(super) max_retries: Option<u64>,
    pub(super) retry_delay_ms: Option<u64>,
    pub(super) is_error: Option<bool>,
    pub(super) num_turns: Option<u64>,
    pub(super) duration_ms: Option<u64>,
    pub(super) total_cost_usd: Option<f64>,
    pub(super) usage: Option<Tokens>,
    pub(super) model_usage: Option<(Tokens, Option<JsonStr<'a>>)>,
    pub(super) result: Option<JsonStr<'a>>,
    pub(super) errors: Vec<JsonStr<'a>>,
    pub(super) rate_status: Option<JsonStr<'a>>,
    pub(super) resets_at: Option<u64>,
    pub(super) trigger: Option<JsonStr<'a>>,
    /// What a `stream_event` says, and the message it belongs to.
    pub(super) partial: Option<Partial<'a>>,
    pub(super) api_message_id: Option<JsonStr<'a>>,
}

impl Vocabulary for ClaudeParser {
    type Kind = Kind;
    type Fields<'a> = Fields<'a>;
    /// Claude's `result` carries keys no other agent's `result` has.
    const HINTS: &'static Hints = &Hints {
        shared_types: &[b"result"],
        keys: &[
            b"subtype",
            b"session_id",
            b"total_cost_usd",
            b"is_error",
            b"num_turns",
        ],
        type_prefixes: &[],
    };

    fn read_field<'a>(&self, k: Kind, key: &[u8], c: &mut Cursor<'a>, f: &mut Fields<'a>) -> Read {
        match (k, key) {
            (Kind::Assistant | Kind::User, b"message") => f.message = Some(read_message(c)?),
            (Kind::Assistant | Kind::User | Kind::StreamEvent, b"parent_tool_use_id") => {
                f.parent_id = c.read_str()?;
            }
            (Kind::StreamEvent, b"event") => f.partial = read_partial(c)?,
            (Kind::StreamEvent, b"api_message_id") => f.api_message_id = c.read_str()?,
            (Kind::Assistant | Kind::User, b"error") => f.error = c.read_str()?,
            (Kind::Assistant | Kind::User, b"is_api_error_message") => {
                f.api_error = c.read_bool()?.unwrap_or(false);
            }
            (Kind::Assistant | Kind::Result, b"api_error_status") => {
                f.api_error_status = c.read_u64()?;
            }
            (Kind::User, b"isReplay") => f.is_replay = c.read_bool()?.unwrap_or(false),
            (Kind::System | Kind::Result, b"subtype") => f.subtype = c.read_str()?,
            (Kind::System, _) => match key {
                b"session_id" => f.session_id = c.read_str()?,
                b"model" => f.model = c.read_str()?,
                b"error" => f.error = c.read_str()?,
                b"error_status" => f.error_status = c.read_u64()?,
                b"attempt" => f.attempt = c.read_u64()?,
                b"max_retries" => f.max_retries = c.read_u64()?,
                b"retry_delay_ms" => f.retry_delay_ms = c.read_u64()?,
                b"compact_metadata" => f.trigger = field_of(c, b"trigger", Cursor::read_str)?,
                _ => c.skip()?,
            },
            (Kind::Result, _) => match key {
                b"is_error" => f.is_error = c.read_bool()?,
                b"num_turns" => f.num_turns = c.read_u64()?,
                b"duration_ms" => f.duration_ms = c.read_u64()?,
                b"total_cost_usd" => f.total_cost_usd = c.read_f64()?,
                b"usage" => f.usage = read_usage(c)?,
                b"modelUsage" => f.model_usage = read_model_usage(c)?,
                b"result" => f.result = c.read_str()?,
                b"errors" => f.errors = read_strings(c)?,
                _ => c.skip()?,
            },
            (Kind::RateLimit, b"rate_limit_info") => {
                (f.rate_status, f.resets_at) = (None, None);
                fields!(c, {
                    b"status" => f.rate_status = c.read_str()?,
                    b"resetsAt" => f.resets_at = c.read_u64()?,
                })?;
            }
            _ => c.skip()?,
        }
        Ok(())
    }
}

/// What ralph uses of a `stream_event`'s `event` (a Messages API stream event).
#[derive(Clone, Copy, Debug)]
pub(super) enum Partial<'a> {
    /// `message_start`: the message whose deltas follow, the model writing it, and its
    /// request's usage (the input whole, the output not counted yet: `1`).
    Start {
        id: Option<JsonStr<'a>>,
        model: Option<JsonStr<'a>>,
        usage: Option<Tokens>,
    },
    /// `content_block_delta` of text or thinking, with its block's index.
    Delta {
        delta: Delta<'a>,
        index: Option<u64>,
    },
    /// `content_block_start` of a tool call, with the tool's name: the call is being
    /// written, and shows only once its block comes whole (its `assistant` line).
    ToolBegun { name: Option<JsonStr<'a>> },
    /// `message_stop`: the message has ended, whether or not its `message_delta` came
    /// (after a cut, Claude Code writes it without one, and drops the blocks it had not
    /// finished).
    End,
    /// `message_delta`: how the message ended. Claude Code writes each block's `assistant`
    /// line before it, with `stop_reason: null`, so a cut at the output limit
    /// (`max_tokens`) is said only here; and its `usage.output_tokens`, the call's final
    /// output count, which those lines give as their `message_start` snapshot (`1`).
    Stop {
        reason: Option<JsonStr<'a>>,
        output: Option<u64>,
    },
}

/// A piece of a text or thinking block.
#[derive(Clone, Copy, Debug)]
pub(super) enum Delta<'a> {
    Text(JsonStr<'a>),
    Thinking(JsonStr<'a>),
}

#[derive(Debug, Default)]
pub(super) struct Message<'a> {
    pub(super) id: Option<JsonStr<'a>>,
    pub(super) model: Option<JsonStr<'a>>,
    pub(super) stop_reason: Option<JsonStr<'a>>,
    /// The request's usage as the response began (`message_start`): its input is whole,
    /// its `output_tokens` not yet counted.
    pub(super) usage: Option<Tokens>,
    pub(super) blocks: Vec<Block<'a>>,
    /// `content` given as a plain string (a user message can be), instead of blocks.
    pub(super) plain: Option<JsonStr<'a>>,
}

#[derive(Debug)]
pub(super) enum Block<'a> {
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

fn read_message<'a>(c: &mut Cursor<'a>) -> Result<Message<'a>, Malformed> {
    let mut message = Message::default();
    fields!(c, {
        b"id" => message.id = c.read_str()?,
        b"model" => message.model = c.read_str()?,
        b"stop_reason" => message.stop_reason = c.read_str()?,
        b"usage" => message.usage = read_usage(c)?,
        b"content" => {
            // The last `content` counts, whichever shape it has.
            (message.plain, message.blocks) = if c.peek() == Some(b'"') {
                (c.read_str()?, Vec::new())
            } else {
                (None, read_blocks(c)?)
            };
        }
    })?;
    Ok(message)
}

fn read_blocks<'a>(c: &mut Cursor<'a>) -> Result<Vec<Block<'a>>, Malformed> {
    let mut blocks = Vec::new();
    c.array(|c| {
        blocks.extend(read_block(c)?);
        Ok(())
    })?;
    Ok(blocks)
}

fn read_block<'a>(c: &mut Cursor<'a>) -> Result<Option<Block<'a>>, Malformed> {
    let mut kind = None;
    let (mut text, mut thinking, mut id, mut name, mut input) = (None, None, None, None, None);
    let (mut tool_use_id, mut texts, mut is_error) = (None, Vec::new(), false);
    fields!(c, {
        b"type" => kind = c.read_str()?,
        b"text" => text = c.read_str()?,
        b"thinking" => thinking = c.read_str()?,
        b"id" => id = c.read_str()?,
        b"name" => name = c.read_str()?,
        b"input" => input = Some(c.read_raw()?),
        b"tool_use_id" => tool_use_id = c.read_str()?,
        b"content" => texts = read_text_blocks(c)?,
        b"is_error" => is_error = c.read_bool()?.unwrap_or(false),
    })?;
    let Some(kind) = kind else {
        return Ok(None);
    };
    Ok(Some(match &*kind.name() {
        b"text" => text.map_or(Block::Ignored, Block::Text),
        b"thinking" => thinking.map_or(Block::Ignored, Block::Thinking),
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

/// A stream event's `{type, message: {id, model, usage}, index, delta, content_block,
/// usage: {output_tokens}}`; other events (block stops, the starts of text and thinking,
/// tool input, signatures) are `None`: the complete lines say what they do.
fn read_partial<'a>(c: &mut Cursor<'a>) -> Result<Option<Partial<'a>>, Malformed> {
    let (mut kind, mut message, mut delta, mut index) = (None, None, None, None);
    let (mut output, mut block) = (None, None);
    fields!(c, {
        b"type" => kind = c.read_str()?,
        b"message" => message = Some(read_message(c)?),
        b"content_block" => block = read_block(c)?,
        b"delta" => delta = Some(read_delta(c)?),
        b"index" => index = c.read_u64()?,
        b"usage" => output = field_of(c, b"output_tokens", Cursor::read_u64)?,
    })?;
    let Some(kind) = kind else {
        return Ok(None);
    };
    // The event's `type` may come after its `delta`, so the delta is read whole first.
    let delta = delta.unwrap_or_default();
    Ok(match &*kind.name() {
        b"message_start" => {
            let message = message.unwrap_or_default();
            Some(Partial::Start {
                id: message.id,
                model: message.model,
                usage: message.usage,
            })
        }
        b"content_block_delta" => delta.piece.map(|delta| Partial::Delta { delta, index }),
        b"content_block_start" => match block {
            Some(Block::ToolUse { name, .. }) => Some(Partial::ToolBegun { name }),
            _ => None,
        },
        b"message_stop" => Some(Partial::End),
        b"message_delta" if delta.stop_reason.is_some() || output.is_some() => {
            Some(Partial::Stop {
                reason: delta.stop_reason,
                output,
            })
        }
        _ => None,
    })
}

/// What ralph uses of a stream event's `delta`.
#[derive(Default)]
struct DeltaFields<'a> {
    /// A `content_block_delta`'s `{type, text}` or `{type, thinking}`; tool input and
    /// signatures are `None`.
    piece: Option<Delta<'a>>,
    /// A `message_delta`'s `stop_reason`.
    stop_reason: Option<JsonStr<'a>>,
}

fn read_delta<'a>(c: &mut Cursor<'a>) -> Result<DeltaFields<'a>, Malformed> {
    let (mut kind, mut text, mut thinking, mut stop_reason) = (None, None, None, None);
    fields!(c, {
        b"type" => kind = c.read_str()?,
        b"text" => text = c.read_str()?,
        b"thinking" => thinking = c.read_str()?,
        b"stop_reason" => stop_reason = c.read_str()?,
    })?;
    let piece = match kind.map(JsonStr::name).as_deref() {
        Some(b"text_delta") => text.map(Delta::Text),
        Some(b"thinking_delta") => thinking.map(Delta::Thinking),
        _ => None,
    };
    Ok(DeltaFields { piece, stop_reason })
}

/// `{input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens}`.
fn read_usage(c: &mut Cursor<'_>) -> Result<Option<Tokens>, Malformed> {
    let mut t = Tokens::default();
    let object = fields!(c, {
        b"input_tokens" => t.input = c.read_u64()?.unwrap_or(0),
        b"output_tokens" => t.output = c.read_u64()?.unwrap_or(0),
        b"cache_read_input_tokens" => t.cache_read = c.read_u64()?.unwrap_or(0),
        b"cache_creation_input_tokens" => t.cache_write = c.read_u64()?.unwrap_or(0),
    })?;
    Ok(object.then_some(t))
}

/// `modelUsage`: cumulative per-model counts. Returns their sum, and the model's name
/// when there is exactly one. A model named twice counts once, with its last counts.
fn read_model_usage<'a>(
    c: &mut Cursor<'a>,
) -> Result<Option<(Tokens, Option<JsonStr<'a>>)>, Malformed> {
    let mut models: Vec<(JsonStr<'a>, Tokens)> = Vec::new();
    c.object(|c, model| {
        models.retain(|(seen, _)| seen.name() != model.name());
        let mut t = Tokens::default();
        let object = fields!(c, {
            b"inputTokens" => t.input = c.read_u64()?.unwrap_or(0),
            b"outputTokens" => t.output = c.read_u64()?.unwrap_or(0),
            b"cacheReadInputTokens" => t.cache_read = c.read_u64()?.unwrap_or(0),
            b"cacheCreationInputTokens" => t.cache_write = c.read_u64()?.unwrap_or(0),
        })?;
        if object {
            models.push((model, t));
        }
        Ok(())
    })?;
    let only = match models.as_slice() {
        [(model, _)] => Some(*model),
        _ => None,
    };
    let total = models.iter().fold(Tokens::default(), |sum, (_, t)| Tokens {
        input: sum.input + t.input,
        output: sum.output + t.output,
        cache_read: sum.cache_read + t.cache_read,
        cache_write: sum.cache_write + t.cache_write,
    });
    Ok((!models.is_empty()).then_some((total, only)))
}
