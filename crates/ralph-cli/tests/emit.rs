//! `ralph emit`: how agents publish events.

mod common;

use common::{Workspace, code};
use pretty_assertions::assert_eq;

fn inbox_lines(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("json line");
            v.as_object_mut().expect("object").remove("ts");
            v
        })
        .collect()
}

#[test]
fn emit_appends_one_line_per_event_to_the_events_file() {
    let ws = Workspace::new("", "");
    let inbox = ws.path().join("inbox.jsonl");
    for args in [
        vec!["emit", "build.done", "tests pass\nall 12"],
        vec![
            "emit",
            "review.rejected",
            "--json",
            "{\"file\": \"a.rs\", \"n\": 2}",
        ],
        vec!["emit", "note", "- starts with a dash"],
        vec!["emit", "LOOP_COMPLETE"],
    ] {
        let out = ws
            .command(&args)
            .env("RALPH_EVENTS_FILE", &inbox)
            .output()
            .expect("emit");
        assert_eq!(
            code(out.status),
            0,
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        inbox_lines(&inbox),
        vec![
            serde_json::json!({"topic": "build.done", "payload": "tests pass\nall 12"}),
            serde_json::json!({"topic": "review.rejected", "payload": {"file": "a.rs", "n": 2}}),
            serde_json::json!({"topic": "note", "payload": "- starts with a dash"}),
            serde_json::json!({"topic": "LOOP_COMPLETE"}),
        ]
    );
}

#[test]
fn emit_refuses_bad_topics_and_bad_json_without_writing() {
    let ws = Workspace::new("", "");
    let inbox = ws.path().join("inbox.jsonl");
    let cases = [
        (vec!["emit", "build done"], "`build done`"),
        (vec!["emit", "t", "--json", "{oops"], "not valid JSON"),
    ];
    for (args, message) in cases {
        let out = ws
            .command(&args)
            .env("RALPH_EVENTS_FILE", &inbox)
            .output()
            .expect("emit");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(code(out.status), 1, "{stderr}");
        assert!(stderr.contains(message), "{stderr}");
    }
    assert!(!inbox.exists());
}

#[test]
fn emit_without_a_run_says_so() {
    let ws = Workspace::new("", "");
    let out = ws.run(&["emit", "build.done"]);
    assert_eq!(code(out.status), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no ralph run to send the event to"));
}

#[test]
fn emit_outside_an_agent_goes_to_the_current_run() {
    // A person steering a run between iterations: no RALPH_EVENTS_FILE.
    let ws = Workspace::new("cli:\n  backend: pi\n", "pi/anthropic/text.jsonl | |\n");
    let out = ws.run(&["run", "-p", "task", "--max-iterations", "1"]);
    assert_eq!(code(out.status), 2);
    let out = ws.run(&["emit", "human.guidance", "use the new API"]);
    assert_eq!(
        code(out.status),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let id = std::fs::read_to_string(ws.path().join(".ralph/current-run")).expect("marker");
    let inbox = ws
        .path()
        .join(".ralph/runs")
        .join(id.trim())
        .join("inbox.jsonl");
    assert_eq!(
        inbox_lines(&inbox),
        vec![serde_json::json!({"topic": "human.guidance", "payload": "use the new API"})]
    );
}
