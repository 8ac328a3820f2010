//! A task list holding one id twice (a line copied by hand, two branches' files merged):
//! every command and the loop take the id to name the first task, each says where the
//! repeat is, and the repeat stays in the file as it was.

mod common;

use common::{Workspace, finished, of_type};
use pretty_assertions::assert_eq;
use serde_json::json;

const FIRST: &str = r#"{"id":"task-5-aaaa","title":"first","status":"open","priority":3,"blocked_by":[],"created":"2026-01-01T00:00:00Z"}"#;
const COPY: &str = r#"{"id":"task-5-aaaa","title":"second copy","status":"open","priority":3,"blocked_by":[],"created":"2026-01-01T00:00:00Z"}"#;

fn with_repeat(config: &str, plan: &str) -> Workspace {
    let ws = Workspace::new(config, plan);
    std::fs::create_dir_all(ws.path().join(".ralph/agent")).unwrap();
    std::fs::write(
        ws.path().join(".ralph/agent/tasks.jsonl"),
        format!("{FIRST}\n{COPY}\n"),
    )
    .unwrap();
    ws
}

fn task(ws: &Workspace, args: &[&str]) -> (i32, String, String) {
    ws.tools_task(args)
}

#[test]
fn the_commands_agree_on_the_first_task_and_warn_about_the_repeat() {
    let ws = with_repeat("", "");
    let (status, stdout, stderr) = task(&ws, &["list", "--format", "quiet"]);
    assert_eq!((status, stdout.as_str()), (0, "task-5-aaaa\n"));
    assert!(
        stderr.contains(
            ".ralph/agent/tasks.jsonl:2: repeats the id `task-5-aaaa` of the task on line 1"
        ) && stderr.contains("give this line an id of its own")
            && stderr.contains("kept in the file"),
        "{stderr}"
    );
    let (status, stdout, _) = task(&ws, &["close", "task-5-aaaa"]);
    assert_eq!(
        (status, stdout.as_str()),
        (0, "closed task task-5-aaaa: first (closed)\n")
    );
    let (status, stdout, _) = task(&ws, &["ready", "--format", "quiet"]);
    assert_eq!((status, stdout.as_str()), (0, ""));
    let text = std::fs::read_to_string(ws.path().join(".ralph/agent/tasks.jsonl")).unwrap();
    assert_eq!(
        text.lines().nth(1),
        Some(COPY),
        "the repeat is kept verbatim"
    );
}

#[test]
fn the_loop_completes_once_the_agent_closed_what_ready_showed() {
    let plan = "pi/anthropic/text.jsonl | LOOP_COMPLETE | | \
                for id in $(ralph tools task ready --format quiet); do ralph tools task close $id; done\n";
    let ws = with_repeat("cli:\n  backend: pi\n", plan);
    let (status, events, stderr) = ws.run_json(&["-p", "finish", "--max-iterations", "3"]);
    assert_eq!(
        (status, finished(&events)["reason"].clone()),
        (0, json!("completed")),
        "{stderr}"
    );
    let refusals = of_type(&events, "notice")
        .into_iter()
        .filter(|n| n["notice"] == "tasks_unfinished")
        .count();
    assert_eq!(refusals, 0);
}
