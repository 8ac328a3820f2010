//! `ralph inspect` at the command-line boundary.

use std::path::PathBuf;
use std::process::Command;
use std::process::Stdio;

use pretty_assertions::assert_eq;
use serde_json::Value;

fn ralph() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ralph"))
}

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(rel)
}

#[test]
fn prints_one_object_with_exactly_the_documented_keys() {
    let out = ralph()
        .arg("inspect")
        .arg(fixture("pi/openai/tool.jsonl"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        v,
        serde_json::json!({
            "agent": "pi",
            "final_text": "Done. out.txt contains: hello. LOOP_COMPLETE",
            "cost_usd": 0.010215,
            "cost_kind": "reported",
            "tokens": {"input": 2200, "output": 36, "cache_read": 4000, "cache_write": 500},
            "tokens_known": true,
            "turns": 2,
            "tool_calls": 1,
            "tool_errors": 0,
            "errors": [],
            "succeeded": true,
            "rate_limited": null,
            "terminal_event": true,
            "lines": 43,
            "unknown_events": 0,
            "non_json_lines": 0,
            "oversize_lines": 0
        })
    );
}

#[test]
fn reads_stdin_and_recognises_claude() {
    let bytes = std::fs::read(fixture("claude/v2.1.332_http500_max_retries2.jsonl")).unwrap();
    let mut child = ralph()
        .args(["inspect", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            v["agent"].as_str(),
            v["succeeded"].as_bool(),
            v["terminal_event"].as_bool()
        ),
        (Some("claude"), Some(false), Some(true))
    );
    assert_eq!(v["errors"].as_array().unwrap().len(), 1);
}

#[test]
fn events_mode_prints_only_json_lines_with_a_type() {
    let out = ralph()
        .args(["inspect", "--events"])
        .arg(fixture("claude/v2.1.332_rich.jsonl"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let types: Vec<String> = stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(types.first().map(String::as_str), Some("session_started"));
    assert_eq!(types.last().map(String::as_str), Some("run_finished"));
    assert_eq!(
        types.iter().filter(|t| *t == "tool_call_started").count(),
        6
    );
}

#[test]
fn something_that_is_not_an_agent_stream_is_an_error_with_exit_code_1() {
    let out = ralph()
        .arg("inspect")
        .arg(fixture("pi/pty/pypty.textmode.raw"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("is not an agent stream"), "{stderr}");

    let out = ralph()
        .args(["inspect", "--agent", "claude"])
        .arg(fixture("pi/pty/pypty.textmode.raw"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not look like a claude stream"));
}

#[test]
fn a_missing_file_names_the_file() {
    let out = ralph()
        .args(["inspect", "/nonexistent/run.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/run.jsonl"));
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let mut child = ralph()
        .args(["inspect", "--events"])
        .arg(fixture("pi/anthropic/long.jsonl"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn the_view_ends_with_the_line_the_live_view_closes_an_iteration_with() {
    let out = ralph()
        .args(["inspect", "--view", "--color", "never"])
        .arg(fixture("pi/anthropic/text.jsonl"))
        .output()
        .expect("ralph inspect");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("✓ succeeded · 1 turn · ") && last.contains(" tokens · $"),
        "{text}"
    );
}

#[test]
fn a_rate_limited_capture_says_so_with_the_reset_time_when_the_agent_gave_one() {
    let inspect = |rel: &str| -> Value {
        let out = ralph().arg("inspect").arg(fixture(rel)).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let limit = |v: &Value| {
        (
            v["succeeded"].clone(),
            v["rate_limited"]["resets_at"].clone(),
        )
    };
    // OpenCode passes the provider's reset time on; pi does not (the limit is still seen).
    assert_eq!(
        limit(&inspect(
            "opencode/v1.18.33_json_ratelimit429_headers.jsonl"
        )),
        (Value::Bool(false), Value::from(1_795_686_091_u64))
    );
    let pi = inspect("pi/anthropic/ratelimit429_headers.jsonl");
    assert_eq!(limit(&pi), (Value::Bool(false), Value::Null));
    assert!(
        pi["rate_limited"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("429")),
        "{pi}"
    );
}

/// A run's capture with one Claude session per attempt: the second attempt's agent
/// repeats its own cumulative total in a second `result` (as a background sub-agent's
/// does), which must not be added again.
fn two_claude_sessions() -> String {
    let started = |iteration: u32, attempt: u32| {
        serde_json::json!({
            "type": "iteration_started", "iteration": iteration, "attempt": attempt,
            "hat": "builder", "hat_name": "Builder", "backend": "claude",
        })
        .to_string()
    };
    let result = |iteration: u32, cost: f64, input: u64| {
        serde_json::json!({
            "type": "agent", "iteration": iteration,
            "event": {
                "type": "run_finished", "is_error": false, "error": null, "turns": 2,
                "duration_ms": 5,
                "totals": {
                    "tokens": {"input": input, "output": 10, "cache_read": 0, "cache_write": 0},
                    "cost_usd": cost, "cost_kind": "reported", "model": "claude-opus-5-5",
                },
            },
        })
        .to_string()
    };
    [
        started(1, 1),
        result(1, 0.5, 100),
        started(2, 1),
        result(2, 0.25, 50),
        result(2, 0.25, 50),
    ]
    .join("\n")
}

#[test]
fn a_capture_of_several_sessions_adds_their_costs_and_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("run-events.jsonl");
    std::fs::write(&capture, two_claude_sessions()).unwrap();
    let out = ralph().arg("inspect").arg(&capture).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            v["cost_usd"].clone(),
            v["cost_kind"].clone(),
            v["tokens"]["input"].clone(),
            v["tokens"]["output"].clone(),
        ),
        (
            Value::from(0.75),
            Value::from("reported"),
            Value::from(150),
            Value::from(20),
        ),
        "{v}"
    );
}

#[test]
fn tokens_copilot_never_counted_are_unknown_not_zero() {
    let capture = fixture("copilot/v1.0.102_json_happy.jsonl");
    let out = ralph().arg("inspect").arg(&capture).output().unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["tokens_known"].clone(), v["cost_kind"].clone()),
        (Value::Bool(false), Value::from("unknown"))
    );
    let out = ralph()
        .args(["inspect", "--view", "--color", "never"])
        .arg(&capture)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default();
    assert!(last.contains(" · tokens unknown · cost unknown"), "{text}");
}

#[test]
fn a_one_line_file_that_is_not_a_stream_is_named_in_the_singular() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("note.txt");
    std::fs::write(&path, "just a note\n").unwrap();
    for agent in [None, Some("claude")] {
        let mut cmd = ralph();
        cmd.arg("inspect");
        if let Some(agent) = agent {
            cmd.args(["--agent", agent]);
        }
        let out = cmd.arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains("its only line is not a"), "{stderr}");
        assert!(!stderr.contains("1 lines"), "{stderr}");
    }
}
