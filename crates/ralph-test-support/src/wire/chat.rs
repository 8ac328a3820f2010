//! OpenAI Chat Completions: `chat.completion.chunk` SSE (reasoning as `reasoning_content`
//! deltas, tool calls as `tool_calls` deltas, a usage chunk when `stream_options.include_usage`
//! asks for it, then `[DONE]`), the non-streaming `chat.completion`, and error bodies.

use serde_json::{Value, json};

use crate::reply::{Block, Reply, StopReason};
use crate::sse::Event;
use crate::usage::Usage;

use super::MOCK_CREATED;

fn id(reply: &Reply) -> String {
    format!("chatcmpl-mock-{}", reply.seq)
}

fn call_id(reply: &Reply, index: usize) -> String {
    format!("call_mock_{}_{index}", reply.seq)
}

fn finish_reason(stop: StopReason) -> &'static str {
    match stop {
        StopReason::EndTurn => "stop",
        StopReason::ToolUse => "tool_calls",
        StopReason::Length => "length",
    }
}

/// pi's encoding (0.73): `cached_tokens` counts reads and writes, `cache_write_tokens` the
/// writes, and `prompt_tokens` everything.
fn usage_json(usage: &Usage) -> Value {
    json!({
        "prompt_tokens": usage.prompt_total(),
        "completion_tokens": usage.output,
        "total_tokens": usage.prompt_total() + usage.output,
        "prompt_tokens_details": {
            "cached_tokens": usage.cache_read + usage.cache_write,
            "cache_write_tokens": usage.cache_write,
        },
    })
}

/// The SSE events of a complete streamed answer.
pub(crate) fn stream(reply: &Reply, include_usage: bool) -> Vec<Event> {
    // Every chunk carries the same envelope; only its choices (and the last one's usage)
    // differ.
    let envelope = |choices: Value| {
        json!({
            "id": id(reply),
            "object": "chat.completion.chunk",
            "created": MOCK_CREATED,
            "model": reply.model,
            "choices": choices,
        })
    };
    let chunk = |delta: Value, finish: Option<&str>| {
        Event::json(
            None,
            &envelope(
                json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]),
            ),
        )
    };
    let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    let mut tool_index = 0;
    for block in &reply.blocks {
        match block {
            Block::Thinking { chunks, .. } => events.extend(
                chunks
                    .iter()
                    .map(|c| chunk(json!({"reasoning_content": c}), None).delta()),
            ),
            Block::Text { chunks, .. } => events.extend(
                chunks
                    .iter()
                    .map(|c| chunk(json!({"content": c}), None).delta()),
            ),
            Block::ToolCall { name, chunks, .. } => {
                events.push(chunk(
                    json!({"tool_calls": [{
                        "index": tool_index,
                        "id": call_id(reply, tool_index),
                        "type": "function",
                        "function": {"name": name, "arguments": ""},
                    }]}),
                    None,
                ));
                events.extend(chunks.iter().map(|c| {
                    chunk(
                        json!({"tool_calls": [{"index": tool_index, "function": {"arguments": c}}]}),
                        None,
                    )
                    .delta()
                }));
                tool_index += 1;
            }
        }
    }
    events.push(chunk(json!({}), Some(finish_reason(reply.stop))));
    if include_usage {
        let mut last = envelope(json!([]));
        last["usage"] = usage_json(&reply.usage);
        events.push(Event::json(None, &last));
    }
    events.push(Event::raw_data("[DONE]"));
    events
}

/// The error the OpenAI SDK raises when it meets it in the stream.
pub(crate) fn error_event(message: &str) -> Event {
    Event::json(None, &error_body(500, message))
}

/// The non-streaming answer.
pub(crate) fn json(reply: &Reply) -> Value {
    let mut message = json!({"role": "assistant", "content": null});
    let text = reply.text();
    if !text.is_empty() {
        message["content"] = json!(text);
    }
    let mut calls = Vec::new();
    for block in &reply.blocks {
        match block {
            Block::Thinking { text, .. } => message["reasoning_content"] = json!(text),
            Block::Text { .. } => {}
            Block::ToolCall {
                name, arguments, ..
            } => calls.push(json!({
                "id": call_id(reply, calls.len()),
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            })),
        }
    }
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    json!({
        "id": id(reply),
        "object": "chat.completion",
        "created": MOCK_CREATED,
        "model": reply.model,
        "choices": [{"index": 0, "message": message, "logprobs": null,
                     "finish_reason": finish_reason(reply.stop)}],
        "usage": usage_json(&reply.usage),
    })
}

/// An OpenAI-style error body (also used by the Responses API).
pub(crate) fn error_body(status: u16, message: &str) -> Value {
    let kind = match status {
        429 => "rate_limit_exceeded",
        500.. => "server_error",
        _ => "invalid_request_error",
    };
    json!({"error": {"message": message, "type": kind, "param": null, "code": null}})
}
