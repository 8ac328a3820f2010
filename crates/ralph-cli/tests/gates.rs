//! Gates end to end with the fake agents: a completion refused until the work is really
//! done, a gate that never passes, a refusal routed back to the builder in a three-hat
//! loop, a hung gate and its grandchildren stopped at the timeout, Ctrl-C during a gate,
//! a gate that floods its output, one whose many lines are counted whole, `ralph gates`
//! and `--no-gates`.

mod common;

use std::time::{Duration, Instant};

use common::{Workspace, code, finished, gone, of_type, wait_output};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const TEXT: &str = "pi/anthropic/text.jsonl";

/// A pi config with one gate that passes once `done.txt` exists, saying why not.
const DONE_FILE_GATE: &str = "\
cli:
  backend: pi
gates:
  - name: done-file
    run: \"test -f done.txt || { echo 'done.txt is missing'; exit 1; }\"
";

fn gate_events(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e["type"] == "gate_started" || e["type"] == "gate_finished")
        .map(|e| {
            json!([
                e["type"],
                e["iteration"],
                e["gate"],
                e["event"],
                e["passed"],
                e["reason"]
            ])
        })
        .collect()
}

#[test]
fn a_completion_is_refused_until_the_gate_passes() {
    let plan = format!("{TEXT} | LOOP_COMPLETE |\n{TEXT} | LOOP_COMPLETE | write=done.txt\n");
    let ws = Workspace::new(DONE_FILE_GATE, &plan);
    let (code, events, stderr) = ws.run_json(&["-p", "make done.txt", "--max-iterations", "5"]);
    assert_eq!(
        (code, finished(&events)["reason"].clone()),
        (0, json!("completed")),
        "{stderr}"
    );
    assert_eq!(
        gate_events(&events),
        [
            json!(["gate_started", 1, "done-file", "LOOP_COMPLETE", null, null]),
            json!([
                "gate_finished",
                1,
                "done-file",
                "LOOP_COMPLETE",
                false,
                "exit"
            ]),
            json!(["gate_started", 2, "done-file", "LOOP_COMPLETE", null, null]),
            json!([
                "gate_finished",
                2,
                "done-file",
                "LOOP_COMPLETE",
                true,
                "passed"
            ]),
        ]
    );
    let failed = of_type(&events, "gate_finished")[0];
    assert_eq!(
        (&failed["exit_code"], &failed["output"], &failed["log"]),
        (
            &json!(1),
            &json!("done.txt is missing"),
            &json!(format!(
                ".ralph/runs/{}/gates/1-done-file.log",
                ws.run_files().id()
            ))
        )
    );
    let emitted: Vec<Value> = of_type(&events, "events_emitted")
        .iter()
        .map(|e| json!([e["verified"], e["withheld"]]))
        .collect();
    assert_eq!(
        emitted,
        [
            json!([[], ["LOOP_COMPLETE"]]),
            json!([["LOOP_COMPLETE"], []])
        ]
    );
    // The agent's next prompt says which gate failed, its command and its output.
    let prompt = ws.prompt(2);
    for part in [
        "`gate.failed`",
        "gate `done-file`",
        "test -f done.txt",
        "failed with exit code 1",
        "done.txt is missing",
    ] {
        assert!(prompt.contains(part), "no {part:?} in:\n{prompt}");
    }
    // History and the summary record each gate's result; the log holds the output.
    let history = ws.history();
    assert_eq!(
        (
            &history[0]["gates"][0]["reason"],
            &history[0]["withheld"],
            &history[1]["verified"]
        ),
        (
            &json!("exit"),
            &json!(["LOOP_COMPLETE"]),
            &json!(["LOOP_COMPLETE"])
        )
    );
    let summary = ws.summary();
    assert!(
        summary.contains("| done-file | 2 | 1 |") && summary.contains("passed (iteration 2)"),
        "{summary}"
    );
    let log = std::fs::read_to_string(ws.run_files().dir().join("gates/1-done-file.log"))
        .expect("the gate's log");
    assert_eq!(log, "done.txt is missing\n");
}

