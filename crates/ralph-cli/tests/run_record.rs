//! Every run keeps its run events in `.ralph/runs/<id>/run-events.jsonl`: the same lines
//! `--output json` prints, whichever view the run shows.

mod common;

use common::Workspace;
use pretty_assertions::assert_eq;

fn recorded(ws: &Workspace) -> String {
    std::fs::read_to_string(ws.run_files().dir().join("run-events.jsonl")).expect("the record")
}

#[test]
fn the_record_is_what_output_json_prints() {
    let plan = "pi/anthropic/text.jsonl | step.done |\npi/anthropic/text.jsonl | LOOP_COMPLETE |\n";
    let ws = Workspace::new("cli:\n  backend: pi\n", plan);
    let out = ws.run(&["run", "--output", "json", "-p", "task"]);
    assert_eq!(common::code(out.status), 0);
    assert_eq!(recorded(&ws), String::from_utf8(out.stdout).unwrap());
}

#[test]
fn a_text_run_is_recorded_too_and_continue_appends() {
    let plan = "pi/anthropic/text.jsonl | step.done |\n";
    let ws = Workspace::new("cli:\n  backend: pi\n", plan);
    let out = ws.run(&["run", "-p", "task", "--max-iterations", "1"]);
    assert_eq!(common::code(out.status), 2);
    let first = recorded(&ws);
    let types: Vec<String> = first
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(types.first().map(String::as_str), Some("loop_started"));
    assert_eq!(types.last().map(String::as_str), Some("loop_finished"));
    let out = ws.run(&["run", "--continue", "--max-iterations", "2"]);
    assert_eq!(common::code(out.status), 2);
    let both = recorded(&ws);
    assert!(both.starts_with(&first) && both.len() > first.len());
    assert_eq!(both.matches("\"type\":\"loop_started\"").count(), 2);
}
