//! The workflow as a user meets it: `ralph run`, `--dry-run` and `ralph doctor` say where
//! the hats, the starting event and the promise do not fit together, and trigger
//! patterns route a run's events.

mod common;

use common::{Workspace, code};
use pretty_assertions::assert_eq;
use serde_json::Value;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A pipeline whose builder starts on an event ralph never publishes.
const STARTS_NOWHERE: &str = "\
cli:
  backend: pi
event_loop:
  starting_event: work.begin
hats:
  builder:
    description: Builds
    triggers: [work.start]
";

#[test]
fn a_starting_event_no_hat_takes_is_a_warning_in_dry_run_and_doctor() {
    let ws = Workspace::new(STARTS_NOWHERE, "");
    let warning = "ralph.yml:4:19: no hat triggers on the starting event `work.begin`, so \
                   ralph's coordinator takes the first iteration";

    let dry = ws.run(&["run", "--dry-run", "-p", "task"]);
    assert_eq!(code(dry.status), 0, "{}", stderr(&dry));
    assert!(
        stderr(&dry).contains(&format!("ralph: warning: {warning}")),
        "{}",
        stderr(&dry)
    );

    let doctor = ws.run(&["doctor", "--format", "json"]);
    let report: Value =
        serde_json::from_str(&String::from_utf8_lossy(&doctor.stdout)).expect("one JSON object");
    let warnings = report["config"]["warnings"].as_array().expect("warnings");
    assert!(
        warnings.len() == 1 && warnings[0].as_str().unwrap().starts_with(warning),
        "{report}"
    );
}

#[test]
fn a_hat_waiting_on_the_promise_stops_the_run_before_anything_starts() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\nhats:\n  closer:\n    description: x\n    triggers: [LOOP_COMPLETE]\n",
        "",
    );
    let out = ws.run(&["run", "-p", "task"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with(
            "ralph: ralph.yml:6:16: hat `closer` triggers on `LOOP_COMPLETE`, the completion \
             promise"
        ),
        "{}",
        stderr(&out)
    );
    assert!(ws.agent_log().is_empty(), "no agent may start");
}

#[test]
fn every_config_error_is_a_line_of_its_own_prefixed_as_ralphs() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 0\n  max_runtime_seconds: 0\n",
        "",
    );
    let out = ws.run(&["run", "-p", "task"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    let text = stderr(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "two errors and the closing line:\n{text}");
    assert!(
        lines[0].starts_with("ralph: ralph.yml:4:19: ")
            && lines[1].starts_with("ralph: ralph.yml:5:24: ")
            && lines[2] == "ralph: nothing was run; fix the configuration and try again",
        "{text}"
    );
}

#[test]
fn trigger_patterns_route_a_run_exact_first_then_segments_then_star() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\nevent_loop:\n  starting_event: work.start\nhats:\n  \
         builder:\n    description: x\n    triggers: [work.*, build.*]\n  \
         closer:\n    description: x\n    triggers: [build.done]\n  \
         catchall:\n    description: x\n    triggers: ['*']\n",
        "pi/anthropic/text.jsonl | build.started |
pi/anthropic/text.jsonl | build.done |
pi/anthropic/text.jsonl | review.asked |
pi/anthropic/tool.jsonl | LOOP_COMPLETE |
",
    );
    let out = ws.run(&["run", "-q", "-p", "task"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let hats: Vec<Value> = ws.history().into_iter().map(|r| r["hat"].clone()).collect();
    assert_eq!(hats, ["builder", "builder", "closer", "catchall"]);
}
