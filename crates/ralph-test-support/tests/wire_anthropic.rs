//! The Anthropic Messages wire and the probes Claude Code sends, parsed back and compared whole.

mod common;

use common::{anthropic_body, get, head, post, thinking_text_shell};
use ralph_test_support::{MockServer, ReplyOutcome, Script, Turn, Wire};
use serde_json::{Value, json};

fn sample_script() -> Script {
    Script::from_turns(vec![thinking_text_shell("echo hi")])
}

fn event(name: &str, data: Value) -> Value {
    json!({"event": name, "data": data})
}

fn delta(index: usize, delta: Value) -> Value {
    event(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": index, "delta": delta}),
    )
}

fn block_stop(index: usize) -> Value {
    event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": index}),
    )
}

#[test]
fn streams_message_events_with_thinking_text_and_tool_use_blocks() {
    let server = MockServer::start(sample_script()).unwrap();
    let reply = post(
        &server,
        "/v1/messages?beta=true",
        &anthropic_body(json!([{"role": "user", "content": "go"}])),
    );
    assert_eq!(reply.status, 200);
    // Claude's Bash tool gets a description; the arguments JSON is 62 characters.
    let args = r#"{"command":"echo hi","description":"Run the scripted command"}"#;
    let expected = vec![
        event(
            "message_start",
            json!({"type": "message_start", "message": {
                "id": "msg_mock_1", "type": "message", "role": "assistant", "model": "claude-test",
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 1000, "output_tokens": 1,
                          "cache_read_input_tokens": 0, "cache_creation_input_tokens": 500},
            }}),
        ),
        event("ping", json!({"type": "ping"})),
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        ),
        delta(0, json!({"type": "thinking_delta", "thinking": "Hmm."})),
        delta(
            0,
            json!({"type": "signature_delta", "signature": "bW9jay1zaWduYXR1cmU="}),
        ),
        block_stop(0),
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 1,
            "content_block": {"type": "text", "text": ""}}),
        ),
        delta(1, json!({"type": "text_delta", "text": "Hi there, fr"})),
        delta(1, json!({"type": "text_delta", "text": "iend!"})),
        block_stop(1),
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 2,
            "content_block": {"type": "tool_use", "id": "toolu_mock_1_0", "name": "Bash", "input": {}}}),
        ),
        delta(
            2,
            json!({"type": "input_json_delta", "partial_json": &args[..16]}),
        ),
        delta(
            2,
            json!({"type": "input_json_delta", "partial_json": &args[16..32]}),
        ),
        delta(
            2,
            json!({"type": "input_json_delta", "partial_json": &args[32..48]}),
        ),
        delta(
            2,
            json!({"type": "input_json_delta", "partial_json": &args[48..]}),
        ),
        block_stop(2),
        // 4 + 17 + (62 + 20) = 103 characters: 25 output tokens.
        event(
            "message_delta",
            json!({"type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": null},
            "usage": {"output_tokens": 25}}),
        ),
        event("message_stop", json!({"type": "message_stop"})),
    ];
    assert_eq!(reply.sse(), expected);
    let recorded = server.requests();
    assert_eq!(
        (
            recorded.len(),
            recorded[0].path.as_str(),
            recorded[0].routed.as_ref().map(|r| r.wire)
        ),
        (1, "/v1/messages?beta=true", Some(Wire::AnthropicMessages))
    );
}

#[test]
fn answers_stream_false_with_one_message() {
    let server = MockServer::start(sample_script()).unwrap();
    let mut body = anthropic_body(json!([{"role": "user", "content": "go"}]));
    body["stream"] = json!(false);
    let reply = post(&server, "/v1/messages", &body);
    let expected = json!({
        "id": "msg_mock_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [
            {"type": "thinking", "thinking": "Hmm.", "signature": "bW9jay1zaWduYXR1cmU="},
            {"type": "text", "text": "Hi there, friend!"},
            {"type": "tool_use", "id": "toolu_mock_1_0", "name": "Bash",
             "input": {"command": "echo hi", "description": "Run the scripted command"}},
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 1000, "output_tokens": 25,
                  "cache_read_input_tokens": 0, "cache_creation_input_tokens": 500},
    });
    assert_eq!((reply.status, reply.json()), (200, expected));
    let outcome = server.requests()[0]
        .routed
        .clone()
        .map(|routed| routed.outcome);
    assert_eq!(outcome, Some(ReplyOutcome::Json));
}

#[test]
fn answers_probes_token_counts_and_the_model_list() {
    let server = MockServer::start(sample_script()).unwrap();
    let statuses = [
        head(&server, "/").status,
        head(&server, "/api/hello").status,
        get(&server, "/health").status,
    ];
    assert_eq!(statuses, [200, 200, 200]);
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "count me"}]});
    let counted = post(&server, "/v1/messages/count_tokens?beta=true", &body).json();
    assert_eq!(counted, json!({"input_tokens": body.to_string().len() / 4}));
    let models = get(&server, "/v1/models").json();
    let ids: Vec<&str> = models["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|model| model["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        (
            ids.first().copied(),
            ids.contains(&"main"),
            ids.contains(&"flaky")
        ),
        (Some("mock-model"), true, true)
    );
    assert_eq!(
        get(&server, "/v1/models/claude-x").json()["id"],
        json!("claude-x")
    );
    let log: Vec<(String, String)> = server
        .requests()
        .iter()
        .map(|request| (request.method.clone(), request.path.clone()))
        .collect();
    let expected: Vec<(String, String)> = [
        ("HEAD", "/"),
        ("HEAD", "/api/hello"),
        ("GET", "/health"),
        ("POST", "/v1/messages/count_tokens?beta=true"),
        ("GET", "/v1/models"),
        ("GET", "/v1/models/claude-x"),
    ]
    .iter()
    .map(|(m, p)| ((*m).to_owned(), (*p).to_owned()))
    .collect();
    assert_eq!(log, expected);
}

#[test]
fn a_user_message_with_a_tool_result_and_reminders_is_not_a_new_prompt() {
    let script = Script::from_turns(vec![
        Turn::shell("echo hi"),
        Turn::text("Saw {{last_tool_result}}."),
    ]);
    let server = MockServer::start(script).unwrap();
    let messages = json!([
        {"role": "user", "content": [{"type": "text", "text": "<system-reminder>x</system-reminder>"},
                                     {"type": "text", "text": "go"}]},
        {"role": "system", "content": [{"type": "text", "text": "Primary working directory: /w"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": " hi \n"}]},
            {"type": "text", "text": "<system-reminder>y</system-reminder>"}]},
    ]);
    let mut body = anthropic_body(messages);
    body["stream"] = json!(false);
    let reply = post(&server, "/v1/messages", &body).json();
    assert_eq!(
        (reply["content"].clone(), reply["stop_reason"].clone()),
        (
            json!([{"type": "text", "text": "Saw hi."}]),
            json!("end_turn")
        )
    );
}