#[test]
fn a_gate_that_never_passes_ends_the_run_at_its_limit_naming_the_gate() {
    let ws = Workspace::new(DONE_FILE_GATE, &format!("{TEXT} | LOOP_COMPLETE |\n"));
    let (code, events, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "2"]);
    let end = finished(&events);
    assert_eq!(
        (code, &end["reason"]),
        (2, &json!("max_iterations")),
        "{stderr}"
    );
    assert_eq!(
        end["message"],
        json!(
            "iteration limit reached (2 iterations); the last completion claim was refused by gate \
             `done-file` (exit code 1)"
        )
    );
    assert!(ws.summary().contains("refused by gate `done-file`"));
    // The text view says it too.
    let ws = Workspace::new(DONE_FILE_GATE, &format!("{TEXT} | LOOP_COMPLETE |\n"));
    let out = ws.run(&["run", "-p", "task", "--max-iterations", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for part in [
        "▸ gate done-file · test -f done.txt",
        "✗ gate done-file failed (exit code 1)",
        "│ done.txt is missing",
        "emitted LOOP_COMPLETE ✗ withheld (gate failed)",
        "refused by gate `done-file`",
    ] {
        assert!(text.contains(part), "no {part:?} in:\n{text}");
    }
}

const THREE_HATS: &str = "\
cli:
  backend: pi
event_loop:
  starting_event: work.start
hats:
  planner:
    description: Plans, and ends the loop once reviewed
    triggers: [work.start, review.approved]
    publishes: [plan.ready, LOOP_COMPLETE]
  builder:
    description: Builds
    triggers: [plan.ready]
    publishes: [build.done]
  reviewer:
    description: Reviews
    triggers: [build.done]
    publishes: [review.approved]
gates:
  - name: built
    run: \"test -f built.txt || { echo 'built.txt is missing'; exit 1; }\"
    before: [build.done]
";

#[test]
fn a_gate_guarding_build_done_sends_the_failure_back_to_the_builder() {
    let plan = format!(
        "{TEXT} | plan.ready |\n\
         {TEXT} | build.done=claims |\n\
         {TEXT} | build.done=built | write=built.txt\n\
         {TEXT} | review.approved |\n\
         {TEXT} | LOOP_COMPLETE |\n"
    );
    let ws = Workspace::new(THREE_HATS, &plan);
    let (code, events, stderr) = ws.run_json(&["-p", "build it", "--max-iterations", "8"]);
    assert_eq!(code, 0, "{stderr}\n{events:?}");
    let hats: Vec<String> = ws
        .agent_log()
        .iter()
        .map(|l| l.split_whitespace().nth(2).unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        hats,
        [
            "hat=planner",
            "hat=builder",
            "hat=builder",
            "hat=reviewer",
            "hat=planner"
        ]
    );
    let builder_again = ws.prompt(3);
    assert!(
        builder_again.contains("built.txt is missing") && builder_again.contains("`build.done`"),
        "{builder_again}"
    );
    // The reviewer only ever saw the verified build.done.
    let consumed: Vec<Value> = ws.history().iter().map(|r| r["consumed"].clone()).collect();
    assert_eq!(
        consumed[3],
        json!([{"topic": "build.done", "payload": "built"}])
    );
}

#[test]
fn a_hung_gate_is_stopped_at_its_timeout_with_its_grandchildren() {
    let config = "\
cli:
  backend: pi
gates:
  - name: hangs
    run: \"sh -c 'trap \\\"\\\" TERM; echo $$ > grandchild.pid; exec sleep 300' & wait\"
    timeout_seconds: 1
";
    let ws = Workspace::new(config, &format!("{TEXT} | LOOP_COMPLETE |\n"));
    let started = Instant::now();
    let (code, events, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(30));
    let done = of_type(&events, "gate_finished")[0];
    assert_eq!(done["reason"], json!("timeout"));
    // It printed nothing; a failed gate's `output` is there all the same.
    assert_eq!(done["output"], json!(""), "{done}");
    let pid: i32 = std::fs::read_to_string(ws.path().join("grandchild.pid"))
        .expect("the gate started its grandchild")
        .trim()
        .parse()
        .expect("pid");
    assert!(gone(pid), "the gate's grandchild {pid} survived");
}

#[test]
fn ctrl_c_during_a_gate_ends_the_run_with_130_and_leaves_nothing_running() {
    let ws = Workspace::new(common::SLOW_GATE, &format!("{TEXT} | LOOP_COMPLETE |\n"));
    let child = ws.start(&["run", "--output", "json", "-p", "task"]);
    let gate = common::wait_for_pid(&ws.path().join("gate.pid"), "the gate");
    let gate_child = common::wait_for_pid(&ws.path().join("gate-child"), "the gate's child");
    let out = ws.stop(child, nix::sys::signal::Signal::SIGINT);
    assert_eq!(
        code(out.status),
        130,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(r#""reason":"interrupted""#), "{stdout}");
    assert!(gone(gate), "the gate {gate} survived Ctrl-C");
    assert!(
        gone(gate_child),
        "the gate's child {gate_child} survived Ctrl-C"
    );
}

#[test]
fn a_gate_printing_a_gigabyte_keeps_ralphs_memory_flat() {
    let config = "\
cli:
  backend: pi
gates:
  - name: flood
    run: \"head -c 1073741824 /dev/zero | tr '\\\\0' x; echo; echo the end; exit 1\"
";
    let ws = Workspace::new(config, &format!("{TEXT} | LOOP_COMPLETE |\n"));
    let child = ws.start_json(&["-p", "task", "--max-iterations", "1"]);
    let pid = child.id();
    let peak = std::thread::spawn(move || {
        let mut peak = 0;
        // VmHWM is the peak resident size of ralph itself (not of the gate's processes).
        while let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            if let Some(kb) = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak = kb;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        peak
    });
    let out = wait_output(child);
    let peak_kb = peak.join().unwrap();
    assert_eq!(
        code(out.status),
        2,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(r#""output":"the end""#) || stdout.contains("the end"),
        "{stdout}"
    );
    // The gigabyte is one line, then `the end`: each counted as it streamed by.
    assert!(stdout.contains(r#""output_lines":2"#), "{stdout}");
    assert!(
        peak_kb > 0 && peak_kb < 64 * 1024,
        "ralph peaked at {peak_kb} kB"
    );
    // The log keeps the start and the end, not the gigabyte, and says what went.
    let log = std::fs::read(ws.run_files().dir().join("gates/1-flood.log")).expect("the log");
    assert!(log.len() < 9 << 20, "the log holds {} bytes", log.len());
    assert!(log.starts_with(b"xxxx"));
    assert!(log.ends_with(b"xxxx\nthe end\n"));
    let said = String::from_utf8_lossy(&log);
    assert!(said.contains("bytes of output left out here"));
}

#[test]
fn a_failed_gate_says_how_many_lines_it_printed_in_all_not_only_in_its_tail() {
    // Far more lines than the tail ralph keeps (60), the last one without a newline.
    let config = "\
cli:
  backend: pi
gates:
  - name: many
    run: \"seq 1 300000; printf last; exit 1\"
";
    let ws = Workspace::new(config, &format!("{TEXT} | LOOP_COMPLETE |\n"));
    let out = ws.run(&["gates"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(code(out.status), 1, "{stdout}");
    assert!(
        stdout.contains("  │ … the last of 300,001 lines:\n  │ 299990\n"),
        "{stdout}"
    );
    assert!(stdout.contains("  │ last\n"), "{stdout}");
    let out = ws.run(&["gates", "--output", "json"]);
    let finished: Value = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .find(|e| e["type"] == "gate_finished")
        .expect("gate_finished");
    assert_eq!(finished["output_lines"], 300_001);
}

#[test]
fn ralph_gates_runs_them_by_hand_and_no_gates_skips_them() {
    let config = "\
cli:
  backend: pi
gates:
  - name: ok
    run: [\"true\"]
  - name: fails
    run: \"echo nope; exit 3\"
  - name: silent
    run: [\"false\"]
";
    let ws = Workspace::new(config, &format!("{TEXT} | LOOP_COMPLETE |\n"));
    let out = ws.run(&["gates", "ok"]);
    assert_eq!(
        code(out.status),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("✓ gate ok passed"));
    let out = ws.run(&["gates", "--output", "json"]);
    assert_eq!(code(out.status), 1);
    let finished: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .filter(|e| e["type"] == "gate_finished")
        .map(|e| {
            json!([
                e["gate"],
                e["passed"],
                e["exit_code"],
                e["iteration"],
                e["log"],
                e.get("output")
            ])
        })
        .collect();
    // `output` only when it failed, and then even when it printed nothing.
    assert_eq!(
        finished,
        [
            json!(["ok", true, 0, null, ".ralph/gates/ok.log", null]),
            json!(["fails", false, 3, null, ".ralph/gates/fails.log", "nope"]),
            json!(["silent", false, 1, null, ".ralph/gates/silent.log", ""]),
        ]
    );
    // Those logs are run files: kept out of an agent's `git add -A`.
    let ignore = std::fs::read_to_string(ws.path().join(".ralph/.gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "gates/"), "{ignore}");
    let out = ws.run(&["gates", "tset"]);
    assert_eq!(code(out.status), 1);
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("no gate named `tset` (the gates are: ok, fails, silent)"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // --no-gates: the promise is believed, with a warning.
    let (code, events, stderr) = ws.run_json(&["-p", "task", "--no-gates"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("--no-gates: the 3 configured gate(s) will not run"),
        "{stderr}"
    );
    assert!(of_type(&events, "gate_started").is_empty());
}

#[test]
fn a_misconfigured_gate_runs_nothing() {
    let config = "\
cli:
  backend: pi
gates:
  - name: tests
    run: make
    before: [build.done]
";
    let ws = Workspace::new(config, &format!("{TEXT} | LOOP_COMPLETE |\n"));
    let out = ws.run(&["run", "-p", "task"]);
    assert_eq!(code(out.status), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("ralph.yml:6:14: gate `tests` guards `build.done`, which nothing publishes"),
        "{stderr}"
    );
    assert!(ws.agent_log().is_empty());
    assert!(!ws.path().join(".ralph/runs").exists());
}

#[test]
fn gates_run_by_hand_in_a_worktree_loop_s_checkout_know_its_name() {
    let ws = Workspace::new("", "");
    let checkout = ws.path().join(".ralph/worktrees/fix-parser");
    std::fs::create_dir_all(&checkout).unwrap();
    // A git worktree's checkout: its `.git` is a file naming the repository's.
    std::fs::write(
        checkout.join(".git"),
        "gitdir: ../../../.git/worktrees/fix-parser\n",
    )
    .unwrap();
    std::fs::write(
        checkout.join("ralph.yml"),
        "gates:\n  - name: named\n    run: 'test \"$RALPH_WORKTREE\" = fix-parser'\n",
    )
    .unwrap();
    let out = ws
        .command(&["gates"])
        .current_dir(&checkout)
        .output()
        .expect("run ralph gates");
    assert_eq!(
        code(out.status),
        0,
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
