//! Injected faults: HTTP errors (always or for the first K attempts), cut connections, SSE
//! error events, the token limit, and delays.

mod common;

use common::{anthropic_body, chat_body, post, responses_body};
use ralph_test_support::{Fault, FaultKind, MockServer, ReplyOutcome, Script, Stop, Turn};
use serde_json::{Value, json};

fn go() -> Value {
    json!([{"role": "user", "content": "go"}])
}

fn outcomes(server: &MockServer) -> Vec<ReplyOutcome> {
    server
        .model_requests()
        .into_iter()
        .filter_map(|request| request.routed.map(|routed| routed.outcome))
        .collect()
}

#[test]
fn an_http_fault_sends_the_wire_error_body_and_its_retry_headers() {
    let fault = Fault {
        kind: FaultKind::Http {
            status: 429,
            retry_after_s: Some(1),
            retry_after_ms: Some(5),
            should_retry: Some(false),
            limit_reset_s: None,
        },
        times: None,
        message: Some("slow down".to_owned()),
    };
    let server =
        MockServer::start(Script::from_turns(vec![Turn::text("x").with_fault(fault)])).unwrap();
    let chat = post(&server, "/v1/chat/completions", &chat_body(go()));
    let anthropic = post(&server, "/v1/messages", &anthropic_body(go()));
    let headers = |reply: &common::HttpReply| {
        ["retry-after", "retry-after-ms", "x-should-retry"]
            .map(|name| reply.header(name).map(str::to_owned))
    };
    let expected_headers = [Some("1"), Some("5"), Some("false")].map(|v| v.map(str::to_owned));
    assert_eq!(
        (chat.status, chat.json(), headers(&chat)),
        (
            429,
            json!({"error": {"message": "slow down", "type": "rate_limit_exceeded", "param": null, "code": null}}),
            expected_headers.clone()
        )
    );
    assert_eq!(
        (anthropic.status, anthropic.json(), headers(&anthropic)),
        (
            429,
            json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
            expected_headers
        )
    );
}

#[test]
fn a_fault_with_times_hits_only_the_first_attempts_at_its_turn() {
    let script = Script::from_turns(vec![
        Turn::shell("true").with_fault(Fault::http(500).times(2)),
        Turn::text("done").with_fault(Fault::http(503).times(1)),
    ]);
    let server = MockServer::start(script).unwrap();
    let first_turn = json!([{"role": "user", "content": "go"}]);
    let second_turn = json!([{"role": "user", "content": "go"}, {"role": "assistant", "content": "a"},
                             {"role": "tool", "content": "", "tool_call_id": "c"}]);
    let statuses: Vec<u16> = [
        &first_turn,
        &first_turn,
        &second_turn,
        &first_turn,
        &second_turn,
    ]
    .iter()
    .map(|messages| {
        post(
            &server,
            "/v1/chat/completions",
            &chat_body((*messages).clone()),
        )
        .status
    })
    .collect();
    assert_eq!(statuses, vec![500, 500, 503, 200, 200]);
    assert_eq!(
        outcomes(&server),
        vec![
            ReplyOutcome::HttpError { status: 500 },
            ReplyOutcome::HttpError { status: 500 },
            ReplyOutcome::HttpError { status: 503 },
            ReplyOutcome::Streamed,
            ReplyOutcome::Streamed,
        ]
    );
}

#[test]
fn the_builtin_error_scenarios_fail_every_attempt() {
    let server = MockServer::start(Script::default()).unwrap();
    let ask = |marker: &str| {
        let reply = post(
            &server,
            "/v1/messages",
            &anthropic_body(json!([{"role": "user", "content": format!("go {marker}")}])),
        );
        (
            reply.status,
            reply.header("retry-after").map(str::to_owned),
            reply.json()["error"]["type"].clone(),
        )
    };
    let got = [
        ask("[[scenario:error500]]"),
        ask("[[scenario:error500]]"),
        ask("[[scenario:error429]]"),
        ask("[[scenario:error401]]"),
    ];
    let expected = [
        (500, None, json!("api_error")),
        (500, None, json!("api_error")),
        (429, Some("1".to_owned()), json!("rate_limit_error")),
        (401, None, json!("authentication_error")),
    ];
    assert_eq!(got, expected);
}

#[test]
fn a_drop_fault_cuts_the_connection_after_the_given_deltas() {
    let turn = Turn {
        deltas: Some(6),
        ..Turn::text("abcdefghijkl").with_fault(Fault::drop_after(2))
    };
    let server = MockServer::start(Script::from_turns(vec![turn])).unwrap();
    let reply = post(&server, "/v1/chat/completions", &chat_body(go()));
    let deltas = common::chat_deltas(&reply.sse());
    assert_eq!(
        (reply.status, reply.cut, deltas),
        (
            200,
            true,
            vec![
                json!({"role": "assistant", "content": ""}),
                json!({"content": "ab"}),
                json!({"content": "cd"})
            ]
        )
    );
    assert_eq!(outcomes(&server), vec![ReplyOutcome::Dropped]);
}

