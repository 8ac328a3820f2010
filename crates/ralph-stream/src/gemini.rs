//! Gemini CLI (`gemini --output-format stream-json`).
//!
//! Facts the parser relies on (see the real transcripts under tests/fixtures/gemini,
//! Gemini CLI 0.61.0):
//! - `init` names the session and the model (`auto` when the router picks it);
//! - the answer streams as assistant `message` lines with `delta: true`, to be
//!   concatenated (no assistant message without `delta` was seen; one would be read the
//!   same way); thoughts are not emitted by 0.61.0 (other releases send a `thought`
//!   event with `subject` and `description`); the user's prompt is echoed as a user
//!   `message`;
//! - `tool_use` (`tool_id`, `tool_name`, `parameters`) and `tool_result` (`status`
//!   success / error, `output` or `error.message`) are matched by `tool_id`; a failing
//!   shell command is still a success (Gemini gives no exit code);
//! - no event closes a model response: a response ends where its tools report back
//!   (`tool_result`) or where the run ends (`result`);
//! - `result` closes the run: `status` success / error, `error.message`, and `stats` with
//!   the run's token counts summed over every request, per model in `stats.models`;
//!   `input_tokens` is the whole prompt (cached part included, `input` is the uncached
//!   part) and `total_tokens - input_tokens` is the output with thoughts, which Google
//!   bills as output. No cost: it is estimated per model from the price table;
//! - retries are invisible on stdout (stderr only), and the exit code after API errors is
//!   the HTTP status modulo 256: the `result` line is the verdict, not the exit code.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::event::AgentEvent;
use crate::event::CostKind;
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
use crate::parser::read_string_field;
use crate::pricing::Pricing;

/// The model `init` names when Gemini CLI's router chooses per request: no price.
const ROUTED_MODEL: &str = "auto";

/// Parses Gemini CLI's stream-json lines.
#[derive(Debug, Default)]
pub(crate) struct GeminiParser {
    scratch: Scratch,
    pricing: Pricing,
    /// The model `init` named, for pricing a `result` without per-model stats.
    model: Option<String>,
    /// The model response being streamed.
    pending: Option<Pending>,
    /// Tool names by call id: results do not repeat them.
    tool_names: HashMap<String, String>,
    /// Model responses that ended well so far.
    ok_responses: u32,
}

#[derive(Debug, Default)]
struct Pending {
    text: String,
    has_tool_use: bool,
}

#[derive(Clone, Copy, Debug)]
enum Kind<'a> {
    Init,
    Message,
    Thought,
    ToolUse,
    ToolResult,
    Error,
    Result,
    Unknown(JsonStr<'a>),
}

fn classify(ty: JsonStr<'_>) -> Kind<'_> {
    match ty.raw() {
        b"init" => Kind::Init,
        b"message" => Kind::Message,
        b"thought" => Kind::Thought,
        b"tool_use" => Kind::ToolUse,
        b"tool_result" => Kind::ToolResult,
        b"error" => Kind::Error,
        b"result" => Kind::Result,
        _ => Kind::Unknown(ty),
    }
}

#[derive(Debug, Default)]
struct Fields<'a> {
    session_id: Option<JsonStr<'a>>,
    model: Option<JsonStr<'a>>,
    role: Option<JsonStr<'a>>,
    content: Option<JsonStr<'a>>,
    tool_id: Option<JsonStr<'a>>,
    tool_name: Option<JsonStr<'a>>,
    parameters: Option<&'a [u8]>,
    status: Option<JsonStr<'a>>,
    output: Option<JsonStr<'a>>,
    error: Option<JsonStr<'a>>,
    severity: Option<JsonStr<'a>>,
    subject: Option<JsonStr<'a>>,
    description: Option<JsonStr<'a>>,
    message: Option<JsonStr<'a>>,
    stats: Option<Stats<'a>>,
}

/// `result.stats`: the run's counts, and the same counts per model.
#[derive(Debug, Default)]
struct Stats<'a> {
    counts: Counts,
    duration_ms: Option<u64>,
    models: Vec<(JsonStr<'a>, Counts)>,
}

/// One block of Gemini's token counts.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    total: Option<u64>,
    prompt: u64,
    candidates: u64,
    cached: u64,
    uncached: Option<u64>,
}

