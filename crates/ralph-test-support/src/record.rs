//! The request log: every request the server received (except its own `/__log` and `/__reset`),
//! with what the mock decided to answer, so tests can assert what an agent sent.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conversation::Wire;

/// One request as received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequest {
    /// 1-based arrival order; ids in the answer are derived from it.
    pub seq: u64,
    /// `GET`, `POST`, `HEAD`, …
    pub method: String,
    /// Path and query, e.g. `/v1/messages?beta=true`.
    pub path: String,
    /// Request headers, names lower-cased, without `host`, `content-length` and `connection`.
    pub headers: BTreeMap<String, String>,
    /// The body as JSON; `None` when empty or not JSON.
    pub body: Option<Value>,
    /// For model requests: how the mock answered.
    pub routed: Option<Routed>,
}

impl RecordedRequest {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }
}

/// How a model request was answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Routed {
    /// The wire format.
    pub wire: Wire,
    /// The scenario played; `None` for side requests and for requests no scenario matched.
    pub scenario: Option<String>,
    /// The turn of the scenario (assistant turns already in the conversation).
    pub turn: usize,
    /// 0-based attempt at this turn of this conversation.
    pub attempt: u32,
    /// What was sent.
    pub outcome: ReplyOutcome,
}

/// What the mock sent back to a model request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ReplyOutcome {
    /// A complete SSE stream.
    Streamed,
    /// A complete non-streaming JSON answer.
    Json,
    /// An HTTP error status (fault).
    HttpError {
        /// The status.
        status: u16,
    },
    /// A stream cut after some deltas (fault).
    Dropped,
    /// A stream with an SSE error event (fault).
    SseError,
    /// `200 OK` with a web page instead of the answer (fault).
    HtmlPage,
    /// The scenario has no turn this late; a fixed text was sent.
    Exhausted,
    /// A request offering no tools (title, summary…); the side text was sent.
    Side,
    /// A `[[scenario:NAME]]` marker or route named an unknown scenario, or nothing matched and
    /// there is no default; a text saying so was sent.
    Unrouted,
}
