//! `max_runtime` bounds what runs between the agents too: a gate, a hook, a loop that a
//! hook suspended. When the runtime runs out they are stopped (with their process
//! group), no iteration starts, and the loop stops at its limit (exit 2). The hooks of
//! the loop's end run after that, bounded by their own timeout only.

mod common;

use common::{Workspace, finished, gone, of_type, wait_for_pid};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// Far below every timeout the tests' gates and hooks have (their default, or 60 s):
/// only the runtime limit can stop them in time.
const RUNTIME: &str = "2";

/// A hook command that starts a long `sleep` (its pid in `hook-child`), writes its own
/// pid to `hook.pid` and waits.
const SLOW_HOOK: &str = "sleep 300 & echo $! > hook-child; echo $$ > hook.pid; wait";

fn one_hook(phase: &str, hook: &str) -> String {
    format!(
        "cli:\n  backend: pi\nhooks:\n  enabled: true\n  events:\n    {phase}:\n      - {hook}\n"
    )
}

/// `ralph run --output json --max-runtime RUNTIME -p task`: the exit code and events.
fn run_limited(ws: &Workspace) -> (i32, Vec<Value>, String) {
    ws.run_json(&["--max-runtime", RUNTIME, "-p", "task"])
}

fn assert_stopped_at_the_limit(code: i32, events: &[Value], stderr: &str) {
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(finished(events)["reason"], json!("max_runtime"), "{stderr}");
}

#[test]
fn a_gate_running_when_the_runtime_runs_out_is_stopped_and_the_loop_ends_at_the_limit() {
    let ws = Workspace::new(
        common::SLOW_GATE,
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let (code, events, stderr) = run_limited(&ws);
    assert_stopped_at_the_limit(code, &events, &stderr);
    let gate = of_type(&events, "gate_finished")[0];
    assert_eq!(gate["reason"], json!("runtime_limit"), "{gate}");
    for file in ["gate.pid", "gate-child"] {
        let pid = wait_for_pid(&ws.path().join(file), file);
        assert!(gone(pid), "{file} {pid} survived the runtime limit");
    }
}

#[test]
fn a_hook_running_when_the_runtime_runs_out_is_stopped_and_no_iteration_starts() {
    // `block`: a hook failure would end the run as failed (1); the runtime is no failure.
    let hook = format!("{{name: slow, command: '{SLOW_HOOK}', on_error: block}}");
    let ws = Workspace::new(
        &one_hook("pre.iteration.start", &hook),
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let (code, events, stderr) = run_limited(&ws);
    assert_stopped_at_the_limit(code, &events, &stderr);
    let hook = of_type(&events, "hook_finished")[0];
    assert_eq!(
        (&hook["failure"], &hook["action"]),
        (&json!("runtime_limit"), &json!("stop")),
        "{hook}"
    );
    assert!(
        of_type(&events, "iteration_started").is_empty(),
        "{events:?}"
    );
    assert!(ws.agent_log().is_empty());
    // The iteration's event waits for `--continue`.
    assert_eq!(
        ws.saved_state()["state"]["pending"],
        json!([{"topic": "task.start", "payload": null}])
    );
    for file in ["hook.pid", "hook-child"] {
        let pid = wait_for_pid(&ws.path().join(file), file);
        assert!(gone(pid), "{file} {pid} survived the runtime limit");
    }
}

#[test]
fn a_loop_a_hook_suspended_ends_when_the_runtime_runs_out() {
    let ws = Workspace::new(
        &one_hook(
            "pre.iteration.start",
            "{name: approval, command: 'test -f approved', on_error: suspend}",
        ),
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let (code, events, stderr) = run_limited(&ws);
    assert_stopped_at_the_limit(code, &events, &stderr);
    assert!(
        stderr.contains("ran out while hook `approval` suspended"),
        "{stderr}"
    );
    assert!(ws.agent_log().is_empty());
    assert!(!ws.path().join(".ralph/hook-suspended").exists());
}

#[test]
fn the_hooks_of_the_loop_s_end_run_past_the_runtime_limit_to_their_own_timeout() {
    // The loop stops at its runtime limit; its end hook starts with no time left and
    // runs a second past it, as its own timeout allows.
    let hook = "{name: report, command: 'sleep 1; echo done > reported', on_error: warn, timeout_seconds: 30}";
    let ws = Workspace::new(
        &one_hook("post.loop.error", hook),
        "pi/anthropic/text.jsonl | | hang=60\n",
    );
    let (code, events, stderr) = run_limited(&ws);
    assert_stopped_at_the_limit(code, &events, &stderr);
    let hook = of_type(&events, "hook_finished")[0];
    assert_eq!(
        (&hook["phase"], &hook["failure"]),
        (&json!("post.loop.error"), &Value::Null),
        "{hook}"
    );
    let reported = std::fs::read_to_string(ws.path().join("reported"));
    assert_eq!(reported.ok().as_deref(), Some("done\n"));
}
