//! Codex (`codex exec --json`): thread, turn and item events.
//!
//! Facts the parser relies on (see the real transcripts under tests/fixtures/codex,
//! Codex 0.169.0):
//! - `thread.started` names the session (`thread_id`); no event names the model;
//! - one `turn.started` … `turn.completed` / `turn.failed` per `codex exec`, however many
//!   model requests it took: the turn's end is the run's end (Codex exits right after);
//! - `turn.completed.usage` sums the turn's requests; `input_tokens` includes
//!   `cached_input_tokens` and `cache_write_input_tokens`, `output_tokens` includes
//!   `reasoning_output_tokens`; there is no cost anywhere, so it is estimated from the
//!   price table (see [`crate::Pricing`]) when the model is known;
//! - items arrive whole: `agent_message` and `reasoning` only as `item.completed`, tools as
//!   `item.started` (in progress) then `item.completed` (`command_execution` with
//!   `exit_code` and `status` completed / failed / declined, `file_change`,
//!   `mcp_tool_call`, `web_search`, the last possibly without a start);
//! - an `error` *item* is a warning (an unknown model's metadata) and the run goes on;
//! - a top-level `error` is either a retry notice (`Reconnecting... 2/5 (why)`) or the
//!   fatal error that `turn.failed` then repeats.

use std::collections::HashSet;

use crate::event::AgentEvent;
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
use crate::parser::text_of;
use crate::parser::unknown_sub;
use crate::parser::wrap_raw;
use crate::pricing::Pricing;

/// What a retry notice starts with; the attempt count follows.
const RETRY_PREFIX: &str = "Reconnecting...";

/// Parses Codex's JSON lines.
#[derive(Debug, Default)]
pub(crate) struct CodexParser {
    scratch: Scratch,
    pricing: Pricing,
    /// Tool items announced by `item.started`: their `item.completed` must not announce
    /// them again.
    open_tools: HashSet<String>,
}

#[derive(Clone, Copy, Debug)]
enum Kind<'a> {
    ThreadStarted,
    TurnStarted,
    TurnCompleted,
    TurnFailed,
    ItemStarted,
    ItemUpdated,
    ItemCompleted,
    Error,
    Unknown(JsonStr<'a>),
}

fn classify(ty: JsonStr<'_>) -> Kind<'_> {
    match ty.raw() {
        b"thread.started" => Kind::ThreadStarted,
        b"turn.started" => Kind::TurnStarted,
        b"turn.completed" => Kind::TurnCompleted,
        b"turn.failed" => Kind::TurnFailed,
        b"item.started" => Kind::ItemStarted,
        b"item.updated" => Kind::ItemUpdated,
        b"item.completed" => Kind::ItemCompleted,
        b"error" => Kind::Error,
        _ => Kind::Unknown(ty),
    }
}

#[derive(Debug, Default)]
struct Fields<'a> {
    thread_id: Option<JsonStr<'a>>,
    usage: Option<Tokens>,
    message: Option<JsonStr<'a>>,
    item: Option<Item<'a>>,
}

/// One `item` object: the union of the fields of every item type ralph reads.
#[derive(Debug, Default)]
struct Item<'a> {
    id: Option<JsonStr<'a>>,
    kind: Option<JsonStr<'a>>,
    text: Option<JsonStr<'a>>,
    command: Option<&'a [u8]>,
    query: Option<&'a [u8]>,
    changes: Option<&'a [u8]>,
    change_list: Vec<(JsonStr<'a>, Option<JsonStr<'a>>)>,
    arguments: Option<&'a [u8]>,
    server: Option<JsonStr<'a>>,
    tool: Option<JsonStr<'a>>,
    output: Option<JsonStr<'a>>,
    result_texts: Vec<JsonStr<'a>>,
    error: Option<JsonStr<'a>>,
    exit_code: Option<f64>,
    status: Option<JsonStr<'a>>,
}

/// The item types that are tool calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tool {
    Command,
    FileChange,
    Mcp,
    WebSearch,
}

