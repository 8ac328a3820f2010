//! Anthropic Messages: the SSE sequence `message_start`, `ping`, per block
//! `content_block_start`/`_delta`/`_stop` (thinking with a signature, text, tool_use with
//! `input_json_delta`), `message_delta` with the stop reason and output tokens, `message_stop`;
//! the non-streaming message (Claude Code falls back to it after a mid-stream error); errors.

use serde_json::{Value, json};

use crate::reply::{Block, Reply, StopReason};
use crate::sse::Event;
use crate::usage::Usage;

/// The opaque signature of every thinking block (base64 of `mock-signature`).
const THINKING_SIGNATURE: &str = "bW9jay1zaWduYXR1cmU=";
/// `message_start` reports this many output tokens, as the real API does.
const START_OUTPUT_TOKENS: u64 = 1;

fn id(reply: &Reply) -> String {
    format!("msg_mock_{}", reply.seq)
}

fn tool_id(reply: &Reply, index: usize) -> String {
    format!("toolu_mock_{}_{index}", reply.seq)
}

fn stop_reason(stop: StopReason) -> &'static str {
    match stop {
        StopReason::EndTurn => "end_turn",
        StopReason::ToolUse => "tool_use",
        StopReason::Length => "max_tokens",
    }
}

fn usage_json(usage: &Usage, output: u64) -> Value {
    json!({
        "input_tokens": usage.input,
        "output_tokens": output,
        "cache_read_input_tokens": usage.cache_read,
        "cache_creation_input_tokens": usage.cache_write,
    })
}

/// The SSE events of a complete streamed answer.
pub(crate) fn stream(reply: &Reply) -> Vec<Event> {
    let event = |name: &str, data: Value| Event::json(Some(name), &data);
    let mut events = vec![
        event(
            "message_start",
            json!({"type": "message_start", "message": {
                "id": id(reply), "type": "message", "role": "assistant", "model": reply.model,
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": usage_json(&reply.usage, START_OUTPUT_TOKENS),
            }}),
        ),
        event("ping", json!({"type": "ping"})),
    ];
    let mut tool_index = 0;
    for (index, block) in reply.blocks.iter().enumerate() {
        let start = |content_block: Value| {
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": index, "content_block": content_block}),
            )
        };
        let delta = |delta: Value| {
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            )
        };
        match block {
            Block::Thinking { chunks, .. } => {
                events.push(start(
                    json!({"type": "thinking", "thinking": "", "signature": ""}),
                ));
                events.extend(
                    chunks
                        .iter()
                        .map(|c| delta(json!({"type": "thinking_delta", "thinking": c})).delta()),
                );
                events.push(delta(
                    json!({"type": "signature_delta", "signature": THINKING_SIGNATURE}),
                ));
            }
            Block::Text { chunks, .. } => {
                events.push(start(json!({"type": "text", "text": ""})));
                events.extend(
                    chunks
                        .iter()
                        .map(|c| delta(json!({"type": "text_delta", "text": c})).delta()),
                );
            }
            Block::ToolCall { name, chunks, .. } => {
                events.push(start(json!({
                    "type": "tool_use", "id": tool_id(reply, tool_index), "name": name, "input": {},
                })));
                events.extend(chunks.iter().map(|c| {
                    delta(json!({"type": "input_json_delta", "partial_json": c})).delta()
                }));
                tool_index += 1;
            }
        }
        events.push(event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    events.push(event(
        "message_delta",
        json!({"type": "message_delta",
               "delta": {"stop_reason": stop_reason(reply.stop), "stop_sequence": null},
               "usage": {"output_tokens": reply.usage.output}}),
    ));
    events.push(event("message_stop", json!({"type": "message_stop"})));
    events
}

/// The `error` event of a failure in the middle of the stream.
pub(crate) fn error_event(message: &str) -> Event {
    Event::json(
        Some("error"),
        &json!({"type": "error", "error": {"type": "overloaded_error", "message": message}}),
    )
}

/// The non-streaming answer.
pub(crate) fn json(reply: &Reply) -> Value {
    let mut tool_index = 0;
    let content: Vec<Value> = reply
        .blocks
        .iter()
        .map(|block| match block {
            Block::Thinking { text, .. } => {
                json!({"type": "thinking", "thinking": text, "signature": THINKING_SIGNATURE})
            }
            Block::Text { text, .. } => json!({"type": "text", "text": text}),
            Block::ToolCall { name, input, .. } => {
                let id = tool_id(reply, tool_index);
                tool_index += 1;
                json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
        })
        .collect();
    json!({
        "id": id(reply), "type": "message", "role": "assistant", "model": reply.model,
        "content": content, "stop_reason": stop_reason(reply.stop), "stop_sequence": null,
        "usage": usage_json(&reply.usage, reply.usage.output),
    })
}

/// An Anthropic-style error body.
pub(crate) fn error_body(status: u16, message: &str) -> Value {
    let kind = match status {
        400 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        503 | 529 => "overloaded_error",
        _ => "api_error",
    };
    json!({"type": "error", "error": {"type": kind, "message": message}})
}
