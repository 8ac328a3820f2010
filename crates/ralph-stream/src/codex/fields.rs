//! Reading Codex's events: the kinds ralph knows and the fields it uses, read lazily
//! from the line.

use super::CodexParser;

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

event_kinds! {
    pub(crate) enum Kind {
        ThreadStarted = b"thread.started",
        TurnStarted = b"turn.started",
        TurnCompleted = b"turn.completed",
        TurnFailed = b"turn.failed",
        ItemStarted = b"item.started",
        ItemUpdated = b"item.updated",
        ItemCompleted = b"item.completed",
        Error = b"error",
    }
}

impl Vocabulary for CodexParser {
    type Kind = Kind;
    type Fields<'a> = Fields<'a>;
    /// Codex's `error` has no key of its own: a line of another type decides.
    const HINTS: &'static Hints = &Hints {
        shared_types: &[b"error"],
        keys: &[],
        type_prefixes: &[],
    };

    fn read_field<'a>(&self, k: Kind, key: &[u8], c: &mut Cursor<'a>, f: &mut Fields<'a>) -> Read {
        match (k, key) {
            (Kind::ThreadStarted, b"thread_id") => f.thread_id = c.read_str()?,
            (Kind::TurnCompleted, b"usage") => f.usage = read_usage(c)?,
            (Kind::TurnFailed, b"error") => f.message = field_of(c, b"message", Cursor::read_str)?,
            (Kind::Error, b"message") => f.message = c.read_str()?,
            (Kind::ItemStarted | Kind::ItemCompleted, b"item") => f.item = read_item(c)?,
            _ => c.skip()?,
        }
        Ok(())
    }
}

#[derive(Debug, Default)]
pub(crate) struct Fields<'a> {
    pub(super) thread_id: Option<JsonStr<'a>>,
    pub(super) usage: Option<Tokens>,
    pub(super) message: Option<JsonStr<'a>>,
    pub(super) item: Option<Item<'a>>,
}

/// One `item` object: the union of the fields of every item type ralph reads.
#[derive(Debug, Default)]
pub(super) struct Item<'a> {
    pub(super) id: Option<JsonStr<'a>>,
    pub(super) kind: Option<JsonStr<'a>>,
    pub(super) text: Option<JsonStr<'a>>,
    pub(super) command: Option<&'a [u8]>,
    pub(super) query: Option<&'a [u8]>,
    pub(super) changes: Option<&'a [u8]>,
    pub(super) change_list: Vec<(JsonStr<'a>, Option<JsonStr<'a>>)>,
    pub(super) arguments: Option<&'a [u8]>,
    pub(super) server: Option<JsonStr<'a>>,
    pub(super) tool: Option<JsonStr<'a>>,
    pub(super) output: Option<JsonStr<'a>>,
    pub(super) result_texts: Vec<JsonStr<'a>>,
    /// `error.message` (an MCP call) and `message` (an `error` item).
    pub(super) error: Option<JsonStr<'a>>,
    pub(super) message: Option<JsonStr<'a>>,
    pub(super) exit_code: Option<f64>,
    pub(super) status: Option<JsonStr<'a>>,
}

impl<'a> Item<'a> {
    /// What went wrong, when the item says.
    pub(super) fn error(&self) -> Option<JsonStr<'a>> {
        self.error.or(self.message)
    }
}

/// `{input_tokens, cached_input_tokens, cache_write_input_tokens, output_tokens, …}`:
/// input counts every prompt token, cached or not.
fn read_usage(c: &mut Cursor<'_>) -> Result<Option<Tokens>, Malformed> {
    let (mut input, mut cached, mut written, mut output) = (0, 0, 0, 0);
    let object = fields!(c, {
        b"input_tokens" => input = c.read_u64()?.unwrap_or(0),
        b"cached_input_tokens" => cached = c.read_u64()?.unwrap_or(0),
        b"cache_write_input_tokens" => written = c.read_u64()?.unwrap_or(0),
        b"output_tokens" => output = c.read_u64()?.unwrap_or(0),
    })?;
    Ok(object.then(|| Tokens {
        input: input.saturating_sub(cached).saturating_sub(written),
        output,
        cache_read: cached,
        cache_write: written,
    }))
}

fn read_item<'a>(c: &mut Cursor<'a>) -> Result<Option<Item<'a>>, Malformed> {
    let mut item = Item::default();
    let object = fields!(c, {
        b"id" => item.id = c.read_str()?,
        b"type" => item.kind = c.read_str()?,
        b"text" => item.text = c.read_str()?,
        b"command" => item.command = raw_string(c)?,
        b"query" => item.query = raw_string(c)?,
        b"aggregated_output" => item.output = c.read_str()?,
        b"exit_code" => item.exit_code = c.read_f64()?,
        b"status" => item.status = c.read_str()?,
        b"changes" => {
            let raw = c.read_raw()?;
            item.change_list = read_changes(&mut Cursor::new(raw))?;
            item.changes = Some(raw);
        },
        b"server" => item.server = c.read_str()?,
        b"tool" => item.tool = c.read_str()?,
        b"arguments" => {
            item.arguments = Some(c.read_raw()?).filter(|raw| raw.first() == Some(&b'{'));
        },
        b"result" => {
            item.result_texts = field_of(c, b"content", |c| read_mcp_content(c).map(Some))?
                .unwrap_or_default();
        },
        b"error" => item.error = field_of(c, b"message", Cursor::read_str)?,
        b"message" => item.message = c.read_str()?,
    })?;
    Ok(object.then_some(item))
}

/// The raw JSON of a string value (quotes included), to embed in tool arguments.
fn raw_string<'a>(c: &mut Cursor<'a>) -> Result<Option<&'a [u8]>, Malformed> {
    if c.peek() == Some(b'"') {
        c.read_raw().map(Some)
    } else {
        c.skip().map(|()| None)
    }
}

/// `[{path, kind}, …]`.
fn read_changes<'a>(
    c: &mut Cursor<'a>,
) -> Result<Vec<(JsonStr<'a>, Option<JsonStr<'a>>)>, Malformed> {
    let mut changes = Vec::new();
    c.array(|c| {
        let (mut path, mut kind) = (None, None);
        fields!(c, {
            b"path" => path = c.read_str()?,
            b"kind" => kind = c.read_str()?,
        })?;
        if let Some(path) = path {
            changes.push((path, kind));
        }
        Ok(())
    })?;
    Ok(changes)
}

/// An MCP result's `content`: the `text` of its text blocks.
fn read_mcp_content<'a>(c: &mut Cursor<'a>) -> Result<Vec<JsonStr<'a>>, Malformed> {
    let mut texts = Vec::new();
    c.array(|c| {
        texts.extend(field_of(c, b"text", Cursor::read_str)?);
        Ok(())
    })?;
    Ok(texts)
}