impl CodexParser {
    pub(crate) fn new(pricing: Pricing) -> Self {
        CodexParser {
            pricing,
            ..CodexParser::default()
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
            Kind::ThreadStarted => emit(&AgentEvent::SessionStarted {
                session_id: f.thread_id.map(JsonStr::decode),
                model: None,
                provider: None,
            }),
            Kind::TurnCompleted => {
                // No usage at all is unknown, not free.
                let usage = match f.usage {
                    Some(tokens) => self.pricing.estimate(tokens, None),
                    None => Usage::default(),
                };
                emit(&AgentEvent::TurnFinished {
                    usage,
                    is_error: false,
                });
                emit(&AgentEvent::RunFinished {
                    is_error: false,
                    error: None,
                    turns: None,
                    duration_ms: None,
                    totals: None,
                });
            }
            Kind::TurnFailed => emit(&AgentEvent::RunFinished {
                is_error: true,
                error: Some(
                    f.message
                        .map_or("codex reported a failed turn".into(), JsonStr::decode),
                ),
                turns: None,
                duration_ms: None,
                totals: None,
            }),
            Kind::Error => self.on_error(f.message, emit),
            Kind::ItemStarted => {
                if let Some(item) = f.item {
                    self.on_item_started(&item, emit);
                }
            }
            Kind::ItemCompleted => match f.item {
                Some(item) => self.on_item_completed(&item, emit),
                None => emit(&AgentEvent::Unknown {
                    event_type: "item.completed".into(),
                }),
            },
            // A to-do list's progress is all `item.updated` carries.
            Kind::TurnStarted | Kind::ItemUpdated => {}
            Kind::Unknown(ty) => emit(&AgentEvent::Unknown {
                event_type: ty.decode(),
            }),
        }
    }

    fn on_error(&mut self, message: Option<JsonStr<'_>>, emit: &mut Emit<'_>) {
        let message = message.map(|m| m.decode_into(&mut self.scratch));
        let text = message.as_ref().map_or("", |m| m.resolve(&self.scratch));
        match text.strip_prefix(RETRY_PREFIX) {
            Some(rest) => {
                let (attempt, max_attempts, why) = retry_notice(rest);
                emit(&AgentEvent::RetryStarted {
                    attempt,
                    max_attempts,
                    delay_ms: None,
                    error: Some(why.unwrap_or(text).into()),
                });
            }
            // The failed model call; `turn.failed` follows with the same message.
            None => emit(&AgentEvent::MessageFinished {
                text: "".into(),
                stop: Stop::Error,
                error: Some(if text.is_empty() {
                    "codex reported an error".into()
                } else {
                    text.into()
                }),
            }),
        }
    }

    fn on_item_started(&mut self, item: &Item<'_>, emit: &mut Emit<'_>) {
        if let Some(tool) = item.kind.and_then(tool_of) {
            self.start_tool(tool, item, emit);
        }
    }

    fn on_item_completed(&mut self, item: &Item<'_>, emit: &mut Emit<'_>) {
        let Some(kind) = item.kind else {
            emit(&AgentEvent::Unknown {
                event_type: "item".into(),
            });
            return;
        };
        if let Some(tool) = tool_of(kind) {
            let id = item.id.map(JsonStr::decode).unwrap_or_default();
            if !self.open_tools.remove(id.as_ref()) {
                self.start_tool(tool, item, emit);
                self.open_tools.remove(id.as_ref());
                self.scratch.clear();
            }
            self.finish_tool(tool, item, emit);
            return;
        }
        match kind.raw() {
            b"agent_message" => {
                let text = item
                    .text
                    .map_or(Span::Line(""), |t| t.decode_into(&mut self.scratch));
                let text = text.resolve(&self.scratch);
                emit(&AgentEvent::TextDelta { text: text.into() });
                emit(&AgentEvent::MessageFinished {
                    text: text.into(),
                    stop: Stop::Completed,
                    error: None,
                });
            }
            b"reasoning" => {
                if let Some(text) = item.text {
                    let text = text.decode_into(&mut self.scratch);
                    emit(&AgentEvent::ThinkingDelta {
                        text: text.resolve(&self.scratch).into(),
                    });
                }
            }
            // A warning (`error` items never stop the run) and the plan's progress.
            b"error" | b"todo_list" => {}
            _ => unknown_sub("item", kind, &mut self.scratch, emit),
        }
    }

    fn start_tool(&mut self, tool: Tool, item: &Item<'_>, emit: &mut Emit<'_>) {
        let id = item.id.map(JsonStr::decode).unwrap_or_default();
        self.open_tools.insert(id.to_string());
        let args = match tool {
            Tool::Command => wrap_raw("command", item.command, &mut self.scratch),
            Tool::FileChange => wrap_raw("changes", item.changes, &mut self.scratch),
            Tool::WebSearch => wrap_raw("query", item.query, &mut self.scratch),
            Tool::Mcp => match item.arguments {
                Some(raw) => {
                    let start = self.scratch.len();
                    self.scratch.push_str(&String::from_utf8_lossy(raw));
                    Span::Scratch(start..self.scratch.len())
                }
                None => Span::Line("{}"),
            },
        };
        let name = self.tool_name(tool, item);
        emit(&AgentEvent::ToolCallStarted {
            id,
            name: name.resolve(&self.scratch).into(),
            args: args.resolve(&self.scratch).into(),
            parent_id: None,
        });
    }

