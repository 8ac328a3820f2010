//! `ralph emit` at the edges of a loop: while it finishes, and while a new one starts.

use std::time::Duration;

use pretty_assertions::assert_eq;
use ralph_core::store::RalphDir;

use super::common::{Workspace, code, wait_output};
use super::{current_inbox, emit_was_refused, inbox_lines, own_start, succeeded};

#[test]
fn emit_while_the_loop_finishes_fails_and_writes_nothing() {
    // The agent completes; an end hook then emits, as a person could from another
    // terminal: the loop still holds the workspace lock, but reads no more events.
    let hook = format!(
        "'{}' emit hotfix.needed 'please look' > emit.out 2>&1; echo $? > emit.code",
        super::common::ralph_bin()
    );
    let config = format!(
        "cli:\n  backend: pi\nhooks:\n  enabled: true\n  events:\n    post.loop.complete:\n      \
         - {{name: late, command: \"{hook}\", on_error: warn}}\n"
    );
    let ws = Workspace::new(&config, "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n");
    let out = ws.run(&["run", "-q", "-p", "task"]);
    emit_was_refused(&ws, &out, "is finishing");
    let read = |name: &str| std::fs::read_to_string(ws.path().join(name)).expect(name);
    assert!(
        !read("emit.out").contains("published"),
        "{}",
        read("emit.out")
    );
    let topics: Vec<_> = inbox_lines(&current_inbox(&ws))
        .into_iter()
        .map(|line| line["topic"].clone())
        .collect();
    assert_eq!(
        topics,
        vec![serde_json::json!("LOOP_COMPLETE")],
        "the agent's only"
    );
}

#[test]
fn emit_while_a_new_loop_starts_goes_to_the_new_run() {
    // The last run's ralph is long gone.
    emit_while_a_new_loop_starts("1 elsewhere\n", "use the new API");
}

#[test]
fn a_new_loop_with_the_pid_of_the_one_that_closed_the_last_run_is_waited_for() {
    // The last run's ralph had this test's pid, and started at another time: this
    // process is a new loop that got its pid.
    let started = own_start().expect("this process's start time");
    let host = ralph_core::store::this_host().unwrap_or_default();
    let mark = format!("{} {host}\nstarted {}\n", std::process::id(), started + 1);
    emit_while_a_new_loop_starts(&mark, "for the new run");
}

/// The last run ended with its inbox closed by the ralph `mark` names; a new loop (this
/// test, standing in for it) has taken the lock and checks its agents, and names its run
/// only after `ralph emit <note>` started: the note goes to the new run, not the old.
fn emit_while_a_new_loop_starts(mark: &str, note: &str) {
    let ws = Workspace::new("", "");
    let dir = RalphDir::in_workspace(ws.path());
    let old = dir
        .create_run(std::time::SystemTime::now())
        .expect("old run");
    std::fs::write(old.inbox_closed_path(), mark).expect("mark");
    let lock = dir.lock().expect("lock");
    let emit = ws.start(&["emit", "person.note", note]);
    std::thread::sleep(Duration::from_millis(300));
    let new = dir
        .create_run(std::time::SystemTime::now())
        .expect("new run");
    let out = wait_output(emit);
    drop(lock);
    succeeded(&out);
    assert_eq!(inbox_lines(&old.inbox()), Vec::<serde_json::Value>::new());
    assert_eq!(
        inbox_lines(&new.inbox()),
        vec![serde_json::json!({"topic": "person.note", "payload": note})]
    );
}

#[test]
fn emit_refuses_at_once_when_the_lock_is_the_closing_loops() {
    let ws = Workspace::new("", "");
    let dir = RalphDir::in_workspace(ws.path());
    let run = dir.create_run(std::time::SystemTime::now()).expect("run");
    let _lock = dir.lock().expect("lock");
    run.close_inbox(own_start()).expect("close");
    let started = std::time::Instant::now();
    let out = ws.run(&["emit", "late", "x"]);
    assert_eq!(code(out.status), 1);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "no wait for a loop that is finishing"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("is finishing"));
    assert!(out.stdout.is_empty());
    assert_eq!(inbox_lines(&run.inbox()), Vec::<serde_json::Value>::new());
}

#[test]
fn emit_reaches_a_continued_run() {
    // The run stopped at its limit and closed its inbox; `--continue` reads it again.
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | |\npi/anthropic/text.jsonl | | hang=60\n",
    );
    let out = ws.run(&["run", "-q", "-p", "task", "--max-iterations", "1"]);
    assert_eq!(code(out.status), 2);
    let inbox = current_inbox(&ws);
    let child = ws.start(&["run", "-q", "--continue", "--max-iterations", "3"]);
    ws.wait_for_agent(2);
    let out = ws.run(&["emit", "human.guidance", "go on"]);
    let stopped = ws.stop(child, nix::sys::signal::Signal::SIGINT);
    assert_eq!(code(stopped.status), 130);
    succeeded(&out);
    assert_eq!(
        inbox_lines(&inbox),
        vec![serde_json::json!({"topic": "human.guidance", "payload": "go on"})]
    );
}