impl Counts {
    fn tokens(self) -> Tokens {
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

impl GeminiParser {
    pub(crate) fn new(pricing: Pricing) -> Self {
        GeminiParser {
            pricing,
            ..GeminiParser::default()
        }
    }

    pub(crate) fn set_pricing(&mut self, pricing: Pricing) {
        self.pricing = pricing;
    }

    pub(crate) fn parse_line(&mut self, line: &[u8], emit: &mut Emit<'_>) {
        self.scratch.clear();
        if let Some((kind, fields)) = read_event(line, emit, classify, read_field) {
            self.on_event(kind, fields, emit);
        }
    }

    fn on_event(&mut self, kind: Kind<'_>, f: Fields<'_>, emit: &mut Emit<'_>) {
        match kind {
            Kind::Init => {
                let model = f.model.map(JsonStr::decode);
                self.model = model.as_ref().map(|m| m.to_string());
                emit(&AgentEvent::SessionStarted {
                    session_id: f.session_id.map(JsonStr::decode),
                    model,
                    provider: Some("google".into()),
                });
            }
            Kind::Message => {
                if f.role.is_some_and(|r| r.eq("assistant"))
                    && let Some(content) = f.content
                {
                    let text = content.decode_into(&mut self.scratch);
                    let text = text.resolve(&self.scratch);
                    self.pending
                        .get_or_insert_with(Pending::default)
                        .text
                        .push_str(text);
                    emit(&AgentEvent::TextDelta { text: text.into() });
                }
            }
            Kind::Thought => {
                // `subject: description`, as Gemini CLI prints a thought.
                let start = self.scratch.len();
                for (i, part) in [f.subject, f.description].into_iter().flatten().enumerate() {
                    if i > 0 {
                        self.scratch.push_str(": ");
                    }
                    append(part, &mut self.scratch);
                }
                if self.scratch.len() > start {
                    emit(&AgentEvent::ThinkingDelta {
                        text: self.scratch.as_str()[start..].into(),
                    });
                }
            }
            Kind::ToolUse => {
                self.pending
                    .get_or_insert_with(Pending::default)
                    .has_tool_use = true;
                let id = f.tool_id.map(JsonStr::decode).unwrap_or_default();
                let name = f.tool_name.map(JsonStr::decode).unwrap_or_default();
                self.tool_names.insert(id.to_string(), name.to_string());
                emit(&AgentEvent::ToolCallStarted {
                    id,
                    name,
                    args: f.parameters.map_or("{}".into(), String::from_utf8_lossy),
                    parent_id: None,
                });
            }
            Kind::ToolResult => {
                // The response that asked for the tools is over once they run.
                self.flush(Stop::ToolUse, None, emit);
                let id = f.tool_id.map(JsonStr::decode).unwrap_or_default();
                let is_error = f.status.is_some_and(|s| s.eq("error"));
                let output = f
                    .output
                    .or(f.error)
                    .map_or(Span::Line(""), |o| o.decode_into(&mut self.scratch));
                emit(&AgentEvent::ToolCallFinished {
                    // A call finishes once: its name is not needed again.
                    name: self.tool_names.remove(id.as_ref()).map(Into::into),
                    id,
                    output: output.resolve(&self.scratch).into(),
                    is_error,
                });
            }
            Kind::Error => {
                // Warnings (a loop detected, say) leave the response alone.
                if !f.severity.is_some_and(|s| s.eq("warning")) {
                    let error = f
                        .message
                        .map_or("gemini reported an error".into(), JsonStr::decode);
                    self.pending.get_or_insert_with(Pending::default);
                    self.flush(Stop::Error, Some(&error), emit);
                }
            }
            Kind::Result => self.on_result(f, emit),
            Kind::Unknown(ty) => emit(&AgentEvent::Unknown {
                event_type: ty.decode(),
            }),
        }
    }

    fn on_result(&mut self, f: Fields<'_>, emit: &mut Emit<'_>) {
        let is_error = match f.status {
            Some(status) => !status.eq("success"),
            None => f.error.is_some(),
        };
        let error = is_error.then(|| {
            f.error
                .map_or("gemini reported an error".into(), JsonStr::decode)
        });
        if is_error {
            self.flush(Stop::Error, error.as_deref(), emit);
        } else {
            self.flush(Stop::Completed, None, emit);
        }
        emit(&AgentEvent::RunFinished {
            is_error,
            turns: Some(self.ok_responses + u32::from(is_error)),
            error,
            duration_ms: f.stats.as_ref().and_then(|s| s.duration_ms),
            // Without stats the usage is unknown, not zero.
            totals: f.stats.as_ref().map(|s| self.price(s)),
        });
    }

    /// The run's totals, priced per model when the stats say which model used what.
    fn price<'a>(&self, stats: &Stats<'a>) -> Usage<'a> {
        let tokens = stats.counts.tokens();
        if stats.models.is_empty() {
            let model = self
                .model
                .as_deref()
                .filter(|m| *m != ROUTED_MODEL)
                .map(|m| m.to_owned().into());
            return self.pricing.estimate(tokens, model);
        }
        let only_model = match stats.models.as_slice() {
            [(model, _)] => Some(model.decode()),
            _ => None,
        };
        let shares: Vec<(Cow<'_, str>, Tokens)> = stats
            .models
            .iter()
            .map(|(model, counts)| (model.decode(), counts.tokens()))
            .collect();
        let cost_usd = self
            .pricing
            .estimate_shares(shares.iter().map(|(m, t)| (m.as_ref(), *t)));
        Usage {
            tokens,
            cost_usd,
            cost_kind: if cost_usd.is_some() {
                CostKind::Estimated
            } else {
                CostKind::Unknown
            },
            model: only_model,
        }
    }

    /// Ends the model response being streamed, if any.
    fn flush(&mut self, stop: Stop, error: Option<&str>, emit: &mut Emit<'_>) {
        let Some(pending) = self.pending.take() else {
            return;
        };
        let stop = if stop == Stop::Completed && pending.has_tool_use {
            Stop::ToolUse
        } else {
            stop
        };
        if !stop.is_failure() {
            self.ok_responses += 1;
        }
        emit(&AgentEvent::MessageFinished {
            text: pending.text.into(),
            stop,
            error: error.map(Into::into),
        });
    }
}

fn read_field<'a>(
    kind: Kind<'a>,
    key: JsonStr<'a>,
    c: &mut Cursor<'a>,
    f: &mut Fields<'a>,
) -> Result<Next, Malformed> {
    match kind {
        Kind::Init => {
            if key.eq("session_id") {
                f.session_id = c.read_str()?;
            } else if key.eq("model") {
                f.model = c.read_str()?;
            } else {
                c.skip()?;
            }
        }
        Kind::Message => {
            if key.eq("role") {
                f.role = c.read_str()?;
            } else if key.eq("content") {
                f.content = c.read_str()?;
            } else {
                c.skip()?;
            }
        }
        Kind::Thought => {
            if key.eq("subject") {
                f.subject = c.read_str()?;
            } else if key.eq("description") {
                f.description = c.read_str()?;
            } else {
                c.skip()?;
            }
        }
        Kind::ToolUse | Kind::ToolResult => {
            if key.eq("tool_id") {
                f.tool_id = c.read_str()?;
            } else if key.eq("tool_name") {
                f.tool_name = c.read_str()?;
            } else if key.eq("parameters") {
                f.parameters = Some(c.read_raw()?);
            } else if key.eq("status") {
                f.status = c.read_str()?;
            } else if key.eq("output") {
                f.output = c.read_str()?;
            } else if key.eq("error") {
                f.error = read_error(c)?;
            } else {
                c.skip()?;
            }
        }
        Kind::Error => {
            if key.eq("severity") {
                f.severity = c.read_str()?;
            } else if key.eq("message") {
                f.message = c.read_str()?;
            } else {
                c.skip()?;
            }
        }
        Kind::Result => {
            if key.eq("status") {
                f.status = c.read_str()?;
            } else if key.eq("error") {
                f.error = read_error(c)?;
            } else if key.eq("stats") {
                f.stats = read_stats(c)?;
            } else {
                c.skip()?;
            }
        }
        Kind::Unknown(_) => return Ok(Next::Done),
    }
    Ok(Next::More)
}

