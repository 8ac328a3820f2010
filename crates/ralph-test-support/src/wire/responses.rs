//! OpenAI Responses (Codex): `response.created`, `response.in_progress`, per output item
//! `response.output_item.added` … `.done` (reasoning summaries, `output_text` messages,
//! `function_call`s with argument deltas), then `response.completed` with usage (or
//! `response.incomplete` at the token limit); every event carries a `sequence_number`.

use serde_json::{Value, json};

use crate::reply::{Block, Reply, StopReason};
use crate::sse::Event;
use crate::usage::Usage;

use super::MOCK_CREATED;

fn id(reply: &Reply) -> String {
    format!("resp_mock_{}", reply.seq)
}

/// Real OpenAI semantics: `input_tokens` counts everything, `cached_tokens` the cache reads;
/// there is no field for cache writes, so they count as plain input.
fn usage_json(usage: &Usage) -> Value {
    json!({
        "input_tokens": usage.prompt_total(),
        "input_tokens_details": {"cached_tokens": usage.cache_read},
        "output_tokens": usage.output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.prompt_total() + usage.output,
    })
}

fn base(reply: &Reply, status: &str) -> Value {
    json!({"id": id(reply), "object": "response", "created_at": MOCK_CREATED,
           "model": reply.model, "output": [], "status": status, "usage": null})
}

/// The complete output items.
fn output_items(reply: &Reply) -> Vec<Value> {
    let mut calls = 0;
    reply
        .blocks
        .iter()
        .enumerate()
        .map(|(index, block)| match block {
            Block::Thinking { text, .. } => json!({
                "type": "reasoning", "id": format!("rs_mock_{}_{index}", reply.seq),
                "summary": [{"type": "summary_text", "text": text}],
            }),
            Block::Text { text, .. } => json!({
                "type": "message", "id": format!("msg_mock_{}_{index}", reply.seq),
                "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }),
            Block::ToolCall {
                name, arguments, ..
            } => {
                calls += 1;
                json!({
                    "type": "function_call", "id": format!("fc_mock_{}_{index}", reply.seq),
                    "call_id": format!("call_mock_{}_{}", reply.seq, calls - 1),
                    "name": name, "arguments": arguments, "status": "completed",
                })
            }
        })
        .collect()
}

/// The final response object.
pub(crate) fn json(reply: &Reply) -> Value {
    let mut response = base(reply, "completed");
    response["output"] = Value::Array(output_items(reply));
    response["usage"] = usage_json(&reply.usage);
    if reply.stop == StopReason::Length {
        response["status"] = json!("incomplete");
        response["incomplete_details"] = json!({"reason": "max_output_tokens"});
    }
    response
}

/// The SSE events of a complete streamed answer.
pub(crate) fn stream(reply: &Reply) -> Vec<Event> {
    let mut events = Vec::new();
    let mut push = |kind: &str, mut data: Value, is_delta: bool| {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(events.len());
        let event = Event::json(Some(kind), &data);
        events.push(if is_delta { event.delta() } else { event });
    };
    push(
        "response.created",
        json!({"response": base(reply, "in_progress")}),
        false,
    );
    push(
        "response.in_progress",
        json!({"response": base(reply, "in_progress")}),
        false,
    );
    for (index, (block, item)) in reply.blocks.iter().zip(output_items(reply)).enumerate() {
        let item_id = item["id"].clone();
        let at = |extra: Value| {
            let mut data = json!({"item_id": item_id, "output_index": index});
            if let (Some(data), Value::Object(extra)) = (data.as_object_mut(), extra) {
                data.extend(extra);
            }
            data
        };
        match block {
            Block::Thinking { text, chunks } => {
                let mut added = item.clone();
                added["summary"] = json!([]);
                push(
                    "response.output_item.added",
                    json!({"output_index": index, "item": added}),
                    false,
                );
                let part = |text: &str| json!({"type": "summary_text", "text": text});
                push(
                    "response.reasoning_summary_part.added",
                    at(json!({"summary_index": 0, "part": part("")})),
                    false,
                );
                for chunk in chunks {
                    push(
                        "response.reasoning_summary_text.delta",
                        at(json!({"summary_index": 0, "delta": chunk})),
                        true,
                    );
                }
                push(
                    "response.reasoning_summary_text.done",
                    at(json!({"summary_index": 0, "text": text})),
                    false,
                );
                push(
                    "response.reasoning_summary_part.done",
                    at(json!({"summary_index": 0, "part": part(text)})),
                    false,
                );
            }
            Block::Text { text, chunks } => {
                let mut added = item.clone();
                added["status"] = json!("in_progress");
                added["content"] = json!([]);
                push(
                    "response.output_item.added",
                    json!({"output_index": index, "item": added}),
                    false,
                );
                let part =
                    |text: &str| json!({"type": "output_text", "text": text, "annotations": []});
                push(
                    "response.content_part.added",
                    at(json!({"content_index": 0, "part": part("")})),
                    false,
                );
                for chunk in chunks {
                    push(
                        "response.output_text.delta",
                        at(json!({"content_index": 0, "delta": chunk})),
                        true,
                    );
                }
                push(
                    "response.output_text.done",
                    at(json!({"content_index": 0, "text": text})),
                    false,
                );
                push(
                    "response.content_part.done",
                    at(json!({"content_index": 0, "part": part(text)})),
                    false,
                );
            }
            Block::ToolCall {
                arguments, chunks, ..
            } => {
                let mut added = item.clone();
                added["status"] = json!("in_progress");
                added["arguments"] = json!("");
                push(
                    "response.output_item.added",
                    json!({"output_index": index, "item": added}),
                    false,
                );
                for chunk in chunks {
                    push(
                        "response.function_call_arguments.delta",
                        at(json!({"delta": chunk})),
                        true,
                    );
                }
                push(
                    "response.function_call_arguments.done",
                    at(json!({"arguments": arguments})),
                    false,
                );
            }
        }
        push(
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
            false,
        );
    }
    let done = match reply.stop {
        StopReason::Length => "response.incomplete",
        StopReason::EndTurn | StopReason::ToolUse => "response.completed",
    };
    push(done, json!({"response": json(reply)}), false);
    events
}

/// `response.failed`, the Responses API's failure in the middle of the stream; it is event
/// number `sequence_number` of its stream.
pub(crate) fn error_event(reply: &Reply, message: &str, sequence_number: usize) -> Event {
    let mut response = base(reply, "failed");
    response["error"] = json!({"code": "server_error", "message": message});
    Event::json(
        Some("response.failed"),
        &json!({"type": "response.failed", "sequence_number": sequence_number, "response": response}),
    )
}
