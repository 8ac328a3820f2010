//! `ralph inspect` on ralph's own `--output json` capture (or a run's
//! `run-events.jsonl`): where each attempt at an iteration starts (its
//! `iteration_started`), and the agent events nested in its `agent` lines, read back into
//! the normalized events the summary and the views take (docs/events.md is their form).

use std::borrow::Cow;

use ralph_core::run_event::MAX_RECORD_LINE_BYTES;
use ralph_stream::{AgentEvent, CostKind, Frame, LineFramer, Phase, Stop, Tokens, Usage};
use serde_json::Value;

/// The line types that only ralph's run events have: a stream whose first line is one
/// of them is a ralph capture, not an agent's.
const RUN_EVENT_TYPES: &[&str] = &["loop_started", "iteration_started", "agent"];

/// Whether `first_line` starts a ralph capture.
pub(super) fn is_capture(first_line: &[u8]) -> bool {
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(first_line) else {
        return false;
    };
    let Some(Value::String(kind)) = map.get("type") else {
        return false;
    };
    RUN_EVENT_TYPES.contains(&kind.as_str()) && (kind != "agent" || map.contains_key("event"))
}

/// One line of a capture.
enum Line {
    /// An agent event of `iteration`.
    Agent {
        iteration: u32,
        event: Box<AgentEvent<'static>>,
    },
    /// An attempt at an iteration started with this hat and backend (`iteration` and
    /// `attempt` as the line gives them: a capture from before `attempt` has none).
    Started {
        iteration: Option<u32>,
        attempt: Option<u32>,
        hat_name: Option<String>,
        backend: String,
    },
    /// Another run event, or a line that is none.
    Other,
}

fn line(bytes: &[u8]) -> Line {
    let Ok(line @ Value::Object(_)) = serde_json::from_slice::<Value>(bytes) else {
        return Line::Other;
    };
    match line.get("type").and_then(Value::as_str) {
        Some("agent") => match line.get("event").and_then(agent_event) {
            Some(event) => Line::Agent {
                iteration: number(&line, "iteration").unwrap_or(0),
                event: Box::new(event),
            },
            None => Line::Other,
        },
        Some("iteration_started") => match line.get("backend").and_then(Value::as_str) {
            Some(backend) => Line::Started {
                iteration: number(&line, "iteration"),
                attempt: number(&line, "attempt"),
                hat_name: text(&line, "hat_name")
                    .or_else(|| text(&line, "hat"))
                    .map(Cow::into_owned),
                backend: backend.to_owned(),
            },
            None => Line::Other,
        },
        _ => Line::Other,
    }
}

fn text(v: &Value, key: &str) -> Option<Cow<'static, str>> {
    v.get(key)
        .and_then(Value::as_str)
        .map(|s| Cow::Owned(s.to_owned()))
}

fn text_or_empty(v: &Value, key: &str) -> Cow<'static, str> {
    text(v, key).unwrap_or(Cow::Borrowed(""))
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn number<T: TryFrom<u64>>(v: &Value, key: &str) -> Option<T> {
    v.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| T::try_from(n).ok())
}

fn usage(v: &Value) -> Usage<'static> {
    let tokens = v
        .get("tokens")
        .and_then(|t| serde_json::from_value::<Tokens>(t.clone()).ok())
        .unwrap_or_default();
    let cost_kind = v
        .get("cost_kind")
        .and_then(|k| serde_json::from_value::<CostKind>(k.clone()).ok())
        .unwrap_or_default();
    Usage {
        tokens,
        cost_usd: v.get("cost_usd").and_then(Value::as_f64),
        cost_kind,
        model: text(v, "model"),
    }
}

fn stop(v: &Value) -> Stop {
    match v.get("stop").and_then(Value::as_str) {
        Some("completed") => Stop::Completed,
        Some("tool_use") => Stop::ToolUse,
        Some("length") => Stop::Length,
        Some("error") => Stop::Error,
        Some("aborted") => Stop::Aborted,
        _ => Stop::Other,
    }
}

/// The normalized event `v` is the JSON form of, if it is one.
fn agent_event(v: &Value) -> Option<AgentEvent<'static>> {
    Some(match v.get("type")?.as_str()? {
        "session_started" => AgentEvent::SessionStarted {
            session_id: text(v, "session_id"),
            model: text(v, "model"),
            provider: text(v, "provider"),
        },
        "text_delta" => AgentEvent::TextDelta {
            text: text_or_empty(v, "text"),
        },
        "thinking_delta" => AgentEvent::ThinkingDelta {
            text: text_or_empty(v, "text"),
        },
        "tool_call_started" => AgentEvent::ToolCallStarted {
            id: text_or_empty(v, "id"),
            name: text_or_empty(v, "name"),
            // The args were raw JSON, printed as JSON: back to their text.
            args: Cow::Owned(match v.get("args") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            }),
            parent_id: text(v, "parent_id"),
        },
        "tool_call_finished" => AgentEvent::ToolCallFinished {
            id: text_or_empty(v, "id"),
            name: text(v, "name"),
            output: text_or_empty(v, "output"),
            is_error: flag(v, "is_error"),
        },
        "message_finished" => AgentEvent::MessageFinished {
            text: text_or_empty(v, "text"),
            stop: stop(v),
            error: text(v, "error"),
        },
        "turn_finished" => AgentEvent::TurnFinished {
            usage: usage(v.get("usage")?),
            is_error: flag(v, "is_error"),
        },
        "retry_started" => AgentEvent::RetryStarted {
            attempt: number(v, "attempt"),
            max_attempts: number(v, "max_attempts"),
            delay_ms: number(v, "delay_ms"),
            error: text(v, "error"),
        },
        "retry_finished" => AgentEvent::RetryFinished {
            success: flag(v, "success"),
            attempt: number(v, "attempt"),
            error: text(v, "error"),
        },
        "compaction" => AgentEvent::Compaction {
            phase: if v.get("phase").and_then(Value::as_str) == Some("finished") {
                Phase::Finished
            } else {
                Phase::Started
            },
            reason: text(v, "reason"),
            error: text(v, "error"),
        },
        "rate_limit" => AgentEvent::RateLimit {
            status: text(v, "status"),
            resets_at: number(v, "resets_at"),
        },
        "run_finished" => AgentEvent::RunFinished {
            is_error: flag(v, "is_error"),
            error: text(v, "error"),
            turns: number(v, "turns"),
            duration_ms: number(v, "duration_ms"),
            totals: v.get("totals").filter(|t| !t.is_null()).map(usage),
        },
        "user_message" => AgentEvent::UserMessage {
            text: text_or_empty(v, "text"),
        },
        "non_json" => AgentEvent::NonJson {
            line: text_or_empty(v, "line"),
        },
        "unknown" => AgentEvent::Unknown {
            event_type: text_or_empty(v, "event_type"),
        },
        "oversize_line" => AgentEvent::OversizeLine {
            len: number(v, "len").unwrap_or(0),
        },
        _ => return None,
    })
}