/// An error given as `{"type": …, "message": …}` or as a plain string.
fn read_error<'a>(c: &mut Cursor<'a>) -> Result<Option<JsonStr<'a>>, Malformed> {
    if c.peek() == Some(b'"') {
        return c.read_str();
    }
    read_string_field(c, "message")
}

fn read_stats<'a>(c: &mut Cursor<'a>) -> Result<Option<Stats<'a>>, Malformed> {
    let Some(mut object) = c.enter_object()? else {
        return Ok(None);
    };
    let mut stats = Stats::default();
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq("duration_ms") {
            stats.duration_ms = c.read_u64()?;
        } else if key.eq("models") {
            let Some(mut models) = c.enter_object()? else {
                continue;
            };
            while let Some(model) = c.next_key(&mut models)? {
                let mut counts = Counts::default();
                let Some(mut block) = c.enter_object()? else {
                    continue;
                };
                while let Some(key) = c.next_key(&mut block)? {
                    read_count(key, c, &mut counts)?;
                }
                stats.models.push((model, counts));
            }
        } else {
            read_count(key, c, &mut stats.counts)?;
        }
    }
    Ok(Some(stats))
}

/// Reads one key of a counts block, or skips it.
fn read_count(key: JsonStr<'_>, c: &mut Cursor<'_>, counts: &mut Counts) -> Result<(), Malformed> {
    if key.eq("total_tokens") {
        counts.total = c.read_u64()?;
    } else if key.eq("input_tokens") {
        counts.prompt = c.read_u64()?.unwrap_or(0);
    } else if key.eq("output_tokens") {
        counts.candidates = c.read_u64()?.unwrap_or(0);
    } else if key.eq("cached") {
        counts.cached = c.read_u64()?.unwrap_or(0);
    } else if key.eq("input") {
        counts.uncached = c.read_u64()?;
    } else {
        c.skip()?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "gemini_tests.rs"]
mod tests;
