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
use crate::event::Usage;
use crate::json::JsonStr;
use crate::json::Scratch;
use crate::json::Span;
use crate::parser::AgentParser;
use crate::parser::Emit;
use crate::parser::append;
use crate::parser::text_of;
use crate::parser::unknown_sub;
use crate::parser::wrap_raw;
use crate::pricing::Pricing;

mod fields;

use fields::Fields;
use fields::Item;
use fields::Kind;

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
}

impl AgentParser for CodexParser {
    fn scratch(&mut self) -> &mut Scratch {
        &mut self.scratch
    }

    fn on_event(&mut self, kind: Kind, f: &mut Fields<'_>, emit: &mut Emit<'_>) {
        match kind {
            Kind::ThreadStarted => emit(&AgentEvent::SessionStarted {
                session_id: f.thread_id.map(JsonStr::decode),
                model: None,
                provider: None,
            }),
            Kind::TurnCompleted => {
                // The usage sums every request of the turn: the run's totals, not one
                // model call's (a `turn_finished` would pass the sum off as the last
                // request's input, the context it read). No usage at all is unknown,
                // not free.
                emit(&AgentEvent::RunFinished {
                    is_error: false,
                    error: None,
                    turns: Some(1),
                    duration_ms: None,
                    totals: Some(match f.usage {
                        Some(tokens) => self.pricing.estimate(tokens, None),
                        None => Usage::default(),
                    }),
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
                if let Some(item) = &f.item {
                    self.on_item_started(item, emit);
                }
            }
            Kind::ItemCompleted => match &f.item {
                Some(item) => self.on_item_completed(item, emit),
                None => emit(&AgentEvent::Unknown {
                    event_type: "item.completed".into(),
                }),
            },
            // A to-do list's progress is all `item.updated` carries.
            Kind::TurnStarted | Kind::ItemUpdated => {}
        }
    }
}

impl CodexParser {
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
        match &*kind.name() {
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
            .is_some_and(|s| matches!(&*s.name(), b"failed" | b"declined"))
            || item.exit_code.is_some_and(|code| code != 0.0)
            || (tool == Tool::Mcp && item.error().is_some());
        let output = match tool {
            Tool::Command => item
                .output
                .map_or(Span::Line(""), |o| o.decode_into(&mut self.scratch)),
            Tool::FileChange => self.describe_changes(item),
            Tool::Mcp => match item.error() {
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
    match &*kind.name() {
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

#[cfg(test)]
mod tests;
