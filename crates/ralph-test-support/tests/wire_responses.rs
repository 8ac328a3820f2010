//! The OpenAI Responses wire (Codex), parsed back and compared whole.

mod common;

use common::{cut_by_length, post, responses_body, thinking_text_shell};
use ralph_test_support::{MockServer, Script};
use serde_json::{Value, json};

fn sample_script() -> Script {
    Script::from_turns(vec![thinking_text_shell("echo hi"), cut_by_length()])
}

/// `(event name, sequence_number)` of every event.
fn names_and_numbers(events: &[Value]) -> Vec<(String, u64)> {
    events
        .iter()
        .map(|event| {
            (
                event["event"].as_str().unwrap().to_owned(),
                event["data"]["sequence_number"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn streams_output_items_and_completes_with_usage() {
    let server = MockServer::start(sample_script()).unwrap();
    let reply = post(
        &server,
        "/v1/responses",
        &responses_body(json!([{"type": "message", "role": "user",
                                "content": [{"type": "input_text", "text": "go"}]}])),
    );
    let events = reply.sse();
    let expected_names = [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ];
    let expected: Vec<(String, u64)> = expected_names
        .iter()
        .zip(0..)
        .map(|(name, number)| ((*name).to_owned(), number))
        .collect();
    assert_eq!(names_and_numbers(&events), expected);
    // Output: 4 + 17 + (17 + 20) = 58 characters, 14 tokens.
    let completed = json!({
        "id": "resp_mock_1", "object": "response", "created_at": 1_700_000_000,
        "model": "gpt-test", "status": "completed",
        "output": [
            {"type": "reasoning", "id": "rs_mock_1_0",
             "summary": [{"type": "summary_text", "text": "Hmm."}]},
            {"type": "message", "id": "msg_mock_1_1", "status": "completed", "role": "assistant",
             "content": [{"type": "output_text", "text": "Hi there, friend!", "annotations": []}]},
            {"type": "function_call", "id": "fc_mock_1_2", "call_id": "call_mock_1_0",
             "name": "exec_command", "arguments": "{\"cmd\":\"echo hi\"}", "status": "completed"},
        ],
        "usage": {"input_tokens": 1500, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": 14, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": 1514},
    });
    assert_eq!(events[20]["data"]["response"], completed);
    let text_deltas: Vec<Value> = events[10..12]
        .iter()
        .map(|event| event["data"].clone())
        .collect();
    assert_eq!(
        text_deltas,
        vec![
            json!({"type": "response.output_text.delta", "sequence_number": 10,
                   "item_id": "msg_mock_1_1", "output_index": 1, "content_index": 0,
                   "delta": "Hi there, fr"}),
            json!({"type": "response.output_text.delta", "sequence_number": 11,
                   "item_id": "msg_mock_1_1", "output_index": 1, "content_index": 0,
                   "delta": "iend!"}),
        ]
    );
}

#[test]
fn the_turn_after_a_function_call_run_is_the_second_and_ends_incomplete_at_the_limit() {
    let server = MockServer::start(sample_script()).unwrap();
    let input = json!([
        {"role": "developer", "content": "You are Codex."},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
        {"type": "reasoning", "summary": []},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hi"}]},
        {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "c"},
        {"type": "function_call_output", "call_id": "c", "output": "hi"},
    ]);
    let mut body = responses_body(input);
    body["stream"] = json!(false);
    let reply = post(&server, "/v1/responses", &body).json();
    assert_eq!(
        (
            reply["status"].clone(),
            reply["incomplete_details"].clone(),
            reply["output"][0]["content"][0]["text"].clone()
        ),
        (
            json!("incomplete"),
            json!({"reason": "max_output_tokens"}),
            json!("Cut")
        )
    );
    assert_eq!(
        server.requests()[0].routed.as_ref().map(|r| r.turn),
        Some(1)
    );
}
