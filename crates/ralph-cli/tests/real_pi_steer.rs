//! `ralph steer` with the REAL pi against the offline mock model, a message sent while
//! iteration 1's bash tool runs:
//! - by default pi reads its prompt once, so the message is queued: the model reads it in
//!   iteration 2's prompt, as a user message, and acts on it;
//! - with `cli.steering: true` pi runs in RPC mode and takes it mid-turn: the model reads it
//!   in iteration 1's next request, right after the tool's result, and the loop ends there;
//!   when that request is refused on a rate limit, the next attempt's prompt carries it.

mod real_common;

use pretty_assertions::assert_eq;
use ralph_test_support::RecordedRequest;
use real_common::{PI, RealEnv, wait_for_file};
use serde_json::Value;

/// What the person types; the mock routes a prompt that carries it to `steered`.
const GUIDANCE: &str = "Switch to plan B (marker steer-7f3a).";

/// Iteration 1 runs a tool that waits for the test; a prompt carrying the guidance gets an
/// answer that completes the loop.
const SCRIPT: &str = r#"
default: task
routes:
  - contains: "steer-7f3a"
    scenario: steered
scenarios:
  task:
    - text: Working on plan A.
      shell: "echo yes > started; while [ ! -f go ]; do sleep 0.1; done; echo plan A step done"
    - text: Plan A step done.
  steered:
    - text: "Following the guidance: plan B.\nLOOP_COMPLETE"
"#;

/// The text of a request's user messages, whatever their content's shape.
fn user_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// For each model request in order, whether its user messages carry the guidance's marker.
fn carries_guidance(requests: &[RecordedRequest]) -> Vec<bool> {
    requests
        .iter()
        .map(|r| user_text(r.body.as_ref().expect("a JSON body")).contains("steer-7f3a"))
        .collect()
}

/// Lets iteration 1's tool finish and returns the run, which must have completed.
fn let_the_tool_finish(env: &RealEnv, running: real_common::Running) -> real_common::JsonRun {
    std::fs::write(env.ws().join("go"), "").expect("let the tool finish");
    running.finish().expect_completed()
}

