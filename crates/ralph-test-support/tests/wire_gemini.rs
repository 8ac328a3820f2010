//! The Gemini wire (Gemini CLI): `:streamGenerateContent?alt=sse` chunks, `:generateContent`,
//! `:countTokens`, errors, and side requests that want JSON of a schema, parsed back and
//! compared whole.

mod common;

use common::{cut_by_length, post, thinking_text_shell};
use ralph_test_support::{Fault, MockServer, ReplyOutcome, Script, Turn, Wire};
use serde_json::{Value, json};

const STREAM_PATH: &str = "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse";
const JSON_PATH: &str = "/v1beta/models/gemini-2.5-pro:generateContent";

/// A request as Gemini CLI shapes it: the conversation in `contents`, the tools declared.
fn gemini_body(contents: Value) -> Value {
    json!({
        "contents": contents,
        "systemInstruction": {"role": "user", "parts": [{"text":
            "You are Gemini CLI.\n- **Workspace Directories:**\n  - /work/project\n- more"}]},
        "tools": [{"functionDeclarations": [
            {"name": "read_file", "parameters": {"type": "OBJECT"}},
            {"name": "run_shell_command", "parameters": {"type": "OBJECT"}},
        ]}],
        "generationConfig": {"temperature": 1},
    })
}

fn user(text: &str) -> Value {
    json!({"role": "user", "parts": [{"text": text}]})
}

fn sample_script() -> Script {
    Script::from_turns(vec![thinking_text_shell("ls {{cwd}}"), cut_by_length()])
}

#[test]
fn streams_one_chunk_per_delta_and_the_call_whole_with_usage_last() {
    let server = MockServer::start(sample_script()).unwrap();
    let reply = post(&server, STREAM_PATH, &gemini_body(json!([user("go")])));
    assert_eq!(reply.status, 200);
    let data: Vec<Value> = reply.sse().into_iter().map(|e| e["data"].clone()).collect();
    let chunk = |part: Value| {
        json!({"candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}],
               "modelVersion": "gemini-2.5-pro", "responseId": "mock-response-1"})
    };
    let mut last = chunk(json!({"functionCall": {"name": "run_shell_command",
                                                 "args": {"command": "ls /work/project"}}}));
    last["candidates"][0]["finishReason"] = json!("STOP");
    // Output: 4 + 17 + (30 + 20) = 71 characters, 17 tokens; turn 0 writes the cache.
    last["usageMetadata"] = json!({"promptTokenCount": 1500, "cachedContentTokenCount": 0,
                                   "candidatesTokenCount": 17, "totalTokenCount": 1517});
    assert_eq!(
        data,
        vec![
            chunk(json!({"text": "Hmm.", "thought": true})),
            chunk(json!({"text": "Hi there, fr"})),
            chunk(json!({"text": "iend!"})),
            last,
        ]
    );
    let routed = server.requests()[0].routed.clone().expect("routed");
    assert_eq!((routed.wire, routed.turn), (Wire::Gemini, 0));
}

#[test]
fn a_function_response_makes_the_next_turn_answered_whole_without_streaming() {
    let server = MockServer::start(sample_script()).unwrap();
    let contents = json!([
        user("go"),
        {"role": "model", "parts": [{"text": "Hi"},
                                    {"functionCall": {"name": "run_shell_command", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command",
                                                         "response": {"output": "a\nb"}}}]},
    ]);
    let reply = post(&server, JSON_PATH, &gemini_body(contents)).json();
    assert_eq!(
        reply,
        json!({
            "candidates": [{"content": {"role": "model", "parts": [{"text": "Cut"}]},
                            "index": 0, "finishReason": "MAX_TOKENS"}],
            "modelVersion": "gemini-2.5-pro", "responseId": "mock-response-1",
            // Turn 1: input grows, the cache is read; "Cut" is one token.
            "usageMetadata": {"promptTokenCount": 5200, "cachedContentTokenCount": 4000,
                              "candidatesTokenCount": 1, "totalTokenCount": 5201},
        })
    );
}

#[test]
fn a_side_request_wanting_json_gets_an_object_of_its_schema() {
    let server = MockServer::start(sample_script()).unwrap();
    // Gemini CLI's next-speaker check: no tools, a JSON schema.
    let body = json!({
        "contents": [user("Who speaks next?")],
        "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": {
            "type": "object", "properties": {
                "reasoning": {"type": "string"},
                "next_speaker": {"type": "string", "enum": ["user", "model"]}}}},
    });
    let reply = post(&server, JSON_PATH, &body).json();
    let text = reply["candidates"][0]["content"]["parts"][0]["text"]
        .as_str()
        .expect("a text part");
    assert_eq!(
        serde_json::from_str::<Value>(text).expect("JSON text"),
        json!({"reasoning": "mock", "next_speaker": "user"})
    );
    assert_eq!(
        server.requests()[0]
            .routed
            .as_ref()
            .map(|r| r.outcome.clone()),
        Some(ReplyOutcome::Side)
    );
}

#[test]
fn an_http_fault_is_a_google_error_and_tokens_are_counted() {
    let server = MockServer::start(Script::from_turns(vec![Turn {
        fault: Some(Fault {
            message: Some("overloaded".to_owned()),
            ..Fault::http(503)
        }),
        ..Turn::text("never")
    }]))
    .unwrap();
    let reply = post(&server, STREAM_PATH, &gemini_body(json!([user("go")])));
    assert_eq!(
        (reply.status, reply.json()),
        (
            503,
            json!({"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}})
        )
    );
    let counted = post(
        &server,
        "/v1beta/models/gemini-2.5-pro:countTokens",
        &json!({"contents": [user("12345678")]}),
    );
    assert_eq!(counted.status, 200);
    assert!(
        counted.json()["totalTokens"]
            .as_u64()
            .is_some_and(|n| n > 0)
    );
}