    fn finish_tool(&mut self, tool: Tool, item: &Item<'_>, emit: &mut Emit<'_>) {
        let failed = item
            .status
            .is_some_and(|s| matches!(s.raw(), b"failed" | b"declined"))
            || item.exit_code.is_some_and(|code| code != 0.0)
            || (tool == Tool::Mcp && item.error.is_some());
        let output = match tool {
            Tool::Command => item
                .output
                .map_or(Span::Line(""), |o| o.decode_into(&mut self.scratch)),
            Tool::FileChange => self.describe_changes(item),
            Tool::Mcp => match item.error {
                Some(error) if item.result_texts.is_empty() => error.decode_into(&mut self.scratch),
                _ => text_of(&item.result_texts, "\n", &mut self.scratch),
            },
            Tool::WebSearch => Span::Line(""),
        };
        let name = self.tool_name(tool, item);
        emit(&AgentEvent::ToolCallFinished {
            id: item.id.map(JsonStr::decode).unwrap_or_default(),
            name: Some(name.resolve(&self.scratch).into()),
            output: output.resolve(&self.scratch).into(),
            is_error: failed,
        });
    }

    /// The item type as the tool's name, or `server/tool` for an MCP tool.
    fn tool_name<'a>(&mut self, tool: Tool, item: &Item<'a>) -> Span<'a> {
        if tool == Tool::Mcp
            && let (Some(server), Some(name)) = (item.server, item.tool)
        {
            let start = self.scratch.len();
            append(server, &mut self.scratch);
            self.scratch.push_str("/");
            append(name, &mut self.scratch);
            return Span::Scratch(start..self.scratch.len());
        }
        item.kind
            .map_or(Span::Line(""), |k| k.decode_into(&mut self.scratch))
    }

    /// `kind path` per changed file, one per line.
    fn describe_changes<'a>(&mut self, item: &Item<'a>) -> Span<'a> {
        let start = self.scratch.len();
        for (i, (path, kind)) in item.change_list.iter().enumerate() {
            if i > 0 {
                self.scratch.push_str("\n");
            }
            if let Some(kind) = kind {
                append(*kind, &mut self.scratch);
                self.scratch.push_str(" ");
            }
            append(*path, &mut self.scratch);
        }
        Span::Scratch(start..self.scratch.len())
    }
}

fn tool_of(kind: JsonStr<'_>) -> Option<Tool> {
    match kind.raw() {
        b"command_execution" => Some(Tool::Command),
        b"file_change" => Some(Tool::FileChange),
        b"mcp_tool_call" => Some(Tool::Mcp),
        b"web_search" => Some(Tool::WebSearch),
        _ => None,
    }
}

/// Splits what follows `Reconnecting...` (` 2/5 (why)`) into attempt, maximum and reason;
/// whatever does not have that shape is left out.
fn retry_notice(rest: &str) -> (Option<u32>, Option<u32>, Option<&str>) {
    let rest = rest.trim_start();
    let (count, why) = match rest.split_once(' ') {
        Some((count, why)) => (count, Some(why.trim())),
        None => (rest, None),
    };
    let (attempt, max) = match count.split_once('/') {
        Some((a, m)) => (a.parse().ok(), m.parse().ok()),
        None => (None, None),
    };
    let why = why
        .and_then(|w| w.strip_prefix('(')?.strip_suffix(')'))
        .filter(|_| attempt.is_some());
    (attempt, max, why)
}

fn read_field<'a>(
    kind: Kind<'a>,
    key: JsonStr<'a>,
    c: &mut Cursor<'a>,
    f: &mut Fields<'a>,
) -> Result<Next, Malformed> {
    match kind {
        Kind::ThreadStarted => {
            if key.eq("thread_id") {
                f.thread_id = c.read_str()?;
                return Ok(Next::Done);
            }
        }
        Kind::TurnCompleted => {
            if key.eq("usage") {
                f.usage = read_usage(c)?;
                return Ok(Next::Done);
            }
        }
        Kind::TurnFailed => {
            if key.eq("error") {
                f.message = read_string_field(c, "message")?;
                return Ok(Next::Done);
            }
        }
        Kind::Error => {
            if key.eq("message") {
                f.message = c.read_str()?;
                return Ok(Next::Done);
            }
        }
        Kind::ItemStarted | Kind::ItemCompleted => {
            if key.eq("item") {
                f.item = read_item(c)?;
                return Ok(Next::Done);
            }
        }
        Kind::TurnStarted | Kind::ItemUpdated | Kind::Unknown(_) => return Ok(Next::Done),
    }
    c.skip()?;
    Ok(Next::More)
}

