//! `ralph events`: each iteration of the current run, what it was handed and what it
//! emitted (the agent's events, ralph's own, those a gate withheld), the running one
//! included, as a table and as JSON.

mod common;

use std::process::Output;

use common::{Workspace, code};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn events_shows_each_iteration_and_what_it_emitted() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | plan.ready=step one;note |
pi/anthropic/text.jsonl | |
pi/anthropic/tool.jsonl | LOOP_COMPLETE |
",
    );
    let run = ws.run(&["run", "-q", "-p", "task"]);
    assert_eq!(code(run.status), 0, "{}", stderr(&run));

    let out = ws.run(&["events", "--format", "json"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let rows: Vec<(Value, Value, Value, Value)> = stdout(&out)
        .lines()
        .map(|l| {
            let row: Value = serde_json::from_str(l).expect("JSON line");
            (
                row["iteration"].clone(),
                row["outcome"].clone(),
                row["topic"].clone(),
                row["payload"].clone(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            (
                json!(1),
                json!("succeeded"),
                json!("plan.ready"),
                json!("step one")
            ),
            (json!(1), json!("succeeded"), json!("note"), Value::Null),
            (json!(2), json!("succeeded"), Value::Null, Value::Null),
            // Nothing was pending: ralph resumed the loop itself.
            (
                json!(3),
                json!("succeeded"),
                json!("task.resume"),
                Value::Null
            ),
            (
                json!(3),
                json!("succeeded"),
                json!("LOOP_COMPLETE"),
                Value::Null
            ),
        ]
    );

    let out = ws.run(&["events", "--topic", "*.ready"]);
    let table = stdout(&out);
    assert_eq!(table.lines().count(), 2, "{table}");
    assert!(
        table.starts_with("TIME  ITER  HAT    OUTCOME    FROM   TOPIC       PAYLOAD\n"),
        "{table}"
    );
    assert!(
        table
            .lines()
            .nth(1)
            .is_some_and(|l| l.ends_with("     1  ralph  succeeded  agent  plan.ready  step one")),
        "{table}"
    );

    let out = ws.run(&["events", "--last", "1", "--format", "json"]);
    let last: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(last.len(), 1);
    assert_eq!(last[0]["topic"], "LOOP_COMPLETE");
}

#[test]
fn events_shows_what_the_running_iteration_emitted_so_far() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | progress=half done | hang=60\n",
    );
    let child = ws.start(&["run", "-q", "-p", "task"]);
    ws.wait_for_agent(1);
    // The agent emits before it replays its transcript; wait for the line to land.
    let deadline = std::time::Instant::now() + common::RUN_TIMEOUT;
    let rows = loop {
        let out = ws.run(&["events", "--format", "json"]);
        let rows: Vec<Value> = stdout(&out)
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect();
        // Until then the iteration has its row without a topic.
        if rows.iter().any(|r| !r["topic"].is_null()) || std::time::Instant::now() > deadline {
            break rows;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    // The run's list says when it started, though no iteration has ended yet.
    let runs: Value = serde_json::from_str(stdout(&ws.run(&["runs", "--format", "json"])).trim())
        .expect("one run");
    let stopped = ws.stop(child, nix::sys::signal::Signal::SIGINT);
    assert_eq!(code(stopped.status), 130);
    // The running iteration is described by its start (its `iteration_started`).
    let started = rows[0]["started_at_ms"].as_u64().expect("a start time");
    assert_eq!(
        rows,
        vec![
            json!({"iteration": 1, "hat": "ralph", "backend": "pi", "outcome": "running",
            "started_at_ms": started, "consumed": ["task.start"], "source": "agent",
            "topic": "progress", "payload": "half done", "withheld": false})
        ]
    );
    assert_eq!(
        (
            &runs["outcome"],
            &runs["started_at_ms"],
            &runs["iterations"]
        ),
        (&json!("running"), &json!(started), &json!(0)),
        "{runs}"
    );
}

#[test]
fn events_shows_the_iteration_at_work_and_a_message_queued_for_the_next_as_not_run() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | | hang=60\n",
    );
    let child = ws.start(&["run", "-q", "-p", "task"]);
    ws.wait_for_agent(1);
    let steered = ws.run(&["steer", "--next", "later please"]);
    assert_eq!(code(steered.status), 0, "{}", stderr(&steered));
    let out = ws.run(&["events", "--format", "json"]);
    let rows: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let table = stdout(&ws.run(&["events"]));
    let stopped = ws.stop(child, nix::sys::signal::Signal::SIGINT);
    assert_eq!(code(stopped.status), 130);
    let shown: Vec<Value> = rows
        .iter()
        .map(|r| {
            json!([
                r["iteration"],
                r["hat"],
                r["outcome"],
                r["topic"],
                r["payload"]
            ])
        })
        .collect();
    assert_eq!(
        shown,
        vec![
            // The one at work, though its agent has emitted nothing yet.
            json!([1, "ralph", "running", null, null]),
            // The next one has not started: its message waits for its prompt.
            json!([2, null, "not_run", "human.guidance", "later please"]),
        ],
        "{table}"
    );
    assert!(rows[0]["started_at_ms"].is_u64(), "{}", rows[0]);
}

#[test]
fn events_without_a_run_says_how_to_start_one() {
    let ws = Workspace::new("", "");
    let out = ws.run(&["events"]);
    assert_eq!(code(out.status), 1);
    assert!(
        stderr(&out).contains("start one with `ralph run`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_commands_that_read_runs_find_the_workspace_from_a_subdirectory() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\ngates:\n  - name: top\n    run: test -f ralph.yml\n",
        "pi/anthropic/tool.jsonl | LOOP_COMPLETE |\n",
    );
    let run = ws.run(&["run", "-q", "--no-gates", "-p", "task"]);
    assert_eq!(code(run.status), 0, "{}", stderr(&run));
    let deep = ws.path().join("src/deep");
    std::fs::create_dir_all(&deep).unwrap();
    let from_deep = |args: &[&str]| {
        ws.command(args)
            .current_dir(&deep)
            .output()
            .expect("run ralph")
    };
    let events = from_deep(&["events", "--format", "json"]);
    assert_eq!(code(events.status), 0, "{}", stderr(&events));
    assert!(
        stdout(&events).contains("LOOP_COMPLETE"),
        "{}",
        stdout(&events)
    );
    let runs = from_deep(&["runs"]);
    assert_eq!(code(runs.status), 0, "{}", stderr(&runs));
    assert!(stdout(&runs).contains("completed"), "{}", stdout(&runs));
    let inspect = from_deep(&["inspect", "--run", "last", "--iteration", "1"]);
    assert_eq!(code(inspect.status), 0, "{}", stderr(&inspect));
    // The gates run at the top of the workspace, where its files are.
    let gates = from_deep(&["gates"]);
    assert_eq!(code(gates.status), 0, "{}", stdout(&gates));
    assert!(
        !deep.join(".ralph").exists(),
        "a store was made in the subdirectory"
    );
}
