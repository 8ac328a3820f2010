//! Reading Claude's events: the kinds ralph knows and the fields it uses, read lazily
//! from the line.

use crate::event::Tokens;
use crate::json::Cursor;
use crate::json::JsonStr;
use crate::json::Malformed;
use crate::json::Next;
use crate::parser::read_string_field;
use crate::parser::read_strings;
use crate::parser::read_text_blocks;

#[derive(Clone, Copy, Debug)]
pub(super) enum Kind<'a> {
    System,
    Assistant,
    User,
    Result,
    RateLimit,
    Ignored,
    Unknown(JsonStr<'a>),
}

pub(super) fn classify(ty: JsonStr<'_>) -> Kind<'_> {
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
pub(super) struct Fields<'a> {
    pub(super) subtype: Option<JsonStr<'a>>,
    pub(super) message: Option<Message<'a>>,
    pub(super) parent_id: Option<JsonStr<'a>>,
    pub(super) session_id: Option<JsonStr<'a>>,
    pub(super) model: Option<JsonStr<'a>>,
    pub(super) error: Option<JsonStr<'a>>,
    pub(super) error_status: Option<u64>,
    pub(super) api_error: bool,
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
}

#[derive(Debug, Default)]
pub(super) struct Message<'a> {
    pub(super) id: Option<JsonStr<'a>>,
    pub(super) model: Option<JsonStr<'a>>,
    pub(super) stop_reason: Option<JsonStr<'a>>,
    pub(super) blocks: Vec<Block<'a>>,
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

pub(super) fn read_field<'a>(
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
            texts = read_text_blocks(c)?;
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
