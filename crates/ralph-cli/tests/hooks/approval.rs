//! A `pre.loop.complete` hook is the completion's approval: a run stopped while it runs
//! or waits did not complete.

use super::common::{Workspace, code, finished};
use super::suspend::wait_suspended;
use super::{config, payloads};

const COMPLETES: &str = "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n";

fn ctrl_c_during_approval(approval: &str) {
    let ws = Workspace::new(
        &config(&format!(
            "  enabled: true
  events:
    pre.loop.complete:
      - {approval}
    post.loop.complete:
      - {{name: rec, command: 'cat >> payloads.jsonl', on_error: warn}}
"
        )),
        COMPLETES,
    );
    let child = ws.start(&["run", "-p", "task", "--output", "json"]);
    let started = ws.path().join("approval.started");
    let deadline = std::time::Instant::now() + super::common::RUN_TIMEOUT;
    while !started.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the approval never ran"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    if approval.contains("suspend") {
        wait_suspended(&ws);
    }
    let out = ws.stop(child, nix::sys::signal::Signal::SIGINT);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(out.status), 130, "{said}");
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(finished(&events)["reason"], "interrupted", "{events:?}");
    assert!(ws.summary().contains("interrupted"), "{}", ws.summary());
    // Not approved: nothing celebrates a completion, and the run can go on.
    assert!(payloads(&ws).is_empty());
    let again = ws.run(&["run", "--continue", "--max-iterations", "1"]);
    assert!(
        !String::from_utf8_lossy(&again.stderr).contains("already completed"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
}

#[test]
fn ctrl_c_while_the_completion_s_approval_runs_ends_the_run_interrupted() {
    ctrl_c_during_approval(
        "{name: approve, command: 'touch approval.started; cat >/dev/null; sleep 30', \
         on_error: block, timeout_seconds: 60}",
    );
}

#[test]
fn ctrl_c_while_the_completion_s_approval_waits_ends_the_run_interrupted() {
    ctrl_c_during_approval(
        "{name: approve, command: 'touch approval.started; cat >/dev/null; exit 1', \
         on_error: suspend}",
    );
}
