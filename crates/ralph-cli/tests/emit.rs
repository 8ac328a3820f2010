//! `ralph emit`: how agents publish events.

mod common;
#[path = "emit/flooded_inbox.rs"]
mod flooded_inbox;
#[path = "emit/late_events.rs"]
mod late_events;
#[path = "emit/loop_edges.rs"]
mod loop_edges;

use common::{RUN_TIMEOUT, Workspace, code, finished, of_type, wait_output};
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

/// An agent that waits: the loop runs while the test emits.
const HANGING_AGENT: &str = "pi/anthropic/text.jsonl | | hang=60\n";

/// Starts a loop whose agent waits, and returns it with its run's inbox.
fn running_loop(ws: &Workspace) -> (std::process::Child, std::path::PathBuf) {
    let child = ws.start(&["run", "-q", "-p", "task"]);
    ws.wait_for_agent(1);
    (child, current_inbox(ws))
}

/// Ends a loop `running_loop` started.
fn end_loop(ws: &Workspace, child: std::process::Child) {
    let stopped = ws.stop(child, nix::sys::signal::Signal::SIGINT);
    assert_eq!(code(stopped.status), 130);
}

#[test]
fn emit_appends_one_line_per_event_to_the_events_file() {
    let ws = Workspace::new("cli:\n  backend: pi\n", HANGING_AGENT);
    let (child, inbox) = running_loop(&ws);
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
    end_loop(&ws, child);
}

