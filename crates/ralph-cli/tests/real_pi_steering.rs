//! `cli.steering: true` with the REAL pi 0.73.1: ralph runs it in RPC mode, and when it must
//! stop it (Ctrl-C, the cost budget) it sends pi's `abort` before any signal. pi then ends its
//! turn (`agent_end` after an aborted message, which ralph reports as the agent's run ending in
//! error), its stdin is closed and it exits; nothing of the run is left. Without the abort pi
//! never reports the end of an interrupted turn (see tests/fixtures/pi/signals).

mod real_common;

use pretty_assertions::assert_eq;
use real_common::{PI, RealEnv, SLEEPING_TOOL, wait_for_file};
use serde_json::{Value, json};

fn config(env: &RealEnv, extra: &str) {
    env.write_config(&format!(
        "cli:\n  backend: pi\n  steering: true\nevent_loop:\n  max_iterations: 3\n{extra}"
    ));
}

/// `[is_error, error]` of the iteration's `run_finished` events: what pi said of its turn.
fn run_endings(run: &real_common::JsonRun) -> Vec<Value> {
    run.agent_events(1)
        .into_iter()
        .filter(|e| e["type"] == "run_finished")
        .map(|e| json!([e["is_error"], e["error"]]))
        .collect()
}

#[test]
fn ctrl_c_during_a_tool_call_aborts_pi_in_rpc_mode_and_leaves_nothing() {
    let Some(env) = RealEnv::start(SLEEPING_TOOL, &[PI]) else {
        return;
    };
    config(&env, "");
    let running = env.spawn_json(&["-p", "Run the long job."]);
    wait_for_file(&env.ws().join("sleep.pid"));
    let tool: i32 = wait_for_file(&env.ws().join("tool.pid"))
        .trim()
        .parse()
        .expect("the tool's pid");
    let run = running.interrupt();
    assert_eq!(
        run_endings(&run),
        vec![json!([true, "Request was aborted."])]
    );
    let history: Vec<Value> = env.history().iter().map(|r| r["outcome"].clone()).collect();
    assert_eq!(history, vec![json!({"status": "interrupted"})]);
    assert_eq!(env.marked_processes(), Vec::<(i32, String)>::new());
    assert!(!real_common::alive(tool));
}

#[test]
fn the_cost_budget_aborts_pi_in_rpc_mode_at_the_turn_that_crosses_it() {
    let Some(env) = RealEnv::start(SLEEPING_TOOL, &[PI]) else {
        return;
    };
    // The first turn (the tool call) costs about half a cent.
    config(&env, "  max_cost_usd: 0.001\n");
    let run = env.run_json(&["-p", "Run the long job."]);
    assert_eq!(
        (run.ending().0.as_str(), run.code),
        ("max_cost", 2),
        "stderr:\n{}",
        run.stderr
    );
    assert_eq!(
        run_endings(&run),
        vec![json!([true, "Request was aborted."])]
    );
    // The tool was stopped, not waited for: its result never reached the model.
    assert_eq!(env.server.model_requests().len(), 1);
    assert_eq!(env.marked_processes(), Vec::<(i32, String)>::new());
}

#[test]
fn a_steered_pi_iteration_completes_like_any_other() {
    let script = r#"
default: task
scenarios:
  task:
    - text: Writing it.
      shell: "echo made > made.txt"
    - text: "Done.\nLOOP_COMPLETE"
"#;
    let Some(env) = RealEnv::start(script, &[PI]) else {
        return;
    };
    config(&env, "");
    let run = env.run_json(&["-p", "Make the file."]);
    assert_eq!(run.ending().0, "completed", "stderr:\n{}", run.stderr);
    assert_eq!(env.file("made.txt").as_deref(), Some("made\n"));
    assert_eq!(run_endings(&run), vec![json!([false, null])]);
    // The transcript records the RPC command line and the prompt on stdin.
    let runs = env.ws().join(".ralph/runs");
    let run_dir = std::fs::read_dir(&runs)
        .expect("runs")
        .next()
        .expect("a run")
        .expect("its entry")
        .path();
    let command: Value = serde_json::from_str(
        &std::fs::read_to_string(run_dir.join("iterations/1/command.json")).expect("command.json"),
    )
    .expect("JSON");
    let args: Vec<&str> = command["args"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .take(3)
        .collect();
    assert_eq!(args, ["--mode", "rpc", "--no-session"]);
    assert_eq!(command["prompt_on_stdin"], json!(true));
}
