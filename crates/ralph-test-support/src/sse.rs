//! Server-sent events as the wire renderers produce them: one `Event` is the bytes of one SSE
//! event, marked when it carries a content delta (faults count those).

use bytes::Bytes;
use serde_json::Value;

/// One SSE event, ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    pub bytes: Bytes,
    /// Whether it carries a text, thinking or tool-argument delta.
    pub is_delta: bool,
}

impl Event {
    /// `event: NAME` (when given) and `data: JSON`.
    pub(crate) fn json(name: Option<&str>, data: &Value) -> Self {
        let text = match name {
            Some(name) => format!("event: {name}\ndata: {data}\n\n"),
            None => format!("data: {data}\n\n"),
        };
        Self {
            bytes: Bytes::from(text),
            is_delta: false,
        }
    }

    /// `data: TEXT` for a non-JSON payload such as `[DONE]`.
    pub(crate) fn raw_data(text: &str) -> Self {
        Self {
            bytes: Bytes::from(format!("data: {text}\n\n")),
            is_delta: false,
        }
    }

    /// Marks the event as a content delta.
    pub(crate) fn delta(mut self) -> Self {
        self.is_delta = true;
        self
    }
}

/// Cuts `bytes` into pieces of at most `max` bytes, ignoring UTF-8 boundaries on purpose.
pub(crate) fn split_bytes(bytes: &Bytes, max: usize) -> Vec<Bytes> {
    let max = max.max(1);
    (0..bytes.len())
        .step_by(max)
        .map(|start| bytes.slice(start..(start + max).min(bytes.len())))
        .collect()
}
