//! The OpenAI Chat Completions wire, parsed back and compared whole.

mod common;

use common::{chat_body, post, thinking_text_shell};
use ralph_test_support::{MockServer, Script, Turn};
use serde_json::{Value, json};

/// Turn 0: thinking, text (17 characters: two deltas) and a shell call; turn 1: text.
fn sample_script() -> Script {
    Script::from_turns(vec![thinking_text_shell("echo hi"), Turn::text("Done.")])
}

fn chunk(seq: u64, delta: Value, finish: Value) -> Value {
    json!({"event": null, "data": {
        "id": format!("chatcmpl-mock-{seq}"), "object": "chat.completion.chunk",
        "created": 1_700_000_000, "model": "mock-model",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
    }})
}

#[test]
fn streams_thinking_text_and_tool_call_deltas_then_usage_and_done() {
    let server = MockServer::start(sample_script()).unwrap();
    let reply = post(
        &server,
        "/v1/chat/completions",
        &chat_body(json!([{"role": "user", "content": "go"}])),
    );
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("content-type"),
        Some("text/event-stream; charset=utf-8")
    );
    // Output: 4 + 17 + (21 + 20) characters = 62, so 15 tokens; turn 0 writes the cache.
    let usage = json!({"event": null, "data": {
        "id": "chatcmpl-mock-1", "object": "chat.completion.chunk", "created": 1_700_000_000,
        "model": "mock-model", "choices": [],
        "usage": {"prompt_tokens": 1500, "completion_tokens": 15, "total_tokens": 1515,
                  "prompt_tokens_details": {"cached_tokens": 500, "cache_write_tokens": 500}},
    }});
    let expected = vec![
        chunk(1, json!({"role": "assistant", "content": ""}), Value::Null),
        chunk(1, json!({"reasoning_content": "Hmm."}), Value::Null),
        chunk(1, json!({"content": "Hi there, fr"}), Value::Null),
        chunk(1, json!({"content": "iend!"}), Value::Null),
        chunk(
            1,
            json!({"tool_calls": [{"index": 0, "id": "call_mock_1_0", "type": "function",
                                   "function": {"name": "bash", "arguments": ""}}]}),
            Value::Null,
        ),
        chunk(
            1,
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"command\":\"echo"}}]}),
            Value::Null,
        ),
        chunk(
            1,
            json!({"tool_calls": [{"index": 0, "function": {"arguments": " hi\"}"}}]}),
            Value::Null,
        ),
        chunk(1, json!({}), json!("tool_calls")),
        usage,
        json!({"event": null, "data": "[DONE]"}),
    ];
    assert_eq!(reply.sse(), expected);
}

#[test]
fn sends_no_usage_chunk_unless_include_usage_is_asked() {
    let server = MockServer::start(Script::from_turns(vec![Turn::text("Done.")])).unwrap();
    let mut body = chat_body(json!([{"role": "user", "content": "go"}]));
    body.as_object_mut().unwrap().remove("stream_options");
    let events = post(&server, "/v1/chat/completions", &body).sse();
    let expected = vec![
        chunk(1, json!({"role": "assistant", "content": ""}), Value::Null),
        chunk(1, json!({"content": "Done."}), Value::Null),
        chunk(1, json!({}), json!("stop")),
        json!({"event": null, "data": "[DONE]"}),
    ];
    assert_eq!(events, expected);
}

#[test]
fn second_turn_follows_the_tool_result_and_reads_the_cache() {
    let server = MockServer::start(sample_script()).unwrap();
    let messages = json!([
        {"role": "system", "content": "You are pi."},
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "assistant", "content": "Hi", "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "bash", "arguments": "{\"command\":\"echo hi\"}"}}]},
        {"role": "tool", "content": "hi\n", "tool_call_id": "c1"},
    ]);
    let events = post(&server, "/v1/chat/completions", &chat_body(messages)).sse();
    let deltas = common::chat_deltas(&events);
    // "Done." is 5 characters: 1 token; turn 1: input 1000 + 200, cache read 4000.
    let expected = vec![
        json!({"role": "assistant", "content": ""}),
        json!({"content": "Done."}),
        json!({}),
        json!({"prompt_tokens": 5200, "completion_tokens": 1, "total_tokens": 5201,
               "prompt_tokens_details": {"cached_tokens": 4000, "cache_write_tokens": 0}}),
        json!("[DONE]"),
    ];
    assert_eq!(deltas, expected);
}

#[test]
fn answers_stream_false_with_one_chat_completion() {
    let server = MockServer::start(sample_script()).unwrap();
    let mut body = chat_body(json!([{"role": "user", "content": "go"}]));
    body["stream"] = json!(false);
    let reply = post(&server, "/chat/completions", &body);
    let expected = json!({
        "id": "chatcmpl-mock-1", "object": "chat.completion", "created": 1_700_000_000,
        "model": "mock-model",
        "choices": [{"index": 0, "logprobs": null, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "Hi there, friend!", "reasoning_content": "Hmm.",
            "tool_calls": [{"id": "call_mock_1_0", "type": "function",
                            "function": {"name": "bash", "arguments": "{\"command\":\"echo hi\"}"}}],
        }}],
        "usage": {"prompt_tokens": 1500, "completion_tokens": 15, "total_tokens": 1515,
                  "prompt_tokens_details": {"cached_tokens": 500, "cache_write_tokens": 500}},
    });
    assert_eq!((reply.status, reply.json()), (200, expected));
}

#[test]
fn unicode_deltas_reassemble_to_the_text_even_when_chunks_split_characters() {
    let text = "Grüße 👩\u{200d}💻 🇩🇪 e\u{301} 你好".repeat(3);
    let script = Script::from_turns(vec![Turn {
        deltas: Some(11),
        chunk_bytes: Some(3),
        ..Turn::text(text.clone())
    }]);
    let server = MockServer::start(script).unwrap();
    let reply = post(
        &server,
        "/v1/chat/completions",
        &chat_body(json!([{"role": "user", "content": "go"}])),
    );
    let pieces: Vec<String> = common::chat_deltas(&reply.sse())
        .iter()
        .filter_map(|delta| delta["content"].as_str().map(str::to_owned))
        .filter(|piece| !piece.is_empty())
        .collect();
    assert_eq!((pieces.len(), pieces.concat()), (11, text));
}
