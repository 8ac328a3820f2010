//! Events: what an agent publishes with `ralph emit` and what hats trigger on, and the
//! one-line JSON form they take in a run's inbox.
//!
//! An inbox line is a JSON object `{"topic": "...", "payload": ..., "ts": ..., "sender": ...}`
//! ended by `\n`. Only `topic` is required; `payload` is a string (`ralph emit t "text"`) or
//! any JSON value (`ralph emit t --json '{...}'`); `ts` (Unix milliseconds) is for people
//! reading the file and is ignored when reading, as are unknown keys, so a line written
//! by another tool (ralph-orchestrator writes `ts` as a string) still reads. `sender` is
//! the `RALPH_AGENT_RUN` token of the process that wrote the line (absent when it had
//! none: a person, or a line from before ralph recorded it): the loop credits an event to
//! the iteration's hat only when it came from that iteration's agent.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::topic::{TopicError, validate_topic};

/// Longest payload `ralph emit` accepts, in bytes. A payload is a hand-over note that
/// lands in the next prompt; anything bigger belongs in a file the note names.
pub const MAX_PAYLOAD_BYTES: usize = 64 * 1024;

/// Longest inbox line read. Longer than any line `ralph emit` writes (a payload at the
/// limit, JSON-escaped, fits), so only a line written by something else can exceed it.
pub const MAX_INBOX_LINE_BYTES: usize = 8 * MAX_PAYLOAD_BYTES;

/// Deepest nesting of arrays and objects a payload may have. An event is kept inside
/// other JSON (a line of `history.jsonl`, `state.json`'s pending events, a run event),
/// and JSON readers stop at a depth of their own (serde_json's is 128): a payload near
/// that would make the run's own files unreadable. Hand-over notes need a few levels.
pub const MAX_PAYLOAD_DEPTH: usize = 64;

/// One event on the bus.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub topic: String,
    /// A string, or any JSON value; `None` (`null`) when the event carries nothing.
    #[serde(default)]
    pub payload: Option<serde_json::Value>,
    /// The hat this event goes to when no hat triggers on its topic (ralph addresses
    /// `gate.failed` to the hat whose event a gate refused). Never read from the inbox:
    /// only ralph addresses events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

impl Event {
    /// An event without a payload.
    pub fn new(topic: impl Into<String>) -> Event {
        Event {
            topic: topic.into(),
            payload: None,
            to: None,
        }
    }

    /// An event with a text payload.
    pub fn with_text(topic: impl Into<String>, text: impl Into<String>) -> Event {
        Event {
            topic: topic.into(),
            payload: Some(serde_json::Value::String(text.into())),
            to: None,
        }
    }

    /// The payload as it is shown to an agent: text as written, other JSON compact.
    pub fn payload_text(&self) -> Option<String> {
        match &self.payload {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(other) => Some(other.to_string()),
        }
    }
}

/// The key of an inbox line that names who wrote it (see the module's documentation).
pub const SENDER_KEY: &str = "sender";

/// The inbox line for `event` emitted at `ts_ms` by `sender` (its `RALPH_AGENT_RUN`
/// token, when it has one), newline included.
pub fn encode_line(event: &Event, ts_ms: u64, sender: Option<&str>) -> String {
    #[derive(Serialize)]
    struct Line<'a> {
        topic: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        payload: Option<&'a serde_json::Value>,
        ts: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        sender: Option<&'a str>,
    }
    let line = Line {
        topic: &event.topic,
        payload: event.payload.as_ref(),
        ts: ts_ms,
        sender,
    };
    // A struct of strings, numbers and a `Value` always serializes.
    let mut text = serde_json::to_string(&line).unwrap_or_default();
    text.push('\n');
    text
}

/// Why an inbox line was not an event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InvalidLine {
    #[error("the line is not UTF-8")]
    NotUtf8,
    #[error("the line is not a JSON object: {message}")]
    NotJson { message: String },
    #[error("the line has no `topic` string")]
    NoTopic,
    #[error("invalid topic `{topic}`: {reason}")]
    BadTopic { topic: String, reason: String },
    #[error("the line is {len} bytes long, over the {MAX_INBOX_LINE_BYTES}-byte limit")]
    TooLong { len: u64 },
    #[error("the payload nests {depth} levels deep, over the limit of {MAX_PAYLOAD_DEPTH}")]
    TooDeep { depth: usize },
}

/// An event as read from the inbox, with who wrote it.
#[derive(Clone, Debug, PartialEq)]
pub struct Sent {
    pub event: Event,
    /// The `sender` of the line: the writer's `RALPH_AGENT_RUN` token; `None` when the
    /// line has none (or not as a string).
    pub sender: Option<String>,
}

