//! Google's Gemini API (generativelanguage v1beta), as Gemini CLI calls it:
//! `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` answered by SSE chunks of
//! `GenerateContentResponse` (one per text or thinking delta, a function call whole in one
//! chunk, `finishReason` and `usageMetadata` on the last), `:generateContent` by one such
//! object, errors by `{"error": {code, message, status}}`.

use serde_json::{Value, json};

use crate::reply::{Block, Reply, StopReason};
use crate::sse::Event;
use crate::usage::Usage;

fn response_id(reply: &Reply) -> String {
    format!("mock-response-{}", reply.seq)
}

fn finish_reason(stop: StopReason) -> &'static str {
    match stop {
        // Gemini ends a turn with function calls as `STOP` too.
        StopReason::EndTurn | StopReason::ToolUse => "STOP",
        StopReason::Length => "MAX_TOKENS",
    }
}

/// Gemini's counting: `promptTokenCount` is the whole prompt, cached part included;
/// `cachedContentTokenCount` the part read from the cache. There is no field for cache
/// writes, so they count as plain prompt tokens.
fn usage_json(usage: &Usage) -> Value {
    json!({
        "promptTokenCount": usage.prompt_total(),
        "cachedContentTokenCount": usage.cache_read,
        "candidatesTokenCount": usage.output,
        "totalTokenCount": usage.prompt_total() + usage.output,
    })
}

fn function_call(name: &str, input: &Value) -> Value {
    json!({"functionCall": {"name": name, "args": input}})
}

/// The complete parts of the answer.
fn parts(reply: &Reply) -> Vec<Value> {
    reply
        .blocks
        .iter()
        .map(|block| match block {
            Block::Thinking { text, .. } => json!({"text": text, "thought": true}),
            Block::Text { text, .. } => json!({"text": text}),
            Block::ToolCall { name, input, .. } => function_call(name, input),
        })
        .collect()
}

fn response(reply: &Reply, parts: Vec<Value>, last: bool) -> Value {
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    let mut response = json!({
        "candidates": [],
        "modelVersion": reply.model,
        "responseId": response_id(reply),
    });
    if last {
        candidate["finishReason"] = json!(finish_reason(reply.stop));
        response["usageMetadata"] = usage_json(&reply.usage);
    }
    response["candidates"] = json!([candidate]);
    response
}

/// The non-streaming answer (`:generateContent`).
pub(crate) fn json(reply: &Reply) -> Value {
    response(reply, parts(reply), true)
}

/// The SSE chunks of a complete streamed answer.
pub(crate) fn stream(reply: &Reply) -> Vec<Event> {
    let mut pieces: Vec<Value> = Vec::new();
    for block in &reply.blocks {
        match block {
            Block::Thinking { chunks, .. } => {
                pieces.extend(chunks.iter().map(|c| json!({"text": c, "thought": true})))
            }
            Block::Text { chunks, .. } => pieces.extend(chunks.iter().map(|c| json!({"text": c}))),
            Block::ToolCall { name, input, .. } => pieces.push(function_call(name, input)),
        }
    }
    if pieces.is_empty() {
        // A chunk must carry the finish reason and the usage even for an empty answer.
        pieces.push(json!({"text": ""}));
    }
    let count = pieces.len();
    pieces
        .into_iter()
        .enumerate()
        .map(|(index, part)| {
            Event::json(None, &response(reply, vec![part], index + 1 == count)).delta()
        })
        .collect()
}

/// The status word Google's APIs pair with an HTTP status.
fn status_word(status: u16) -> &'static str {
    match status {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        429 => "RESOURCE_EXHAUSTED",
        503 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        _ => "INTERNAL",
    }
}

/// A Google API error body.
pub(crate) fn error_body(status: u16, message: &str) -> Value {
    json!({"error": {"code": status, "message": message, "status": status_word(status)}})
}

/// An error in the middle of a stream: the error object as an SSE chunk.
pub(crate) fn error_event(message: &str) -> Event {
    Event::json(None, &error_body(500, message))
}