#[test]
fn the_midstream_builtin_sends_the_promise_before_the_cut() {
    let server = MockServer::start(Script::default()).unwrap();
    let reply = post(
        &server,
        "/v1/messages",
        &anthropic_body(json!([{"role": "user", "content": "[[scenario:midstream]]"}])),
    );
    let text: String = reply
        .sse()
        .iter()
        .filter_map(|event| event["data"]["delta"]["text"].as_str().map(str::to_owned))
        .collect();
    let events: Vec<Value> = reply
        .sse()
        .iter()
        .map(|event| event["event"].clone())
        .collect();
    assert_eq!(
        (reply.cut, text.as_str(), events.last().cloned()),
        (
            true,
            "Partial answer: LOOP_COMPLETE would be prema",
            Some(json!("content_block_delta"))
        )
    );
}

#[test]
fn an_sse_error_fault_sends_each_wires_error_event_and_ends_the_body() {
    let turn = Turn {
        deltas: Some(4),
        ..Turn::text("abcd").with_fault(Fault {
            message: Some("boom".to_owned()),
            ..Fault::sse_error_after(1)
        })
    };
    let server = MockServer::start(Script::from_turns(vec![turn])).unwrap();
    let anthropic = post(&server, "/v1/messages", &anthropic_body(go()));
    let chat = post(&server, "/v1/chat/completions", &chat_body(go()));
    let responses = post(&server, "/v1/responses", &responses_body(json!("go")));
    let last = |reply: &common::HttpReply| reply.sse().last().cloned().unwrap();
    let anthropic_events: Vec<Value> = anthropic
        .sse()
        .iter()
        .map(|event| event["event"].clone())
        .collect();
    assert_eq!(
        anthropic_events,
        [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "error"
        ]
        .map(|name| json!(name))
        .to_vec()
    );
    assert_eq!(
        [anthropic.cut, chat.cut, responses.cut, false].to_vec(),
        vec![false; 4]
    );
    assert_eq!(
        [last(&anthropic), last(&chat), last(&responses)],
        [
            json!({"event": "error", "data": {"type": "error",
                   "error": {"type": "overloaded_error", "message": "boom"}}}),
            json!({"event": null, "data": {"error": {"message": "boom", "type": "server_error",
                   "param": null, "code": null}}}),
            json!({"event": "response.failed", "data": {"type": "response.failed", "sequence_number": 5,
                   "response": {"id": "resp_mock_3", "object": "response", "created_at": 1_700_000_000,
                                "model": "gpt-test", "output": [], "status": "failed", "usage": null,
                                "error": {"code": "server_error", "message": "boom"}}}}),
        ]
    );
}

#[test]
fn the_non_streaming_fallback_after_an_sse_error_gets_the_whole_answer() {
    // Claude Code retries a turn without streaming after an SSE error event.
    let turn = Turn::text("whole answer").with_fault(Fault::sse_error_after(1));
    let server = MockServer::start(Script::from_turns(vec![turn])).unwrap();
    post(&server, "/v1/messages", &anthropic_body(go()));
    let mut body = anthropic_body(go());
    body["stream"] = json!(false);
    let fallback = post(&server, "/v1/messages", &body).json();
    assert_eq!(
        fallback["content"],
        json!([{"type": "text", "text": "whole answer"}])
    );
    assert_eq!(
        outcomes(&server),
        vec![ReplyOutcome::SseError, ReplyOutcome::Json]
    );
}

#[test]
fn a_length_stop_uses_each_wires_token_limit_reason() {
    let turn = Turn {
        stop: Some(Stop::Length),
        ..Turn::text("cut")
    };
    let server = MockServer::start(Script::from_turns(vec![turn])).unwrap();
    let mut chat = chat_body(go());
    chat["stream"] = json!(false);
    let mut anthropic = anthropic_body(go());
    anthropic["stream"] = json!(false);
    let reasons = [
        post(&server, "/v1/chat/completions", &chat).json()["choices"][0]["finish_reason"].clone(),
        post(&server, "/v1/messages", &anthropic).json()["stop_reason"].clone(),
    ];
    assert_eq!(reasons, [json!("length"), json!("max_tokens")]);
}

#[test]
fn a_delayed_stream_carries_the_same_events() {
    let plain = MockServer::start(Script::from_turns(vec![Turn::text("slow words here")])).unwrap();
    let slow = MockServer::start(Script::from_turns(vec![Turn {
        delay_ms: Some(5),
        ..Turn::text("slow words here")
    }]))
    .unwrap();
    let events = |server: &MockServer| post(server, "/v1/messages", &anthropic_body(go())).sse();
    assert_eq!(events(&slow), events(&plain));
}

#[test]
fn an_html_page_fault_answers_200_with_a_web_page_streamed_or_not() {
    let server = MockServer::start(Script::from_turns(vec![
        Turn::text("never sent").with_fault(Fault::html_page()),
    ]))
    .unwrap();
    let streamed = post(&server, "/v1/chat/completions", &chat_body(go()));
    let mut not_streamed = anthropic_body(go());
    not_streamed["stream"] = json!(false);
    let whole = post(&server, "/v1/messages", &not_streamed);
    for reply in [&streamed, &whole] {
        assert_eq!(
            (reply.status, reply.header("content-type")),
            (200, Some("text/html; charset=utf-8"))
        );
        assert!(
            reply.text().starts_with("<!DOCTYPE html>"),
            "{}",
            reply.text()
        );
        assert!(!reply.text().contains("never sent"), "{}", reply.text());
    }
    assert_eq!(
        outcomes(&server),
        vec![ReplyOutcome::HtmlPage, ReplyOutcome::HtmlPage]
    );
}