/// Reads one inbox line (without its line ending). `None` for a blank line, which is
/// not an event and not an error either.
pub fn parse_line(line: &[u8]) -> Option<Result<Sent, InvalidLine>> {
    let Ok(text) = std::str::from_utf8(line) else {
        return Some(Err(InvalidLine::NotUtf8));
    };
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let mut object: serde_json::Map<String, serde_json::Value> = match serde_json::from_str(text) {
        Ok(object) => object,
        Err(e) => {
            return Some(Err(InvalidLine::NotJson {
                message: e.to_string(),
            }));
        }
    };
    let Some(serde_json::Value::String(topic)) = object.remove("topic") else {
        return Some(Err(InvalidLine::NoTopic));
    };
    if let Err(reason) = validate_topic(&topic) {
        return Some(Err(InvalidLine::BadTopic {
            topic,
            reason: reason.to_string(),
        }));
    }
    let payload = object.remove("payload").filter(|p| !p.is_null());
    if let Some(depth) = payload
        .as_ref()
        .map(depth)
        .filter(|&d| d > MAX_PAYLOAD_DEPTH)
    {
        return Some(Err(InvalidLine::TooDeep { depth }));
    }
    let sender = match object.remove(SENDER_KEY) {
        Some(serde_json::Value::String(sender)) => Some(sender),
        _ => None,
    };
    Some(Ok(Sent {
        event: Event {
            topic,
            payload,
            to: None,
        },
        sender,
    }))
}

/// Why `ralph emit` refuses an event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmitError {
    #[error("invalid topic `{topic}`: {reason}")]
    Topic { topic: String, reason: TopicError },
    #[error(
        "the payload is not valid JSON ({message}); drop --json to send it as text, or fix \
         the JSON (quote it for the shell: --json '{{\"key\": \"value\"}}')"
    )]
    Json { message: String },
    #[error(
        "the payload is {len} bytes, over the {MAX_PAYLOAD_BYTES}-byte limit: write the \
         details to a file and put its path in the payload"
    )]
    TooLarge { len: usize },
    #[error(
        "the --json payload holds the whole number {number}, too large to keep exactly (JSON \
         readers, ralph's included, round it): write it as a string, \"{number}\""
    )]
    InexactNumber { number: String },
    #[error(
        "the --json payload nests {depth} levels deep, over the limit of {MAX_PAYLOAD_DEPTH}: \
         flatten it, or write it to a file and put its path in the payload"
    )]
    TooDeep { depth: usize },
}

/// The event `ralph emit <topic> [payload] [--json]` stands for, checked.
pub fn event_from_args(topic: &str, payload: Option<&str>, json: bool) -> Result<Event, EmitError> {
    validate_topic(topic).map_err(|reason| EmitError::Topic {
        topic: topic.to_owned(),
        reason,
    })?;
    let payload = match payload {
        None => None,
        Some(p) if p.len() > MAX_PAYLOAD_BYTES => {
            return Err(EmitError::TooLarge { len: p.len() });
        }
        Some(p) if json => {
            let value =
                serde_json::from_str::<serde_json::Value>(p).map_err(|e| EmitError::Json {
                    message: e.to_string(),
                })?;
            if let Some(number) = inexact_integer(p) {
                return Err(EmitError::InexactNumber { number });
            }
            let depth = depth(&value);
            if depth > MAX_PAYLOAD_DEPTH {
                return Err(EmitError::TooDeep { depth });
            }
            Some(value)
        }
        Some(p) => Some(serde_json::Value::String(p.to_owned())),
    };
    Ok(Event {
        topic: topic.to_owned(),
        to: None,
        payload: payload.filter(|p| !p.is_null()),
    })
}

/// How deep `value` nests arrays and objects: 0 for a string or a number, 1 for `[]`.
/// (The value was parsed by serde_json, so it is at most 128 deep: recursing is safe.)
pub fn depth(value: &serde_json::Value) -> usize {
    let inner = match value {
        serde_json::Value::Array(items) => items.iter().map(depth).max(),
        serde_json::Value::Object(map) => map.values().map(depth).max(),
        _ => return 0,
    };
    1 + inner.unwrap_or(0)
}

/// The first whole-number literal of valid JSON `json` that no 64-bit integer holds:
/// parsing would turn it into a rounded float without a word.
fn inexact_integer(json: &str) -> Option<String> {
    let bytes = json.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                // Skip the string, escapes included (the text is valid JSON).
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                while i < bytes.len()
                    && matches!(bytes[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    i += 1;
                }
                let literal = &json[start..i];
                let whole = !literal.contains(['.', 'e', 'E']);
                if whole && literal.parse::<i64>().is_err() && literal.parse::<u64>().is_err() {
                    return Some(literal.to_owned());
                }
            }
            _ => i += 1,
        }
    }
    None
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.payload_text() {
            Some(payload) => write!(f, "{}: {payload}", self.topic),
            None => f.write_str(&self.topic),
        }
    }
}

#[cfg(test)]
#[path = "event_tests.rs"]
mod tests;