/// An attempt at an iteration of a capture begins (its `iteration_started`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Start {
    pub(super) iteration: u32,
    pub(super) attempt: u32,
    pub(super) hat_name: Option<String>,
    pub(super) backend: String,
}

/// What a [`Capture`] hands over, in the capture's order.
pub(super) enum Item<'a> {
    /// An attempt whose events are asked for begins.
    Start(&'a Start),
    /// One of its agent's events.
    Event(&'a AgentEvent<'a>),
}

/// Reads a ralph capture line by line, handing over the attempts that begin and their
/// agent events (of one iteration, or one attempt at it, when asked).
pub(super) struct Capture {
    iteration: Option<u32>,
    attempt: Option<u32>,
    /// Lines over [`MAX_RECORD_LINE_BYTES`] are skipped unheld: the capture is a file the
    /// agent can write into too.
    framer: LineFramer,
    /// The backend of the (first) attempt read.
    pub(super) backend: Option<String>,
    /// The iteration and attempt the last `iteration_started` started: the agent lines
    /// after it are that attempt's.
    started: (u32, u32),
    pub(super) lines: u64,
    pub(super) events: u64,
}

impl Capture {
    pub(super) fn new(iteration: Option<u32>, attempt: Option<u32>) -> Capture {
        Capture {
            iteration,
            attempt,
            framer: LineFramer::new(MAX_RECORD_LINE_BYTES),
            backend: None,
            started: (0, 1),
            lines: 0,
            events: 0,
        }
    }

    /// A capture that skips lines longer than `max_line` bytes.
    #[cfg(test)]
    fn with_max_line(max_line: usize) -> Capture {
        Capture {
            framer: LineFramer::new(max_line),
            ..Capture::new(None, None)
        }
    }

    /// Whether the events of `iteration`'s attempt `attempt` are asked for.
    fn wanted(&self, iteration: u32, attempt: u32) -> bool {
        self.iteration.is_none_or(|n| n == iteration) && self.attempt.is_none_or(|k| k == attempt)
    }

    pub(super) fn feed(&mut self, bytes: &[u8], on_item: &mut impl FnMut(Item<'_>)) {
        let mut framer = std::mem::replace(&mut self.framer, LineFramer::new(0));
        framer.push(bytes, |frame| self.frame(frame, on_item));
        self.framer = framer;
    }

    pub(super) fn finish(&mut self, on_item: &mut impl FnMut(Item<'_>)) {
        let mut framer = std::mem::replace(&mut self.framer, LineFramer::new(0));
        framer.finish(|frame| self.frame(frame, on_item));
        self.framer = framer;
    }

    fn frame(&mut self, frame: Frame<'_>, on_item: &mut impl FnMut(Item<'_>)) {
        match frame {
            Frame::Line(line) => self.line(line, on_item),
            // Longer than any line ralph writes: not a run event (as a line that is not
            // JSON is not), and never held.
            Frame::Oversize(_) => self.lines += 1,
        }
    }

    fn line(&mut self, bytes: &[u8], on_item: &mut impl FnMut(Item<'_>)) {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        self.lines += 1;
        match line(bytes) {
            Line::Started {
                iteration,
                attempt,
                hat_name,
                backend,
            } => {
                // A capture from before `iteration_started` said its attempt: the first.
                let start = Start {
                    iteration: iteration.unwrap_or(self.started.0.saturating_add(1)),
                    attempt: attempt.unwrap_or(1),
                    hat_name,
                    backend,
                };
                self.started = (start.iteration, start.attempt);
                if self.wanted(start.iteration, start.attempt) {
                    on_item(Item::Start(&start));
                    self.backend.get_or_insert(start.backend);
                }
            }
            Line::Agent { iteration, event } => {
                // An agent line belongs to the attempt started last at its iteration.
                let attempt = if self.started.0 == iteration {
                    self.started.1
                } else {
                    1
                };
                if self.wanted(iteration, attempt) {
                    self.events += 1;
                    on_item(Item::Event(&event));
                }
            }
            Line::Other => {}
        }
    }
}

#[cfg(test)]
#[path = "inspect_capture_tests.rs"]
mod tests;