/// `{input_tokens, cached_input_tokens, cache_write_input_tokens, output_tokens, …}`:
/// input counts every prompt token, cached or not.
fn read_usage(c: &mut Cursor<'_>) -> Result<Option<Tokens>, Malformed> {
    let Some(mut object) = c.enter_object()? else {
        return Ok(None);
    };
    let (mut input, mut cached, mut written, mut output) = (0, 0, 0, 0);
    while let Some(key) = c.next_key(&mut object)? {
        let slot = if key.eq("input_tokens") {
            &mut input
        } else if key.eq("cached_input_tokens") {
            &mut cached
        } else if key.eq("cache_write_input_tokens") {
            &mut written
        } else if key.eq("output_tokens") {
            &mut output
        } else {
            c.skip()?;
            continue;
        };
        *slot = c.read_u64()?.unwrap_or(0);
    }
    Ok(Some(Tokens {
        input: input.saturating_sub(cached).saturating_sub(written),
        output,
        cache_read: cached,
        cache_write: written,
    }))
}

fn read_item<'a>(c: &mut Cursor<'a>) -> Result<Option<Item<'a>>, Malformed> {
    let Some(mut object) = c.enter_object()? else {
        return Ok(None);
    };
    let mut item = Item::default();
    while let Some(key) = c.next_key(&mut object)? {
        if key.eq("id") {
            item.id = c.read_str()?;
        } else if key.eq("type") {
            item.kind = c.read_str()?;
        } else if key.eq("text") {
            item.text = c.read_str()?;
        } else if key.eq("command") {
            item.command = raw_string(c)?;
        } else if key.eq("query") {
            item.query = raw_string(c)?;
        } else if key.eq("aggregated_output") {
            item.output = c.read_str()?;
        } else if key.eq("exit_code") {
            item.exit_code = c.read_f64()?;
        } else if key.eq("status") {
            item.status = c.read_str()?;
        } else if key.eq("changes") {
            let raw = c.read_raw()?;
            item.change_list = read_changes(&mut Cursor::new(raw))?;
            item.changes = Some(raw);
        } else if key.eq("server") {
            item.server = c.read_str()?;
        } else if key.eq("tool") {
            item.tool = c.read_str()?;
        } else if key.eq("arguments") {
            item.arguments = Some(c.read_raw()?).filter(|raw| raw.first() == Some(&b'{'));
        } else if key.eq("result") {
            item.result_texts = read_mcp_result(c)?;
        } else if key.eq("error") {
            item.error = read_string_field(c, "message")?;
        } else if key.eq("message") {
            item.error = c.read_str()?;
        } else {
            c.skip()?;
        }
    }
    Ok(Some(item))
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
    let Some(mut array) = c.enter_array()? else {
        return Ok(changes);
    };
    while c.next_element(&mut array)? {
        let Some(mut change) = c.enter_object()? else {
            continue;
        };
        let (mut path, mut kind) = (None, None);
        while let Some(key) = c.next_key(&mut change)? {
            if key.eq("path") {
                path = c.read_str()?;
            } else if key.eq("kind") {
                kind = c.read_str()?;
            } else {
                c.skip()?;
            }
        }
        if let Some(path) = path {
            changes.push((path, kind));
        }
    }
    Ok(changes)
}

/// An MCP result's `content`: the `text` of its text blocks.
fn read_mcp_result<'a>(c: &mut Cursor<'a>) -> Result<Vec<JsonStr<'a>>, Malformed> {
    let mut texts = Vec::new();
    let Some(mut object) = c.enter_object()? else {
        return Ok(texts);
    };
    while let Some(key) = c.next_key(&mut object)? {
        if !key.eq("content") {
            c.skip()?;
            continue;
        }
        let Some(mut array) = c.enter_array()? else {
            continue;
        };
        while c.next_element(&mut array)? {
            if let Some(text) = read_string_field(c, "text")? {
                texts.push(text);
            }
        }
    }
    Ok(texts)
}

#[cfg(test)]
#[path = "codex_tests.rs"]
mod tests;
