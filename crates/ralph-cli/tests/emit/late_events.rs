//! `ralph emit` after the loop read its last iteration's events (a gate or a hook of that
//! iteration, a person meanwhile): the loop reads the event as it closes its inbox, and
//! names it; it is never left unread while emit said "published".

use std::time::Duration;

use pretty_assertions::assert_eq;
use ralph_core::store::RalphDir;
use serde_json::{Value, json};

use super::common::{Workspace, code, of_type, wait_output};
use super::{inbox_lines, own_start};

/// A gate on the completion, run after the iteration's events were read, that emits
/// `hotfix.needed` (keeping emit's output and exit code in `emit.out` and `emit.code`),
/// then exits with `exit`.
fn emitting_gate(exit: u8) -> String {
    let emit = format!(
        "'{}' emit hotfix.needed 'please look' > emit.out 2>&1; echo $? > emit.code; exit {exit}",
        super::common::ralph_bin()
    );
    format!("cli:\n  backend: pi\ngates:\n  - name: late\n    run: \"{emit}\"\n")
}

/// The `events_after_end` notices among a run's JSON events.
fn late_notices(events: &[Value]) -> Vec<&Value> {
    of_type(events, "notice")
        .into_iter()
        .filter(|n| n["notice"] == "events_after_end")
        .collect()
}

/// emit, run by the gate, said "published" and exited 0.
fn emit_published(ws: &Workspace) {
    let read = |name: &str| std::fs::read_to_string(ws.path().join(name)).expect(name);
    assert_eq!(read("emit.code").trim(), "0", "{}", read("emit.out"));
    assert!(
        read("emit.out").contains("published"),
        "{}",
        read("emit.out")
    );
}

#[test]
fn an_event_a_gate_emits_as_the_run_completes_is_read_and_named() {
    let ws = Workspace::new(
        &emitting_gate(0),
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let (exit, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(exit, 0, "{stderr}");
    emit_published(&ws);
    let notices = late_notices(&events);
    assert_eq!(notices.len(), 1, "{events:#?}");
    assert_eq!(notices[0]["topics"], json!(["hotfix.needed"]));
    assert_eq!(
        notices[0]["kept"],
        json!(false),
        "a completed run goes no further"
    );
}

#[test]
fn an_event_a_gate_emits_in_the_last_iteration_waits_for_continue() {
    // The gate refuses the completion: the run stops at its limit, and can be continued.
    let ws = Workspace::new(
        &emitting_gate(1),
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let (exit, events, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!(exit, 2, "{stderr}");
    emit_published(&ws);
    let notices = late_notices(&events);
    assert_eq!(notices.len(), 1, "{events:#?}");
    assert_eq!(notices[0]["kept"], json!(true));
    let pending: Vec<Value> = ws.saved_state()["state"]["pending"]
        .as_array()
        .expect("pending")
        .iter()
        .map(|e| e["topic"].clone())
        .collect();
    assert!(pending.contains(&json!("hotfix.needed")), "{pending:?}");
}

#[test]
fn emit_waits_while_the_loop_reads_its_inbox_for_the_last_time() {
    let ws = Workspace::new("", "");
    let dir = RalphDir::in_workspace(ws.path());
    let run = dir.create_run(std::time::SystemTime::now()).expect("run");
    // This test stands in for a loop that has stopped and is closing its inbox.
    let _loop = dir.lock().expect("lock");
    let closing = run.lock_inbox().expect("inbox lock");
    let mut emit = ws.start(&["emit", "person.note", "too late"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        emit.try_wait().expect("emit").is_none(),
        "emit went on while the loop was closing its inbox"
    );
    assert_eq!(inbox_lines(&run.inbox()), Vec::<Value>::new());
    run.close_inbox(own_start()).expect("close");
    drop(closing);
    let out = wait_output(emit);
    assert_eq!(code(out.status), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("is finishing"));
    assert_eq!(inbox_lines(&run.inbox()), Vec::<Value>::new());
}
