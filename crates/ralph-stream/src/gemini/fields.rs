//! Reading Gemini CLI's events: the kinds ralph knows and the fields it uses, read
//! lazily from the line.

use super::GeminiParser;

use crate::event::Tokens;
use crate::json::Cursor;
use crate::json::JsonStr;
use crate::json::Malformed;
use crate::json::Read;
use crate::parser::Hints;
use crate::parser::Vocabulary;
use crate::parser::event_kinds;
use crate::parser::field_of;

event_kinds! {
    pub(crate) enum Kind {
        Init = b"init",
        Message = b"message",
        Thought = b"thought",
        ToolUse = b"tool_use",
        ToolResult = b"tool_result",
        Error = b"error",
        Result = b"result",
    }
}

impl Vocabulary for GeminiParser {
    type Kind = Kind;
    type Fields<'a> = Fields<'a>;
    /// Gemini CLI's `result`, `tool_use` and `error` carry keys the other agents' do not.
    const HINTS: &'static Hints = &Hints {
        shared_types: &[b"result", b"tool_use", b"error"],
        keys: &[b"stats", b"tool_id", b"tool_name", b"severity"],
        type_prefixes: &[],
    };

    fn read_field<'a>(&self, k: Kind, key: &[u8], c: &mut Cursor<'a>, f: &mut Fields<'a>) -> Read {
        match (k, key) {
            (Kind::Init, b"session_id") => f.session_id = c.read_str()?,
            (Kind::Init, b"model") => f.model = c.read_str()?,
            (Kind::Message, b"role") => f.role = c.read_str()?,
            (Kind::Message, b"content") => f.content = c.read_str()?,
            (Kind::Thought, b"subject") => f.subject = c.read_str()?,
            (Kind::Thought, b"description") => f.description = c.read_str()?,
            (Kind::ToolUse | Kind::ToolResult, _) => match key {
                b"tool_id" => f.tool_id = c.read_str()?,
                b"tool_name" => f.tool_name = c.read_str()?,
                b"parameters" => f.parameters = Some(c.read_raw()?),
                b"status" => f.status = c.read_str()?,
                b"output" => f.output = c.read_str()?,
                b"error" => f.error = read_error(c)?,
                _ => c.skip()?,
            },
            (Kind::Error, b"severity") => f.severity = c.read_str()?,
            (Kind::Error, b"message") => f.message = c.read_str()?,
            (Kind::Result, b"status") => f.status = c.read_str()?,
            (Kind::Result, b"error") => f.error = read_error(c)?,
            (Kind::Result, b"stats") => f.stats = read_stats(c)?,
            _ => c.skip()?,
        }
        Ok(())
    }
}

#[derive(Debug, Default)]
pub(crate) struct Fields<'a> {
    pub(super) session_id: Option<JsonStr<'a>>,
    pub(super) model: Option<JsonStr<'a>>,
    pub(super) role: Option<JsonStr<'a>>,
    pub(super) content: Option<JsonStr<'a>>,
    pub(super) tool_id: Option<JsonStr<'a>>,
    pub(super) tool_name: Option<JsonStr<'a>>,
    pub(super) parameters: Option<&'a [u8]>,
    pub(super) status: Option<JsonStr<'a>>,
    pub(super) output: Option<JsonStr<'a>>,
    pub(super) error: Option<JsonStr<'a>>,
    pub(super) severity: Option<JsonStr<'a>>,
    pub(super) subject: Option<JsonStr<'a>>,
    pub(super) description: Option<JsonStr<'a>>,
    pub(super) message: Option<JsonStr<'a>>,
    pub(super) stats: Option<Stats<'a>>,
}

/// `result.stats`: the run's counts, and the same counts per model.
#[derive(Debug, Default)]
pub(super) struct Stats<'a> {
    pub(super) counts: Counts,
    pub(super) duration_ms: Option<u64>,
    pub(super) models: Vec<(JsonStr<'a>, Counts)>,
}

/// One block of Gemini's token counts.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Counts {
    pub(super) total: Option<u64>,
    pub(super) prompt: u64,
    pub(super) candidates: u64,
    pub(super) cached: u64,
    pub(super) uncached: Option<u64>,
}

impl Counts {
    pub(super) fn tokens(self) -> Tokens {
        Tokens {
            input: self
                .uncached
                .unwrap_or(self.prompt.saturating_sub(self.cached)),
            output: self
                .candidates
                .max(self.total.unwrap_or(0).saturating_sub(self.prompt)),
            cache_read: self.cached,
            cache_write: 0,
        }
    }
}

/// An error given as `{"type": …, "message": …}` or as a plain string.
fn read_error<'a>(c: &mut Cursor<'a>) -> Result<Option<JsonStr<'a>>, Malformed> {
    if c.peek() == Some(b'"') {
        return c.read_str();
    }
    field_of(c, b"message", Cursor::read_str)
}

fn read_stats<'a>(c: &mut Cursor<'a>) -> Result<Option<Stats<'a>>, Malformed> {
    let mut stats = Stats::default();
    let object = c.object(|c, key| match &*key.name() {
        b"duration_ms" => c.read_u64().map(|ms| stats.duration_ms = ms),
        b"models" => read_models(c).map(|models| stats.models = models),
        name => read_count(name, c, &mut stats.counts),
    })?;
    Ok(object.then_some(stats))
}

/// `stats.models`: the counts per model; a model named twice counts once, with its last
/// counts.
fn read_models<'a>(c: &mut Cursor<'a>) -> Result<Vec<(JsonStr<'a>, Counts)>, Malformed> {
    let mut models: Vec<(JsonStr<'a>, Counts)> = Vec::new();
    c.object(|c, model| {
        models.retain(|(seen, _)| seen.name() != model.name());
        let mut counts = Counts::default();
        if c.object(|c, key| read_count(&key.name(), c, &mut counts))? {
            models.push((model, counts));
        }
        Ok(())
    })?;
    Ok(models)
}

/// Reads one key of a counts block, or skips it.
fn read_count(key: &[u8], c: &mut Cursor<'_>, counts: &mut Counts) -> Result<(), Malformed> {
    match key {
        b"total_tokens" => counts.total = c.read_u64()?,
        b"input_tokens" => counts.prompt = c.read_u64()?.unwrap_or(0),
        b"output_tokens" => counts.candidates = c.read_u64()?.unwrap_or(0),
        b"cached" => counts.cached = c.read_u64()?.unwrap_or(0),
        b"input" => counts.uncached = c.read_u64()?,
        _ => c.skip()?,
    }
    Ok(())
}
