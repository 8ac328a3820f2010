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

/// An agent that floods its output cannot fill the disk through the record: past 16 MiB
/// of an iteration's streamed lines the record (and `--output json`, which it equals)
/// leaves the rest out, says where, and says how many lines and bytes it left out; the
/// transcript keeps every line.
#[test]
fn a_flood_of_output_is_cut_in_the_record_and_kept_in_the_transcript() {
    const LINES: u64 = 1_000_000;
    const LINE: &str = "a line the agent prints again and again";
    let ws = Workspace::new(
        "cli:\n  backend: custom\n  command: sh\n  args: [agent.sh]\n  prompt_mode: stdin\n",
        "",
    );
    let script = format!("cat >/dev/null\nyes '{LINE}' | head -n {LINES}\n");
    std::fs::write(ws.path().join("agent.sh"), script).expect("agent.sh");
    let out = ws.run(&[
        "run",
        "--output",
        "json",
        "-p",
        "task",
        "--max-iterations",
        "1",
    ]);
    assert_eq!(common::code(out.status), 2, "{}", common::stderr(&out));
    let record = recorded(&ws);
    assert_eq!(record, String::from_utf8(out.stdout).unwrap());
    // The cap and the JSON of what else the run said, not the flood's 110 MB.
    assert!(record.len() < 17 * 1024 * 1024, "{} bytes", record.len());

    let events: Vec<serde_json::Value> = record
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let kept = events
        .iter()
        .filter(|e| e["event"]["type"] == "text_delta")
        .count() as u64;
    let position = |notice: &str| {
        events
            .iter()
            .position(|e| e["notice"] == notice)
            .unwrap_or_else(|| panic!("no {notice} notice"))
    };
    let (cut, left_out) = (
        position("agent_output_cut"),
        position("agent_output_left_out"),
    );
    let finished = events
        .iter()
        .position(|e| e["type"] == "iteration_finished")
        .expect("iteration_finished");
    assert!(cut < left_out && left_out < finished);
    assert_eq!(events[cut]["iteration"], 1);
    assert!(events[cut]["kept_bytes"].as_u64().unwrap() <= 16 * 1024 * 1024);
    let left = &events[left_out];
    assert_eq!(left["lines"].as_u64().unwrap() + kept, LINES, "{left}");
    let line_bytes = LINE.len() as u64 + 1;
    assert_eq!(left["bytes"].as_u64().unwrap(), (LINES - kept) * line_bytes);

    let transcript = std::fs::File::open(ws.run_files().dir().join("iterations/1/stdout.zst"))
        .expect("the transcript");
    let raw = zstd::decode_all(transcript).expect("zstd");
    assert_eq!(raw.len() as u64, LINES * line_bytes);
}
