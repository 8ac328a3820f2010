//! Reading OpenCode's events: the kinds ralph knows and the fields it uses, read lazily
//! from the line.

use super::OpencodeParser;

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
        StepStart = b"step_start",
        StepFinish = b"step_finish",
        Text = b"text",
        Reasoning = b"reasoning",
        ToolUse = b"tool_use",
        Error = b"error",
    }
}

impl Vocabulary for OpencodeParser {
    type Kind = Kind;
    type Fields<'a> = Fields<'a>;
    /// Every OpenCode line names its session and carries one `part`.
    const HINTS: &'static Hints = &Hints {
        shared_types: &[b"tool_use", b"error"],
        keys: &[b"sessionID", b"part"],
        type_prefixes: &[],
    };

    fn read_field<'a>(&self, k: Kind, key: &[u8], c: &mut Cursor<'a>, f: &mut Fields<'a>) -> Read {
        match (k, key) {
            (_, b"sessionID") => return self.read_unknown(key, c, f),
            (Kind::Error, b"error") => f.error = Some(read_error(c)?),
            (Kind::Error, b"timestamp") => f.timestamp_ms = c.read_u64()?,
            (Kind::Error, _) => c.skip()?,
            (_, b"part") => f.part = read_part(c)?,
            _ => c.skip()?,
        }
        Ok(())
    }

    /// Every line names the session, whatever its type.
    fn read_unknown<'a>(
        &self,
        key: &[u8],
        c: &mut Cursor<'a>,
        f: &mut Fields<'a>,
    ) -> Result<(), Malformed> {
        match key {
            b"sessionID" => f.session_id = c.read_str()?,
            _ => c.skip()?,
        }
        Ok(())
    }
}

#[derive(Debug, Default)]
pub(crate) struct Fields<'a> {
    pub(super) session_id: Option<JsonStr<'a>>,
    pub(super) part: Part<'a>,
    pub(super) error: Option<ErrorInfo<'a>>,
    /// When the line was written, in Unix milliseconds (read on `error` lines).
    pub(super) timestamp_ms: Option<u64>,
}

/// The `part` of a line: the union of the fields ralph reads from every part type.
#[derive(Debug, Default)]
pub(super) struct Part<'a> {
    pub(super) message_id: Option<JsonStr<'a>>,
    pub(super) text: Option<JsonStr<'a>>,
    pub(super) tool: Option<JsonStr<'a>>,
    pub(super) call_id: Option<JsonStr<'a>>,
    pub(super) state: State<'a>,
    pub(super) reason: Option<JsonStr<'a>>,
    pub(super) tokens: Option<Tokens>,
    pub(super) cost: Option<f64>,
}

/// A tool part's `state`.
#[derive(Debug, Default)]
pub(super) struct State<'a> {
    pub(super) status: Option<JsonStr<'a>>,
    pub(super) input: Option<&'a [u8]>,
    pub(super) output: Option<JsonStr<'a>>,
    pub(super) error: Option<JsonStr<'a>>,
    pub(super) exit: Option<f64>,
}

/// `error: {name, message, data: {message, statusCode, responseHeaders}}`, or a plain
/// string.
#[derive(Debug, Default)]
pub(super) struct ErrorInfo<'a> {
    pub(super) name: Option<JsonStr<'a>>,
    pub(super) message: Option<JsonStr<'a>>,
    pub(super) data_message: Option<JsonStr<'a>>,
    pub(super) status_code: Option<u64>,
    /// The provider's `retry-after` response header, as written.
    pub(super) retry_after: Option<JsonStr<'a>>,
}

fn read_part<'a>(c: &mut Cursor<'a>) -> Result<Part<'a>, Malformed> {
    let mut part = Part::default();
    fields!(c, {
        b"messageID" => part.message_id = c.read_str()?,
        b"text" => part.text = c.read_str()?,
        b"tool" => part.tool = c.read_str()?,
        b"callID" => part.call_id = c.read_str()?,
        b"state" => part.state = read_state(c)?,
        b"reason" => part.reason = c.read_str()?,
        b"tokens" => part.tokens = read_tokens(c)?,
        b"cost" => part.cost = c.read_f64()?,
    })?;
    Ok(part)
}

fn read_state<'a>(c: &mut Cursor<'a>) -> Result<State<'a>, Malformed> {
    let mut state = State::default();
    fields!(c, {
        b"status" => state.status = c.read_str()?,
        b"input" => state.input = Some(c.read_raw()?),
        b"output" => state.output = c.read_str()?,
        b"error" => state.error = c.read_str()?,
        // `metadata.exit`: the shell's exit code (the metadata also repeats the output).
        b"metadata" => state.exit = field_of(c, b"exit", Cursor::read_f64)?,
    })?;
    Ok(state)
}

/// `{total, input, output, reasoning, cache: {read, write}}`.
fn read_tokens(c: &mut Cursor<'_>) -> Result<Option<Tokens>, Malformed> {
    let mut t = Tokens::default();
    let object = fields!(c, {
        b"input" => t.input = c.read_u64()?.unwrap_or(0),
        b"output" => t.output = c.read_u64()?.unwrap_or(0),
        b"cache" => {
            (t.cache_read, t.cache_write) = (0, 0);
            fields!(c, {
                b"read" => t.cache_read = c.read_u64()?.unwrap_or(0),
                b"write" => t.cache_write = c.read_u64()?.unwrap_or(0),
            })?;
        },
    })?;
    Ok(object.then_some(t))
}

fn read_error<'a>(c: &mut Cursor<'a>) -> Result<ErrorInfo<'a>, Malformed> {
    let mut error = ErrorInfo::default();
    if c.peek() == Some(b'"') {
        error.message = c.read_str()?;
        return Ok(error);
    }
    fields!(c, {
        b"name" => error.name = c.read_str()?,
        b"message" => error.message = c.read_str()?,
        b"data" => {
            (error.data_message, error.status_code) = (None, None);
            fields!(c, {
                b"message" => error.data_message = c.read_str()?,
                b"statusCode" => error.status_code = c.read_u64()?,
                b"responseHeaders" => {
                    error.retry_after = field_of(c, b"retry-after", Cursor::read_str)?;
                },
            })?;
        },
    })?;
    Ok(error)
}