/// Starts the loop (`steering` on or off), waits until iteration 1's tool runs, sends the
/// guidance with `ralph steer`, and returns what it printed (exit code, stdout) and the run
/// still going (the tool waits for `go`).
fn steer_during_the_tool(
    steering: bool,
) -> Option<(RealEnv, real_common::Running, (Option<i32>, String))> {
    let env = RealEnv::start(SCRIPT, &[PI])?;
    env.write_config(&format!(
        "cli:\n  backend: pi\n  steering: {steering}\nevent_loop:\n  max_iterations: 3\n"
    ));
    let (running, out) = steer_while_the_tool_runs(&env);
    assert!(
        out.status.code().is_some(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    );
    Some((env, running, said))
}

/// Starts the loop as configured, waits until iteration 1's tool runs, and sends the
/// guidance with `ralph steer`: the run still going, and what steer did.
fn steer_while_the_tool_runs(env: &RealEnv) -> (real_common::Running, std::process::Output) {
    let running = env.spawn_json(&["-p", "Carry out the plan."]);
    wait_for_file(&env.ws().join("started"));
    let out = env
        .ralph(&["steer", GUIDANCE])
        .output()
        .expect("ralph steer");
    (running, out)
}

/// [`steer_during_the_tool`], which must print `said` and succeed, then the run, which
/// must complete in `iterations` iterations.
fn steered(
    steering: bool,
    said: &str,
    iterations: usize,
) -> Option<(RealEnv, real_common::JsonRun)> {
    let (env, running, printed) = steer_during_the_tool(steering)?;
    assert_eq!(printed, (Some(0), said.to_owned()));
    let run = let_the_tool_finish(&env, running);
    assert_eq!(run.iterations().len(), iterations);
    Some((env, run))
}

#[test]
fn a_steer_during_iteration_1_reaches_pi_in_rpc_mode_in_the_same_turn() {
    // One iteration: pi read the guidance after its tool call and the answer completed.
    let Some((env, run)) = steered(true, "delivered to pi mid-turn\n", 1) else {
        return;
    };
    let delivered = run.of_type("steer_delivered");
    assert_eq!(
        (
            &delivered[0]["iteration"],
            &delivered[0]["via"],
            &delivered[0]["to"]
        ),
        (
            &Value::from(1),
            &Value::from("mid_turn"),
            &Value::from("pi mid-turn")
        )
    );
    // pi showed it read the message (a user message after its prompt), so ralph does not
    // queue it again as unread.
    let users: Vec<&Value> = run
        .agent_events(1)
        .into_iter()
        .filter(|e| e["type"] == "user_message")
        .collect();
    assert_eq!(users.len(), 2, "{users:?}");
    assert_eq!(users[1]["text"], GUIDANCE);
    assert!(
        run.of_type("notice")
            .iter()
            .all(|n| n["notice"] != "steer_unread")
    );
    // The model's second request (after the tool) is the first that carries it, as its
    // newest user message, without the prompt's heading.
    let requests = env.server.model_requests();
    assert_eq!(carries_guidance(&requests), [false, true]);
    let routed: Vec<String> = env.model_turns().into_iter().map(|t| t.0).collect();
    assert_eq!(routed, ["task", "steered"]);
    assert!(
        !user_text(requests[1].body.as_ref().unwrap())
            .contains("Guidance from the person running the loop")
    );
}

#[test]
fn a_steer_during_iteration_1_reaches_the_model_in_iteration_2() {
    let Some((env, run)) = steered(false, "queued for iteration 2\n", 2) else {
        return;
    };
    let received = run.of_type("steer_received");
    assert_eq!(received.len(), 1);
    assert_eq!(received[0]["message"], GUIDANCE);
    let delivered = run.of_type("steer_delivered");
    assert_eq!(
        (&delivered[0]["iteration"], &delivered[0]["via"]),
        (&Value::from(2), &Value::from("prompt"))
    );

    // The model saw the guidance in iteration 2 only, and answered from it.
    let requests = env.server.model_requests();
    let with_guidance = carries_guidance(&requests);
    assert!(with_guidance.iter().any(|&b| b), "{with_guidance:?}");
    let first_with = with_guidance.iter().position(|&b| b).unwrap();
    let routed: Vec<String> = env.model_turns().into_iter().map(|t| t.0).collect();
    assert!(
        routed[..first_with].iter().all(|s| s == "task"),
        "{routed:?}"
    );
    assert_eq!(routed[first_with], "steered");
    assert!(
        user_text(requests[first_with].body.as_ref().unwrap())
            .contains("Guidance from the person running the loop")
    );
}

/// As [`SCRIPT`], but the first request that carries the guidance is refused with 429:
/// pi, told not to retry on its own, ends its turn there, rate limited.
fn limited_script() -> String {
    format!("{SCRIPT}      fault: {{http: 429, times: 1, retry_after_ms: 1}}\n")
}

#[test]
fn a_message_pi_read_mid_turn_before_a_rate_limit_is_in_the_next_attempts_prompt() {
    let options = ralph_test_support::PiOptions {
        max_retries: 0,
        provider_max_retries: Some(0),
        ..ralph_test_support::PiOptions::default()
    };
    let Some(env) = RealEnv::start_with(&limited_script(), &[PI], &options) else {
        return;
    };
    env.write_config(
        "cli:\n  backend: pi\n  steering: true\n  rate_limit_wait_seconds: 1\n\
         event_loop:\n  max_iterations: 3\n",
    );
    let (running, out) = steer_while_the_tool_runs(&env);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "delivered to pi mid-turn\n"
    );
    let run = let_the_tool_finish(&env, running);
    // pi read it, and its next request (the first to carry it) was refused: the attempt
    // after, a fresh pi, has it in its prompt. The mock refuses the first request of that
    // new conversation too (a prompt carried it: requeued once more), then answers it.
    let outcomes: Vec<Value> = run
        .iterations()
        .iter()
        .map(|i| i["outcome"]["status"].clone())
        .collect();
    assert_eq!(outcomes, ["rate_limited", "rate_limited", "succeeded"]);
    let requests = env.server.model_requests();
    assert_eq!(carries_guidance(&requests), [false, true, true, true]);
    assert!(
        user_text(requests[2].body.as_ref().unwrap())
            .contains("Guidance from the person running the loop")
    );
    let routed: Vec<String> = env.model_turns().into_iter().map(|t| t.0).collect();
    assert_eq!(routed, ["task", "steered", "steered", "steered"]);
    let requeued: Vec<Value> = run.fields("notice", &["iteration", "notice", "message"]);
    let notice = serde_json::json!([1, "steer_requeued", GUIDANCE]);
    assert_eq!(
        requeued,
        [notice.clone(), notice],
        "stderr:\n{}",
        run.stderr
    );
}
