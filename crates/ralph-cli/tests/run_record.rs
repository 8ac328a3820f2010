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

/// The run's cap on streamed output counts every session of the run: once earlier
/// sessions recorded all but 1 MiB of it, a `--continue` whose agent floods keeps that
/// 1 MiB, then only each iteration's start, and the notices say the run's cap cut them;
/// the transcripts keep every line.
#[test]
fn a_continued_run_s_flood_is_held_to_what_is_left_of_the_run_s_cap() {
    use std::io::{Read, Seek, SeekFrom, Write};
    // MAX_STREAMED_BYTES_PER_RUN and STREAMED_HEAD_BYTES_PAST_RUN_CAP, as documented.
    const PER_RUN: u64 = 256 * 1024 * 1024;
    const HEAD: u64 = 64 * 1024;
    const LEFT: u64 = 1024 * 1024;
    const FLOOD: u64 = 4_000_000;
    let ws = Workspace::new(
        "cli:\n  backend: custom\n  command: sh\n  args: [agent.sh]\n  prompt_mode: stdin\n",
        "",
    );
    let script = format!(
        "cat >/dev/null\n[ -e flood ] && yes 'a line the agent prints again and again' | \
         head -c {FLOOD}\nexit 0\n"
    );
    std::fs::write(ws.path().join("agent.sh"), script).expect("agent.sh");
    let first = ws.run(&["run", "-p", "task", "--max-iterations", "1"]);
    assert_eq!(common::code(first.status), 2, "{}", common::stderr(&first));

    // Earlier sessions that recorded all but LEFT of the cap, without writing 255 MiB:
    // the record grows by a hole (read as NUL bytes), ended by a newline.
    let path = ws.run_files().dir().join("run-events.jsonl");
    let mut record = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .expect("the record");
    let before = PER_RUN - LEFT;
    record.set_len(before - 1).expect("grow the record");
    record.write_all(b"\n").expect("end the hole");
    drop(record);

    std::fs::write(ws.path().join("flood"), "").expect("flood");
    let args = [
        "run",
        "--output",
        "json",
        "--continue",
        "--max-iterations",
        "4",
    ];
    let out = ws.run(&args);
    assert_eq!(common::code(out.status), 2, "{}", common::stderr(&out));
    let mut added = String::new();
    let mut record = std::fs::File::open(&path).expect("the record");
    record.seek(SeekFrom::Start(before)).expect("seek");
    record.read_to_string(&mut added).expect("read");
    assert_eq!(added, String::from_utf8(out.stdout).unwrap());
    // What was left, a head for each later iteration, each iteration's final answer (the
    // last 64 KiB of a plain-text agent's output, escaped as JSON, which passes as any
    // message's end does), and what else the run said: not the 12 MB the agent wrote.
    let answers = 3 * 80 * 1024;
    let bound = LEFT + 2 * HEAD + answers + 16 * 1024;
    assert!((added.len() as u64) < bound, "{} bytes", added.len());

    let events: Vec<serde_json::Value> = added
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let of = |notice: &str| -> Vec<&serde_json::Value> {
        events.iter().filter(|e| e["notice"] == notice).collect()
    };
    let (cuts, left_out) = (of("agent_output_cut"), of("agent_output_left_out"));
    let iterations: Vec<&serde_json::Value> = cuts.iter().map(|e| &e["iteration"]).collect();
    assert_eq!(iterations, [2, 3, 4]);
    assert_eq!(left_out.len(), 3);
    assert!(cuts.iter().chain(&left_out).all(|e| e["cap"] == "run"));
    let kept: Vec<u64> = cuts
        .iter()
        .map(|e| e["kept_bytes"].as_u64().unwrap())
        .collect();
    assert!(kept[0] > HEAD && kept[0] <= LEFT, "{kept:?}");
    assert!(kept[1..].iter().all(|&k| k > 0 && k <= HEAD), "{kept:?}");

    let transcript = std::fs::File::open(ws.run_files().dir().join("iterations/4/stdout.zst"))
        .expect("the transcript");
    let raw = zstd::decode_all(transcript).expect("zstd");
    assert_eq!(raw.len() as u64, FLOOD);
}
