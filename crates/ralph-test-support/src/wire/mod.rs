//! The wire formats behind one interface: a reply becomes SSE events (cut short by a
//! stream fault), a non-streaming JSON body, or an error body.

mod anthropic;
mod chat;
mod gemini;
mod responses;

use serde_json::Value;

use crate::conversation::Wire;
use crate::reply::Reply;
use crate::sse::Event;

/// The `created` timestamp of every answer: fixed, so answers are reproducible.
pub(crate) const MOCK_CREATED: u64 = 1_700_000_000;

/// A failure in the middle of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamFault<'a> {
    /// Cut the connection after this many content deltas.
    Drop { after_deltas: usize },
    /// Send the wire's error event after this many content deltas, then end the body.
    SseError {
        after_deltas: usize,
        message: &'a str,
    },
}

/// How a planned stream ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamEnd {
    /// The body ends normally.
    Complete,
    /// The connection is cut: no terminating chunk.
    Cut,
}

/// The events of a streamed answer, with or without a fault.
pub(crate) fn stream(
    wire: Wire,
    reply: &Reply,
    include_usage: bool,
    fault: Option<StreamFault<'_>>,
) -> (Vec<Event>, StreamEnd) {
    let events = match wire {
        Wire::ChatCompletions => chat::stream(reply, include_usage),
        Wire::AnthropicMessages => anthropic::stream(reply),
        Wire::Responses => responses::stream(reply),
        Wire::Gemini => gemini::stream(reply),
    };
    match fault {
        None => (events, StreamEnd::Complete),
        Some(StreamFault::Drop { after_deltas }) => {
            (before_delta(events, after_deltas), StreamEnd::Cut)
        }
        Some(StreamFault::SseError {
            after_deltas,
            message,
        }) => {
            let mut events = before_delta(events, after_deltas);
            events.push(match wire {
                Wire::ChatCompletions => chat::error_event(message),
                Wire::AnthropicMessages => anthropic::error_event(message),
                Wire::Responses => responses::error_event(reply, message, events.len()),
                Wire::Gemini => gemini::error_event(message),
            });
            (events, StreamEnd::Complete)
        }
    }
}

/// The events before delta number `deltas` (0-based): everything up to and including the
/// `deltas`-th delta, but not what follows it.
fn before_delta(events: Vec<Event>, deltas: usize) -> Vec<Event> {
    let mut seen = 0;
    events
        .into_iter()
        .take_while(|event| {
            if event.is_delta {
                seen += 1;
            }
            !(event.is_delta && seen > deltas)
        })
        .collect()
}

/// The non-streaming answer.
pub(crate) fn json(wire: Wire, reply: &Reply) -> Value {
    match wire {
        Wire::ChatCompletions => chat::json(reply),
        Wire::AnthropicMessages => anthropic::json(reply),
        Wire::Responses => responses::json(reply),
        Wire::Gemini => gemini::json(reply),
    }
}

/// The body of an HTTP error.
pub(crate) fn error_body(wire: Wire, status: u16, message: &str) -> Value {
    match wire {
        Wire::ChatCompletions | Wire::Responses => chat::error_body(status, message),
        Wire::AnthropicMessages => anthropic::error_body(status, message),
        Wire::Gemini => gemini::error_body(status, message),
    }
}
