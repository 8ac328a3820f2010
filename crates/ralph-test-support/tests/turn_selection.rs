//! Scenario and turn selection from the conversation state: turns, markers, routes, model ids,
//! defaults, side requests, exhausted scripts, and a three-hat loop.

mod common;

use std::path::Path;

use common::{chat_body, post};
use ralph_test_support::{
    Builtin, DEFAULT_SIDE_TEXT, EXHAUSTED_TEXT, MockServer, ReplyOutcome, Script, Turn,
};
use serde_json::{Value, json};

/// The non-streamed Chat Completions answer message to `messages`.
fn answer(server: &MockServer, messages: Value) -> Value {
    let mut body = chat_body(messages);
    body["stream"] = json!(false);
    post(server, "/v1/chat/completions", &body).json()["choices"][0]["message"].clone()
}

fn text(server: &MockServer, messages: Value) -> String {
    answer(server, messages)["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// `(scenario, turn, attempt, outcome)` of every model request so far.
fn routing(server: &MockServer) -> Vec<(Option<String>, usize, u32, ReplyOutcome)> {
    server
        .model_requests()
        .into_iter()
        .filter_map(|request| request.routed)
        .map(|routed| (routed.scenario, routed.turn, routed.attempt, routed.outcome))
        .collect()
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": text}]})
}

fn assistant() -> Value {
    json!({"role": "assistant", "content": "ok"})
}

fn tool(result: &str) -> Value {
    json!({"role": "tool", "content": result, "tool_call_id": "c"})
}

fn main_turns(
    turn: usize,
    attempt: u32,
    outcome: ReplyOutcome,
) -> (Option<String>, usize, u32, ReplyOutcome) {
    (Some("main".to_owned()), turn, attempt, outcome)
}

#[test]
fn the_turn_is_the_number_of_assistant_turns_and_a_retry_replays_it() {
    let script = Script::from_turns(vec![Turn::text("one"), Turn::text("two")]);
    let server = MockServer::start(script).unwrap();
    let texts = [
        text(&server, json!([user("go")])),
        text(&server, json!([user("go")])),
        text(&server, json!([user("go"), assistant(), tool("x")])),
        text(
            &server,
            json!([user("go"), assistant(), tool("x"), assistant(), tool("y")]),
        ),
    ];
    assert_eq!(
        texts,
        ["one", "one", "two", EXHAUSTED_TEXT].map(str::to_owned)
    );
    assert_eq!(
        routing(&server),
        vec![
            main_turns(0, 0, ReplyOutcome::Json),
            main_turns(0, 1, ReplyOutcome::Json),
            main_turns(1, 0, ReplyOutcome::Json),
            main_turns(2, 0, ReplyOutcome::Exhausted),
        ]
    );
}

#[test]
fn a_marker_in_the_newest_prompt_wins_and_turns_count_from_that_prompt() {
    let script = Script::from_turns(vec![Turn::text("main answer")])
        .with_scenario("a", vec![Turn::text("a0"), Turn::text("a1")])
        .with_scenario("b", vec![Turn::text("b0"), Turn::text("b1")]);
    let server = MockServer::start(script).unwrap();
    let texts = [
        text(&server, json!([user("first [[scenario:a]]"), assistant()])),
        text(
            &server,
            json!([
                user("first [[scenario:a]]"),
                assistant(),
                user("then [[scenario:b]]")
            ]),
        ),
        // A later prompt without a marker: the older marked prompt still chooses, and the
        // turn counts every assistant turn since it.
        text(
            &server,
            json!([user("[[scenario:b]]"), assistant(), user("<reminder>")]),
        ),
        text(&server, json!([user("no marker at all")])),
    ];
    assert_eq!(texts, ["a1", "b0", "b1", "main answer"].map(str::to_owned));
}

#[test]
fn routes_match_substrings_in_order_after_markers() {
    let script = Script::from_turns(vec![Turn::text("default")])
        .with_scenario("planner", vec![Turn::text("planning")])
        .with_scenario("builder", vec![Turn::text("building")])
        .with_route("You are the planner", "planner")
        .with_route("You are the", "builder");
    let server = MockServer::start(script).unwrap();
    let texts = [
        text(&server, json!([user("You are the planner. Plan.")])),
        text(&server, json!([user("You are the builder. Build.")])),
        text(
            &server,
            json!([user("You are the planner [[scenario:builder]]")]),
        ),
        text(&server, json!([user("Something else")])),
    ];
    assert_eq!(
        texts,
        ["planning", "building", "building", "default"].map(str::to_owned)
    );
}

#[test]
fn a_model_id_that_names_a_scenario_picks_it() {
    let server = MockServer::start(Script::builtin(Builtin::Tool)).unwrap();
    let mut body = chat_body(json!([user("hi")]));
    body["stream"] = json!(false);
    body["model"] = json!("text");
    let reply = post(&server, "/v1/chat/completions", &body).json();
    assert_eq!(
        reply["choices"][0]["message"]["content"],
        json!("Hello from the mock model. LOOP_COMPLETE")
    );
}

#[test]
fn unknown_markers_and_unrouted_requests_answer_with_an_explanation() {
    let no_default = Script {
        default: None,
        ..Script::from_turns(vec![Turn::text("x")])
    };
    let server = MockServer::start(no_default).unwrap();
    let unknown = text(&server, json!([user("[[scenario:nope]]")]));
    let unrouted = text(&server, json!([user("plain")]));
    assert_eq!(
        (unknown.contains("`nope`"), unrouted.contains("no default")),
        (true, true),
        "{unknown} / {unrouted}"
    );
    let outcomes: Vec<ReplyOutcome> = routing(&server).into_iter().map(|r| r.3).collect();
    assert_eq!(
        outcomes,
        vec![ReplyOutcome::Unrouted, ReplyOutcome::Unrouted]
    );
}

#[test]
fn side_requests_without_tools_get_the_side_text_and_use_no_attempt() {
    let script = Script::from_turns(vec![
        Turn::text("real").with_fault(ralph_test_support::Fault::http(500).times(1)),
    ]);
    let server = MockServer::start(script).unwrap();
    let mut side = chat_body(json!([user("Write a title for: go")]));
    side["stream"] = json!(false);
    side.as_object_mut().unwrap().remove("tools");
    let side_text =
        post(&server, "/v1/chat/completions", &side).json()["choices"][0]["message"]["content"]
            .clone();
    assert_eq!(side_text, json!(DEFAULT_SIDE_TEXT));
    let failed = {
        let mut body = chat_body(json!([user("go")]));
        body["stream"] = json!(false);
        post(&server, "/v1/chat/completions", &body).status
    };
    assert_eq!(
        (failed, text(&server, json!([user("go")]))),
        (500, "real".to_owned())
    );
    assert_eq!(
        routing(&server),
        vec![
            (None, 0, 0, ReplyOutcome::Side),
            main_turns(0, 0, ReplyOutcome::HttpError { status: 500 }),
            main_turns(0, 1, ReplyOutcome::Json),
        ]
    );
}

#[test]
fn prompt_knobs_tune_builtin_scenarios() {
    let server = MockServer::start(Script::default()).unwrap();
    let events = post(
        &server,
        "/v1/chat/completions",
        &chat_body(json!([user("[[scenario:long]] [[deltas:5]]")])),
    )
    .sse();
    let pieces: Vec<Value> = common::chat_deltas(&events)
        .into_iter()
        .filter_map(|delta| delta.get("content").cloned())
        .collect();
    // 4 words of 7 characters and the promise: 41 characters cut at 8, 16, 24 and 32.
    let expected: Vec<Value> = [
        "",
        "w00000 w",
        "00001 w0",
        "0002 w00",
        "003 LOOP",
        "_COMPLETE",
    ]
    .iter()
    .map(|piece| json!(piece))
    .collect();
    assert_eq!(pieces, expected);
}

/// Plays one hat's iteration: each turn's tool call is answered with `result` until the hat
/// says something without a tool call. Returns the tool calls and the final text.
fn play_iteration(server: &MockServer, prompt: &str) -> (Vec<Value>, String) {
    let mut messages = vec![
        json!({"role": "system", "content": "Current working directory: /w\n"}),
        user(prompt),
    ];
    let mut calls = Vec::new();
    loop {
        let message = answer(server, json!(messages));
        let Some(call) = message["tool_calls"].get(0).cloned() else {
            return (
                calls,
                message["content"].as_str().unwrap_or_default().to_owned(),
            );
        };
        let function = &call["function"];
        let args: Value = serde_json::from_str(function["arguments"].as_str().unwrap()).unwrap();
        calls.push(json!([function["name"], args]));
        messages.push(message.clone());
        messages.push(tool("hello"));
        assert!(calls.len() < 10, "the scenario never ends");
    }
}

#[test]
fn a_three_hat_loop_plays_one_scenario_per_iteration() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/hats.yaml");
    let server = MockServer::start(Script::load(&path).unwrap()).unwrap();
    let iterations = [
        play_iteration(&server, "You are the planner. Make a plan."),
        play_iteration(
            &server,
            "You are the builder. Event plan.ready: write hello.txt",
        ),
        play_iteration(
            &server,
            "You are the reviewer. Event build.done: wrote hello.txt",
        ),
    ];
    let expected = [
        (
            vec![json!(["bash", {"command": "ralph emit plan.ready \"write hello.txt\""}])],
            "Plan published.".to_owned(),
        ),
        (
            vec![
                json!(["write", {"path": "hello.txt", "content": "hello\n"}]),
                json!(["bash", {"command": "ralph emit build.done \"wrote hello.txt\""}]),
            ],
            "Built.".to_owned(),
        ),
        (
            vec![
                json!(["read", {"path": "hello.txt"}]),
                json!(["bash", {"command": "ralph emit review.approved \"hello.txt says hello\""}]),
            ],
            "Approved. LOOP_COMPLETE".to_owned(),
        ),
    ];
    assert_eq!(iterations, expected);
}
