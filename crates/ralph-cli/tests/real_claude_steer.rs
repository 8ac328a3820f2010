//! `ralph steer` with the REAL Claude Code (`cli.steering: true`: stream-json input with
//! `--replay-user-messages`) against the offline mock model. Claude Code shows each user
//! message as it takes it into the conversation, so ralph knows the model read a steer:
//! - one sent during a tool call is read with the tool's result, in the same turn;
//! - one sent during the final answer, after the last model call started, is read in a
//!   second turn of the same process (a second `system/init` … `result`), so it is not
//!   lost either.

mod real_common;

use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use real_common::{CLAUDE, JsonRun, RealEnv, wait_for_file};
use serde_json::Value;

/// What the person types; the mock routes a request that carries it to `steered`.
const GUIDANCE: &str = "Switch to plan B (marker steer-5c1d).";

/// Iteration 1 runs a tool that waits for the test, then answers slowly (20 pieces, 200 ms
/// apart); a request that carries the guidance gets an answer that completes the loop.
const SCRIPT: &str = r#"
scenarios:
  steered:
    - text: "Following the guidance: plan B.\nLOOP_COMPLETE"
  task:
    - text: Working on plan A.
      shell: "echo yes > started; while [ ! -f go ]; do sleep 0.1; done; echo plan A step done"
    - { text: "Plan A step done; this answer streams slowly, over about four seconds.", deltas: 20, delay_ms: 200 }
routes: [{ contains: "steer-5c1d", scenario: steered }]
default: task
"#;

/// Starts the loop on Claude Code, steered, and sends the guidance while the tool runs
/// or, with `steer_late`, while the final answer streams. Returns the finished run, which
/// must have completed in iteration 1.
fn steered_run(env: &RealEnv, steer_late: bool) -> JsonRun {
    env.write_config(
        "cli:\n  backend: claude\n  steering: true\nevent_loop:\n  max_iterations: 2\n",
    );
    let running = env.spawn_json(&["-p", "Carry out the plan."]);
    wait_for_file(&env.ws().join("started"));
    let go = || std::fs::write(env.ws().join("go"), "").expect("let the tool finish");
    if steer_late {
        // The final answer's request is the second: it streams for about four seconds.
        go();
        let deadline = Instant::now() + Duration::from_secs(60);
        while env.model_turns().len() < 2 {
            assert!(Instant::now() < deadline, "no second model request");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let out = env
        .ralph(&["steer", GUIDANCE])
        .output()
        .expect("ralph steer");
    assert_eq!(
        (out.status.code(), String::from_utf8_lossy(&out.stdout)),
        (Some(0), "delivered to Claude Code mid-turn\n".into()),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    if !steer_late {
        go();
    }
    let run = running.finish().expect_completed();
    assert_eq!(run.iterations().len(), 1);
    run
}

/// The texts of iteration 1's `user_message` events: the prompt, then what Claude Code
/// took in; and whether ralph said a steer went unread.
fn shown(run: &JsonRun) -> (Vec<String>, bool) {
    let users = run
        .agent_events(1)
        .into_iter()
        .filter(|e| e["type"] == "user_message")
        .map(|e| e["text"].as_str().unwrap_or_default().to_owned())
        .collect();
    let unread = run
        .of_type("notice")
        .iter()
        .any(|n| n["notice"] == "steer_unread");
    (users, unread)
}

#[test]
fn a_steer_during_a_tool_call_is_shown_read_with_the_tools_result() {
    let Some(env) = RealEnv::start(SCRIPT, &[CLAUDE]) else {
        return;
    };
    let run = steered_run(&env, false);
    let (users, unread) = shown(&run);
    assert_eq!(users.len(), 2, "{users:?}");
    assert!(users[0].contains("Carry out the plan."), "{}", users[0]);
    assert_eq!((users[1].as_str(), unread), (GUIDANCE, false));
    // Read in the same turn: the request after the tool's is the steered one.
    let routed: Vec<String> = env.model_turns().into_iter().map(|t| t.0).collect();
    assert_eq!(routed, ["task", "steered"]);
    let endings: Vec<&Value> = run
        .agent_events(1)
        .into_iter()
        .filter(|e| e["type"] == "run_finished")
        .collect();
    assert_eq!(endings.len(), 1);
}

#[test]
fn a_steer_during_the_final_answer_is_read_in_a_second_turn() {
    let Some(env) = RealEnv::start(SCRIPT, &[CLAUDE]) else {
        return;
    };
    let run = steered_run(&env, true);
    let (users, unread) = shown(&run);
    assert_eq!(
        (users.len(), users.last().map(String::as_str), unread),
        (2, Some(GUIDANCE), false),
        "{users:?}"
    );
    // The final answer was written, then Claude Code ran a turn for the guidance.
    let routed: Vec<String> = env.model_turns().into_iter().map(|t| t.0).collect();
    assert_eq!(routed, ["task", "task", "steered"]);
    let story: Vec<String> = run
        .agent_events(1)
        .into_iter()
        .filter_map(|e| e["type"].as_str().map(str::to_owned))
        .filter(|t| {
            matches!(
                t.as_str(),
                "session_started" | "user_message" | "run_finished"
            )
        })
        .collect();
    assert_eq!(
        story,
        [
            "session_started",
            "user_message",
            "run_finished",
            "session_started",
            "user_message",
            "run_finished"
        ]
    );
}