#[test]
fn emit_warns_when_a_topic_surely_meant_the_completion_promise() {
    let ws = Workspace::new("cli:\n  backend: pi\n", HANGING_AGENT);
    let (child, inbox) = running_loop(&ws);
    let emit = |topic: &str, promise: &str| {
        let out = ws
            .command(&["emit", topic])
            .env("RALPH_EVENTS_FILE", &inbox)
            .env("RALPH_COMPLETION_PROMISE", promise)
            .output()
            .expect("emit");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (code(out.status), stderr)
    };
    // Another case, other separators: published as ordinary events, with a warning that
    // names the promise.
    for (topic, promise) in [
        ("loop_complete", "LOOP_COMPLETE"),
        ("LOOP-COMPLETE", "LOOP_COMPLETE"),
        ("all.done", "ALL_DONE"),
    ] {
        let (status, stderr) = emit(topic, promise);
        assert_eq!(status, 0, "{stderr}");
        assert!(
            stderr.contains(&format!(
                "warning: `{topic}` is not the completion promise `{promise}`"
            )) && stderr.contains(&format!("`ralph emit {promise}` ends it")),
            "{topic}: {stderr}"
        );
    }
    // Spaces around it: refused as a topic, and what it meant is said too.
    let (status, stderr) = emit(" LOOP_COMPLETE", "LOOP_COMPLETE");
    assert_eq!(status, 1, "{stderr}");
    assert!(
        stderr.contains("` LOOP_COMPLETE` is not the completion promise `LOOP_COMPLETE`"),
        "{stderr}"
    );
    assert!(stderr.contains("not allowed in a topic"), "{stderr}");
    // The promise itself, and a topic that merely shares a word with it: nothing said.
    for topic in ["LOOP_COMPLETE", "task.complete"] {
        let (status, stderr) = emit(topic, "LOOP_COMPLETE");
        assert_eq!((status, stderr.as_str()), (0, ""), "{topic}");
    }
    let topics: Vec<String> = inbox_lines(&inbox)
        .iter()
        .map(|l| l["topic"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        topics,
        [
            "loop_complete",
            "LOOP-COMPLETE",
            "all.done",
            "LOOP_COMPLETE",
            "task.complete"
        ]
    );
    end_loop(&ws, child);
}

#[test]
fn emit_refuses_bad_topics_and_bad_json_without_writing() {
    let ws = Workspace::new("", "");
    let inbox = ws.path().join("inbox.jsonl");
    let too_deep = nested(65);
    let cases = [
        (vec!["emit", "build done"], "`build done`"),
        (vec!["emit", "t", "--json", "{oops"], "not valid JSON"),
        (
            vec!["emit", "t", "--json", &too_deep],
            "nests 65 levels deep",
        ),
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
fn emit_after_the_loop_ended_fails_and_writes_nothing() {
    // The run stopped at its iteration limit: nothing would read a new event.
    let ws = Workspace::new("cli:\n  backend: pi\n", "pi/anthropic/text.jsonl | |\n");
    let out = ws.run(&["run", "-p", "task", "--max-iterations", "1"]);
    assert_eq!(code(out.status), 2);
    let inbox = current_inbox(&ws);
    let before = std::fs::read(&inbox).expect("inbox");
    let out = ws.run(&["emit", "late", "x"]);
    assert_eq!(code(out.status), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no ralph loop is running"), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing is said to be published");
    // Nor through a RALPH_EVENTS_FILE left over from the ended run.
    let out = ws
        .command(&["emit", "late", "y"])
        .env("RALPH_EVENTS_FILE", &inbox)
        .output()
        .expect("emit");
    assert_eq!(code(out.status), 1);
    assert_eq!(std::fs::read(&inbox).expect("inbox"), before);
}

#[test]
fn emit_outside_an_agent_goes_to_the_running_loop() {
    // A person steering a running loop from another terminal: no RALPH_EVENTS_FILE.
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | | hang=60\n",
    );
    let (child, inbox) = running_loop(&ws);
    let out = ws.run(&["emit", "human.guidance", "use the new API"]);
    let lines = inbox_lines(&inbox);
    end_loop(&ws, child);
    succeeded(&out);
    assert_eq!(
        lines,
        vec![serde_json::json!({"topic": "human.guidance", "payload": "use the new API"})]
    );
}

#[test]
fn emit_refuses_an_events_file_that_is_not_the_running_runs_inbox() {
    // RALPH_EVENTS_FILE is anyone's to set (a cloned repository's `.envrc`, an agent):
    // emit must not append to whatever it names, with or without a loop running.
    let ws = Workspace::new("cli:\n  backend: pi\n", HANGING_AGENT);
    let elsewhere = ws.path().join("notes.txt");
    std::fs::write(&elsewhere, "mine\n").expect("write");
    let other = tempfile::tempdir().expect("tempdir");
    let other_inbox = other
        .path()
        .join(".ralph/runs/20260101T000000Z/inbox.jsonl");
    std::fs::create_dir_all(other_inbox.parent().expect("run dir")).expect("mkdir");
    let emit = |events_file: &std::path::Path| {
        let out = ws
            .command(&["emit", "planted", "x"])
            .env("RALPH_EVENTS_FILE", events_file)
            .output()
            .expect("emit");
        (
            code(out.status),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let refused = |(status, stderr): (i32, String), why: &str| {
        assert_eq!(status, 1, "{stderr}");
        assert!(stderr.contains(why), "{stderr}");
        assert!(
            stderr.contains("env -u RALPH_EVENTS_FILE ralph emit"),
            "says what to do: {stderr}"
        );
    };
    // No loop runs at all.
    refused(emit(&elsewhere), "which is not a run's events file");
    let (child, inbox) = running_loop(&ws);
    let state = inbox.with_file_name("state.json");
    let state_before = std::fs::read(&state).expect("state");
    let sneaky = ws.path().join(".ralph/runs/../notes.txt");
    // The right file, but relative (ralph sets it absolute): it would name another file
    // from each directory it is used in.
    let relative = inbox.strip_prefix(ws.path()).expect("inside");
    for (path, why) in [
        (relative, "a relative path (ralph run sets an absolute one)"),
        (elsewhere.as_path(), "which is not a run's events file"),
        (state.as_path(), "which is not a run's events file"),
        (sneaky.as_path(), "which is not a run's events file"),
        (other_inbox.as_path(), "a run of another workspace"),
    ] {
        refused(emit(path), why);
    }
    assert_eq!(std::fs::read(&state).expect("state"), state_before);
    let old_run = ws.path().join(".ralph/runs/20200101T000000Z/inbox.jsonl");
    refused(emit(&old_run), "not the workspace's current one");
    // The running run's own inbox still takes it, also named through `..`.
    let roundabout = ws
        .path()
        .join("sub/..")
        .join(inbox.strip_prefix(ws.path()).expect("inside"));
    std::fs::create_dir_all(ws.path().join("sub")).expect("mkdir");
    let (status, stderr) = emit(&roundabout);
    let lines = inbox_lines(&inbox);
    end_loop(&ws, child);
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(
        lines,
        vec![serde_json::json!({"topic": "planted", "payload": "x"})]
    );
    assert_eq!(std::fs::read_to_string(&elsewhere).expect("read"), "mine\n");
    assert!(!other_inbox.exists());
    assert!(!old_run.exists());
}

/// The inbox of the workspace's current run.
/// When this test process started, as a closing loop records it in `inbox.closed`.
fn own_start() -> Option<u64> {
    ralph_agent::supervise::own_identity().map(|me| me.start_ticks)
}

fn current_inbox(ws: &Workspace) -> std::path::PathBuf {
    ws.run_files().dir().join("inbox.jsonl")
}

#[test]
fn emit_during_ralph_plan_fails_and_writes_nothing() {
    // A finished run, then a planning session whose agent tries to publish an event.
    // `ralph plan` does not put ralph on the agent's PATH: the agent names it in full.
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        &format!(
            "pi/anthropic/text.jsonl | |\n\
             - | | | '{}' emit late x > emit.out 2>&1; echo $? > emit.code\n",
            common::ralph_bin()
        ),
    );
    let out = ws.run(&["run", "-p", "task", "--max-iterations", "1"]);
    assert_eq!(code(out.status), 2);
    let inbox = current_inbox(&ws);
    let before = std::fs::read(&inbox).expect("inbox");
    let out = ws.run(&["plan", "an idea"]);
    emit_was_refused(&ws, &out, "no ralph loop is running");
    assert_eq!(std::fs::read(&inbox).expect("inbox"), before);
}

/// An array nested `levels` deep: `[[…]]`.
fn nested(levels: usize) -> String {
    format!("{}{}", "[".repeat(levels), "]".repeat(levels))
}

#[test]
fn a_payload_nested_to_the_limit_is_kept_and_a_deeper_planted_one_skipped() {
    // JSON readers stop at a depth (serde_json at 128). A payload near it, wrapped in
    // the run's own records, once made `ralph events` and `--continue` call the whole
    // run damaged.
    let script = format!(
        "ralph emit kept.deep --json '{}'\n\
         printf '%s\\n' '{{\"topic\":\"planted.deep\",\"payload\":{}}}' >> \"$RALPH_EVENTS_FILE\"\n\
         ralph emit LOOP_COMPLETE\n",
        nested(64),
        nested(126),
    );
    let ws = Workspace::new(
        "cli:\n  backend: custom\n  command: sh\n  args: [agent.sh]\n\
         event_loop:\n  max_iterations: 2\n",
        "",
    );
    std::fs::write(ws.path().join("agent.sh"), script).expect("agent.sh");
    let (status, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(status, 0, "{stderr}");
    let invalid: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["notice"] == "invalid_line")
        .collect();
    assert_eq!(invalid.len(), 1, "{events:?}");
    let out = ws.run(&["events", "--format", "json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    succeeded(&out);
    assert!(stdout.contains("kept.deep"), "{stdout}");
    assert!(!stdout.contains("planted.deep"), "{stdout}");
    let out = ws.run(&["runs", "--format", "json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\"completed\""), "{stdout}");
}

/// Waits until the fake agent of invocation `n` reached its pause (`pause_at`).
fn wait_paused(ws: &Workspace, n: usize) {
    let marker = ws.path().join(format!(".fake/paused-{n}"));
    let deadline = std::time::Instant::now() + RUN_TIMEOUT;
    while !marker.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the agent never paused"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn an_event_emitted_from_outside_the_agent_is_routed_but_not_credited_to_the_hat() {
    // Iteration 1's agent emits `plan.note` itself, then waits while a person, from
    // another terminal (no `RALPH_AGENT_RUN`), emits a topic and the completion promise.
    // Iteration 2's agent gives the promise itself.
    let plan = "pi/anthropic/text.jsonl | plan.note=mine | pause_at=1\n\
                pi/anthropic/text.jsonl | LOOP_COMPLETE |\n";
    let ws = Workspace::new("cli:\n  backend: pi\n", plan);
    let child = ws.start_json(&["-p", "task"]);
    wait_paused(&ws, 1);
    for args in [
        &["emit", "hotfix.needed", "the login page is down"][..],
        &["emit", "LOOP_COMPLETE"],
    ] {
        let out = ws.command(args).output().expect("emit");
        assert_eq!(
            code(out.status),
            0,
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::write(ws.path().join(".fake/resume-1"), "").expect("resume");
    let out = wait_output(child);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(code(out.status), 0, "{stderr}");

    // The person's promise did not complete iteration 1: the agent's own did, in 2.
    let end = finished(&events);
    assert_eq!(end["totals"]["iterations"], 2, "{end}");
    let emitted = of_type(&events, "events_emitted");
    let said = |e: &serde_json::Value, key: &str| -> Vec<String> {
        e[key]
            .as_array()
            .expect("array")
            .iter()
            .map(|ev| ev["topic"].as_str().expect("topic").to_owned())
            .collect()
    };
    assert_eq!(said(emitted[0], "events"), ["plan.note"]);
    assert_eq!(
        said(emitted[0], "outside"),
        ["hotfix.needed", "LOOP_COMPLETE"]
    );
    assert_eq!(said(emitted[1], "events"), ["LOOP_COMPLETE"]);
    assert!(
        of_type(&events, "notice")
            .iter()
            .any(|n| n["notice"] == "promise_from_outside" && n["iteration"] == 1),
        "{events:?}"
    );

    // The history says who published what, and the person's topic still steered the loop.
    let history = ws.history();
    assert_eq!(history[0]["completion"], serde_json::Value::Null);
    assert_eq!(history[0]["events"][0]["topic"], "plan.note");
    assert_eq!(history[0]["outside"][0]["topic"], "hotfix.needed");
    let consumed: Vec<&str> = (history[1]["consumed"].as_array().expect("consumed").iter())
        .map(|e| e["topic"].as_str().expect("topic"))
        .collect();
    assert_eq!(consumed, ["plan.note", "hotfix.needed"]);
    assert_eq!(history[1]["completion"], "event");

    // The inbox names the agent as the sender of its own line, and nobody for the person's.
    let inbox = inbox_lines(&current_inbox(&ws));
    let senders: Vec<(String, bool)> = inbox
        .iter()
        .map(|l| {
            (
                l["topic"].as_str().expect("topic").to_owned(),
                l.get("sender").is_some(),
            )
        })
        .collect();
    assert_eq!(
        senders,
        [
            ("plan.note".to_owned(), true),
            ("hotfix.needed".to_owned(), false),
            ("LOOP_COMPLETE".to_owned(), false),
            ("LOOP_COMPLETE".to_owned(), true),
        ]
    );

    // `ralph events` lists the person's events as from outside.
    let out = ws
        .command(&["events", "--format", "json"])
        .output()
        .expect("events");
    let rows: Vec<(String, String)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("row"))
        .filter(|r| r["iteration"] == 1)
        .map(|r| (r["source"].to_string(), r["topic"].to_string()))
        .collect();
    assert_eq!(
        rows,
        [
            ("\"agent\"".to_owned(), "\"plan.note\"".to_owned()),
            ("\"outside\"".to_owned(), "\"hotfix.needed\"".to_owned()),
            ("\"outside\"".to_owned(), "\"LOOP_COMPLETE\"".to_owned()),
        ]
    );
}

/// `out` (of a command whose agent or hook ran `ralph emit`, its exit code in `emit.code`
/// and its output in `emit.out`) succeeded, and the emit failed saying `says`.
fn emit_was_refused(ws: &Workspace, out: &std::process::Output, says: &str) {
    succeeded(out);
    let read = |name: &str| std::fs::read_to_string(ws.path().join(name)).expect(name);
    assert_eq!(read("emit.code").trim(), "1", "{}", read("emit.out"));
    assert!(read("emit.out").contains(says), "{}", read("emit.out"));
}

/// `out` is of a command that exited 0 (its stderr said otherwise).
fn succeeded(out: &std::process::Output) {
    assert_eq!(
        code(out.status),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
