//! `ralph steer` against a running loop of fake agents: where a message goes, what the
//! next prompt shows, what the run records, and a run directory full of traps.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use common::{RUN_TIMEOUT, Workspace, code, finished, of_type, wait_output};
use pretty_assertions::assert_eq;
use serde_json::Value;

const HEADING: &str = "## Guidance from the person running the loop";
const CONFIG: &str = "cli:\n  backend: pi\n";
/// Iteration 1 stops after its first line until the test lets it go on; then each
/// iteration answers at once (the answer names the promise only in a sentence, so the
/// loop runs to its iteration limit).
const PAUSED_FIRST: &str = "pi/anthropic/text.jsonl | | pause_at=1\npi/anthropic/text.jsonl | |\n";

/// Waits until the `in-hook` marker of a slow `pre.iteration.start` hook appears (ralph
/// must not have ended first); gives `child` back.
fn wait_in_hook(ws: &Workspace, mut child: std::process::Child) -> std::process::Child {
    let marker = ws.path().join("in-hook");
    let deadline = Instant::now() + RUN_TIMEOUT;
    while !marker.exists() {
        assert!(Instant::now() < deadline, "the hook never ran");
        if child.try_wait().expect("wait").is_some() {
            panic!("ralph ended: {:?}", wait_output(child));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

/// Waits until the fake agent of invocation `n` reached its pause.
fn wait_paused(ws: &Workspace, n: usize) {
    let marker = ws.path().join(format!(".fake/paused-{n}"));
    let deadline = Instant::now() + RUN_TIMEOUT;
    while !marker.exists() {
        assert!(Instant::now() < deadline, "the agent never paused");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn resume(ws: &Workspace, n: usize) {
    std::fs::write(ws.path().join(format!(".fake/resume-{n}")), "").expect("resume");
}

/// `ralph steer <args>` run from `dir`.
fn steer_in(ws: &Workspace, dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["steer"];
    all.extend_from_slice(args);
    let child = ws
        .command(&all)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn ralph steer");
    wait_output(child)
}

/// `ralph steer <message>` from the workspace, which must answer that it queued the
/// message for `iteration`.
fn steer_queued(ws: &Workspace, message: &str, iteration: u32) {
    let (code, stdout, stderr) = said(&steer_in(ws, ws.path(), &[message]));
    let queued = format!("queued for iteration {iteration}\n");
    assert_eq!((code, &stdout), (0, &queued), "{stderr}");
}

fn said(out: &Output) -> (i32, String, String) {
    (
        code(out.status),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// Waits for a `ralph run --output json` to exit with `expected`; returns its events.
fn exits_with(child: std::process::Child, expected: i32) -> Vec<Value> {
    let out = wait_output(child);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(out.status), expected, "{stderr}");
    json_lines(&out)
}

/// Ctrl-C to a `ralph run --output json`, which must then exit with 130: its events.
fn interrupted(ws: &Workspace, child: std::process::Child) -> Vec<Value> {
    let out = ws.stop(child, nix::sys::signal::Signal::SIGINT);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(out.status), 130, "{stderr}");
    json_lines(&out)
}

/// Where each line of the run's `steering.jsonl` says its message went.
fn went(ws: &Workspace) -> Vec<String> {
    let log = std::fs::read_to_string(run_dir(ws).join("steering.jsonl")).unwrap();
    log.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["went"].to_string())
        .collect()
}

/// Each iteration's `steering` counts, as its history record keeps them.
fn steering_records(ws: &Workspace) -> Vec<Value> {
    ws.history().iter().map(|r| r["steering"].clone()).collect()
}

fn run_dir(ws: &Workspace) -> PathBuf {
    ws.run_files().dir().to_path_buf()
}

#[test]
fn a_message_sent_while_the_agent_works_is_queued_into_the_next_prompt_once() {
    let ws = Workspace::new(CONFIG, PAUSED_FIRST);
    let child = ws.start_json(&["-p", "task", "--max-iterations", "3"]);
    wait_paused(&ws, 1);
    // From a directory inside the workspace, as from another terminal.
    let sub = ws.path().join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    let first = steer_in(&ws, &sub, &["Reuse the parser in src/parse.rs."]);
    assert_eq!(
        said(&first),
        (0, "queued for iteration 2\n".to_owned(), String::new())
    );
    let second = steer_in(&ws, ws.path(), &["--next", "Then write\nthe docs."]);
    assert_eq!(
        said(&second).1,
        "queued for iteration 2\n",
        "{}",
        said(&second).2
    );
    resume(&ws, 1);
    let events = exits_with(child, 2);

    assert!(!ws.prompt(1).contains(HEADING));
    let prompt = ws.prompt(2);
    let section = &prompt[prompt.find(HEADING).expect("guidance in prompt 2")..];
    assert!(
        section.contains("- Reuse the parser in src/parse.rs.\n- Then write\n  the docs.\n"),
        "{prompt}"
    );
    assert!(
        section.contains("## How to work"),
        "before the role: {prompt}"
    );
    assert!(!ws.prompt(3).contains(HEADING), "consumed once");
    let kept = std::fs::read_to_string(run_dir(&ws).join("iterations/2/prompt.md")).unwrap();
    assert!(kept.contains("Reuse the parser in src/parse.rs."));

    let received = of_type(&events, "steer_received");
    let shown: Vec<(&Value, &Value, &Value)> = received
        .iter()
        .map(|e| (&e["iteration"], &e["queued"], &e["went"]))
        .collect();
    let queued = (
        &Value::from(2),
        &Value::from(true),
        &Value::from("queued for iteration 2"),
    );
    assert_eq!(shown, vec![queued, queued]);
    assert_eq!(received[0]["message"], "Reuse the parser in src/parse.rs.");
    let delivered = of_type(&events, "steer_delivered");
    assert_eq!(delivered.len(), 2);
    assert_eq!(
        (&delivered[0]["via"], &delivered[0]["iteration"]),
        (&"prompt".into(), &2.into())
    );
    // Delivered with the prompt, before the iteration is said to start.
    let position = |wanted: &dyn Fn(&Value) -> bool| events.iter().position(wanted).unwrap();
    let delivered_at = position(&|e| e["type"] == "steer_delivered");
    let second_start = position(&|e| e["type"] == "iteration_started" && e["iteration"] == 2);
    assert!(delivered_at < second_start);
    assert_eq!(finished(&events)["reason"], "max_iterations");

    assert_eq!(
        steering_records(&ws),
        vec![
            serde_json::json!({"in_prompt": 0, "mid_turn": 0, "queued": 2}),
            serde_json::json!({"in_prompt": 2, "mid_turn": 0, "queued": 0}),
            Value::Null,
        ]
    );
    assert!(
        ws.summary()
            .contains("| Steering | 2 messages: 2 in prompts |"),
        "{}",
        ws.summary()
    );
    assert_eq!(
        went(&ws),
        vec!["\"queued\"", "\"queued\"", "\"prompt\"", "\"prompt\""]
    );
    // `ralph events` lists each message once, as ralph-orchestrator lists guidance: first
    // among the rows of the iteration it went to.
    let out = ws.run(&["events", "--format", "json"]);
    let rows: Vec<(Value, Value)> = json_lines(&out)
        .iter()
        .map(|r| (r["iteration"].clone(), r["topic"].clone()))
        .collect();
    let guidance = (Value::from(2), Value::from("human.guidance"));
    assert_eq!(rows[1..3], [guidance.clone(), guidance]);
    // And the `task.resume` ralph handed iterations 2 and 3 (nothing else was pending).
    assert_eq!(rows.len(), 7, "{rows:?}");
    let topic = ["events", "--topic", "human.*", "--format", "json"];
    let given: Vec<Value> = json_lines(&ws.run(&topic))
        .iter()
        .map(|r| r["payload"].clone())
        .collect();
    assert_eq!(
        given,
        ["Reuse the parser in src/parse.rs.", "Then write\nthe docs."]
    );
}

#[test]
fn with_no_loop_running_steer_exits_1_and_says_why() {
    let ws = Workspace::new(CONFIG, "pi/anthropic/text.jsonl | |\n");
    let out = steer_in(&ws, ws.path(), &["anything"]);
    let (code, stdout, stderr) = said(&out);
    assert_eq!((code, stdout.as_str()), (1, ""), "{stderr}");
    assert!(stderr.contains("no ralph loop is running"), "{stderr}");

    // A finished run is not a running loop either.
    let run = ws.run(&["run", "-q", "-p", "task", "--max-iterations", "1"]);
    assert_eq!(code_of(&run), 2);
    let (code, _, stderr) = said(&steer_in(&ws, ws.path(), &["too late"]));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("no ralph loop is running"), "{stderr}");
    assert!(!run_dir(&ws).join("steering.jsonl").exists());

    let (code, _, stderr) = said(&steer_in(&ws, ws.path(), &["  "]));
    assert_eq!(code, 1);
    assert!(stderr.contains("the message is empty"), "{stderr}");
}

fn code_of(out: &Output) -> i32 {
    code(out.status)
}

#[test]
fn a_queued_message_survives_an_interrupt_and_reaches_the_prompt_after_continue() {
    let ws = Workspace::new(CONFIG, PAUSED_FIRST);
    let child = ws.start(&["run", "-q", "-p", "task", "--max-iterations", "3"]);
    wait_paused(&ws, 1);
    steer_queued(&ws, "Keep the old API.", 2);
    let stopped = ws.stop(child, nix::sys::signal::Signal::SIGINT);
    assert_eq!(code_of(&stopped), 130);
    resume(&ws, 1);

    let out = ws.run(&["run", "--continue", "-q"]);
    assert_eq!(code_of(&out), 2, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        ws.prompt(2).contains("- Keep the old API.\n"),
        "{}",
        ws.prompt(2)
    );
    assert!(!ws.prompt(3).contains(HEADING), "consumed once");
    assert!(
        ws.summary()
            .contains("| Steering | 1 message: 1 in a prompt |")
    );
}

#[test]
fn hostile_request_files_neither_hang_nor_stop_the_loop() {
    let ws = Workspace::new(CONFIG, PAUSED_FIRST);
    let child = ws.start(&["run", "-p", "task", "--max-iterations", "2"]);
    wait_paused(&ws, 1);
    let requests = run_dir(&ws).join("steer/requests");
    std::fs::create_dir_all(&requests).unwrap();
    let outside = ws.path().join("outside.json");
    std::fs::write(&outside, r#"{"message": "read through a link"}"#).unwrap();
    ralph_test_support::plant_read_traps(&requests, &outside);
    std::fs::create_dir(requests.join("4-dir.json")).unwrap();
    std::fs::write(requests.join("5-junk.json"), b"\xff\xfe not json").unwrap();

    // The loop still answers a real message promptly.
    steer_queued(&ws, "still heard", 2);
    resume(&ws, 1);
    let out = wait_output(child);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code_of(&out), 2, "{stderr}");
    assert!(
        stderr.contains("a steering request was refused"),
        "{stderr}"
    );
    let left: Vec<String> = std::fs::read_dir(&requests)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, Vec::<String>::new(), "every trap was removed");
    assert!(outside.exists(), "the link, not what it points to");
    let prompt = ws.prompt(2);
    assert!(prompt.contains("- still heard\n"), "{prompt}");
    assert!(!prompt.contains("read through a link"), "{prompt}");
}

#[test]
fn guidance_carried_by_a_rate_limited_attempt_is_shown_again_to_the_attempt_after() {
    let config = "cli:\n  backend: pi\n  rate_limit_wait_seconds: 1\n";
    let plan = "pi/anthropic/text.jsonl | | pause_at=1\npi/anthropic/error429.jsonl | |\n\
                pi/anthropic/text.jsonl | |\n";
    let ws = Workspace::new(config, plan);
    let child = ws.start(&["run", "-q", "-p", "task", "--max-iterations", "3"]);
    wait_paused(&ws, 1);
    steer_queued(&ws, "Use plan B.", 2);
    resume(&ws, 1);
    let out = wait_output(child);
    assert_eq!(code_of(&out), 2, "{}", String::from_utf8_lossy(&out.stderr));
    // Invocation 2 is iteration 2, limited; invocation 3 runs iteration 2 again.
    assert!(ws.prompt(2).contains("- Use plan B.\n"));
    assert!(ws.prompt(3).contains("- Use plan B.\n"), "{}", ws.prompt(3));
    assert!(!ws.prompt(4).contains(HEADING));
    assert!(
        ws.summary()
            .contains("| Steering | 1 message: 1 in a prompt |")
    );
}

#[test]
fn the_loop_answers_while_a_hook_runs_and_the_coming_iteration_carries_the_message() {
    let config = "cli:\n  backend: pi\nhooks:\n  enabled: true\n  events:\n    \
                  pre.iteration.start:\n      - {name: slow, command: 'touch in-hook; while [ ! \
                  -f hook-go ]; do sleep 0.05; done', on_error: warn}\n";
    let ws = Workspace::new(config, "pi/anthropic/text.jsonl | |\n");
    let child = ws.start(&["run", "-q", "-p", "task", "--max-iterations", "1"]);
    let child = wait_in_hook(&ws, child);
    steer_queued(&ws, "Before you start: plan B.", 1);
    // Shown while the hook still runs.
    received_before(&ws, "hook_finished");
    std::fs::write(ws.path().join("hook-go"), "").unwrap();
    let out = wait_output(child);
    assert_eq!(code_of(&out), 2, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        ws.prompt(1).contains("- Before you start: plan B.\n"),
        "{}",
        ws.prompt(1)
    );
}

#[test]
fn a_message_pi_took_as_its_turn_ended_but_never_read_goes_into_the_next_prompt() {
    // The fake pi ends its turn, then takes the steer (it answers success, as real pi
    // does) before it writes `agent_end`: the message never reaches a model call.
    let fake =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fake-agents/pi-rpc-late-steer");
    let config = format!(
        "cli:\n  backend: pi\n  command: {}\n  steering: true\n",
        fake.display()
    );
    let ws = Workspace::new(&config, "");
    let child = ws.start_json(&["-p", "task", "--max-iterations", "2"]);
    let waiting = ws.path().join(".fake/waiting-1");
    let deadline = Instant::now() + RUN_TIMEOUT;
    while !waiting.exists() {
        assert!(
            Instant::now() < deadline,
            "the fake pi never ended its turn"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let message = "Check the tests first.";
    assert_eq!(
        said(&steer_in(&ws, ws.path(), &[message])),
        (0, "delivered to pi mid-turn\n".to_owned(), String::new())
    );
    let events = exits_with(child, 2);
    let taken = std::fs::read_to_string(ws.path().join(".fake/steer-1.txt")).unwrap();
    assert!(
        taken.contains(r#""type":"steer""#) && taken.contains(message),
        "{taken}"
    );

    let unread: Vec<(&Value, &Value)> = of_type(&events, "notice")
        .into_iter()
        .filter(|n| n["notice"] == "steer_unread")
        .map(|n| (&n["iteration"], &n["id"]))
        .collect();
    let id = &of_type(&events, "steer_received")[0]["id"];
    assert_eq!(unread, vec![(&Value::from(1), id)]);
    assert!(!ws.prompt(1).contains(HEADING));
    let prompt = ws.prompt(2);
    assert!(
        prompt.contains(HEADING) && prompt.contains(message),
        "{prompt}"
    );

    assert_eq!(
        steering_records(&ws),
        vec![
            serde_json::json!({"in_prompt": 0, "mid_turn": 0, "queued": 1}),
            serde_json::json!({"in_prompt": 1, "mid_turn": 0, "queued": 0}),
        ]
    );
    assert_eq!(went(&ws), vec!["\"mid_turn\"", "\"unread\"", "\"prompt\""]);
}

/// Waits until the run's `run-events.jsonl` holds `what`.
fn wait_recorded(ws: &Workspace, what: &str) {
    let deadline = Instant::now() + RUN_TIMEOUT;
    loop {
        let started = ws.path().join(".ralph/current-run").exists();
        let record = started
            .then(|| std::fs::read_to_string(run_dir(ws).join("run-events.jsonl")))
            .and_then(Result::ok)
            .unwrap_or_default();
        if record.contains(what) {
            return;
        }
        assert!(Instant::now() < deadline, "never recorded: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until the run records `steer_received`, which must come before any event of
/// type `kind` (the end of what was running when the message came).
fn received_before(ws: &Workspace, kind: &str) {
    wait_recorded(ws, r#""type":"steer_received""#);
    let record = std::fs::read_to_string(run_dir(ws).join("run-events.jsonl")).unwrap();
    let ended = format!(r#""type":"{kind}""#);
    assert!(!record.contains(&ended), "{kind} came first: {record}");
}

/// Where the first event of type `kind` is among `events`.
fn first_of(events: &[Value], kind: &str) -> usize {
    events
        .iter()
        .position(|e| e["type"] == kind)
        .unwrap_or_else(|| panic!("no {kind}"))
}

#[test]
fn a_message_sent_during_a_rate_limit_wait_is_reported_while_the_loop_waits() {
    let config = "cli:\n  backend: pi\n  rate_limit_wait_seconds: 600\n";
    let ws = Workspace::new(config, "pi/anthropic/error429.jsonl | |\n");
    let child = ws.start_json(&["-p", "task"]);
    wait_recorded(&ws, r#""type":"rate_limit_wait""#);
    steer_queued(&ws, "When it resets: smaller steps.", 1);
    // Reported now, not when the 600 s are over.
    wait_recorded(&ws, r#""type":"steer_received""#);
    let events = interrupted(&ws, child);
    assert!(first_of(&events, "rate_limit_wait") < first_of(&events, "steer_received"));
}

#[test]
fn a_message_sent_while_a_gate_runs_is_reported_before_the_gate_ends() {
    let config = "cli:\n  backend: pi\ngates:\n  - name: slow\n    run: \"touch in-gate; \
                  while [ ! -f gate-go ]; do sleep 0.05; done\"\n";
    let ws = Workspace::new(config, "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n");
    let child = ws.start_json(&["-p", "task", "--max-iterations", "2"]);
    wait_recorded(&ws, r#""type":"gate_started""#);
    steer_queued(&ws, "Next: the docs.", 2);
    received_before(&ws, "gate_finished");
    std::fs::write(ws.path().join("gate-go"), "").unwrap();
    let events = exits_with(child, 0);
    assert!(first_of(&events, "steer_received") < first_of(&events, "gate_finished"));
}

#[test]
fn guidance_in_a_prompt_no_agent_could_take_is_queued_again_not_delivered() {
    // The prompt fits in an argument (at most 128 KiB) until the message joins it: then
    // the agent cannot be started, and the message never reached anyone.
    let config = "cli:\n  backend: custom\n  command: \"true\"\n  prompt_mode: arg\n\
                  event_loop:\n  max_consecutive_failures: 1\nhooks:\n  enabled: true\n  \
                  events:\n    pre.iteration.start:\n      - {name: slow, command: 'touch \
                  in-hook; while [ ! -f hook-go ]; do sleep 0.05; done', on_error: warn}\n";
    let ws = Workspace::new(config, "");
    std::fs::write(ws.path().join("task.md"), "x".repeat(120 * 1024)).unwrap();
    let child = ws.start_json(&["-P", "task.md", "--max-iterations", "3"]);
    let child = wait_in_hook(&ws, child);
    steer_queued(&ws, &"y".repeat(15 * 1024), 1);
    std::fs::write(ws.path().join("hook-go"), "").unwrap();
    let events = exits_with(child, 1);
    let requeued: Vec<&Value> = of_type(&events, "notice")
        .into_iter()
        .filter(|n| n["notice"] == "steer_requeued")
        .collect();
    assert_eq!(requeued.len(), 1, "{events:#?}");
    assert_eq!(requeued[0]["iteration"], 1);
    assert_eq!(
        went(&ws),
        vec!["\"queued\"", "\"prompt\"", "\"requeued\""],
        "the record says it went back to the queue"
    );
    assert_eq!(
        steering_records(&ws),
        vec![serde_json::json!({"in_prompt": 0, "mid_turn": 0, "queued": 1})],
        "iteration 1 carried nothing to an agent"
    );
}

/// `ralph steer --next` during the last iteration of a run that then completes: the
/// answer said "queued for iteration 2", which never comes. The end says so (a
/// `steer_undelivered` notice before `loop_finished`, in the run's record too), rather
/// than dropping the message without a word.
#[test]
fn a_message_queued_for_an_iteration_that_never_comes_is_named_at_the_end() {
    let plan = "pi/anthropic/text.jsonl | LOOP_COMPLETE | pause_at=1\n";
    let ws = Workspace::new(CONFIG, plan);
    let child = ws.start_json(&["-p", "task"]);
    wait_paused(&ws, 1);
    let answer = steer_in(&ws, ws.path(), &["--next", "Also update the changelog."]);
    assert_eq!(said(&answer).1, "queued for iteration 2\n");
    resume(&ws, 1);
    let events = exits_with(child, 0);
    let notices: Vec<&Value> = of_type(&events, "notice")
        .into_iter()
        .filter(|n| n["notice"] == "steer_undelivered")
        .collect();
    assert_eq!(notices.len(), 1, "{events:#?}");
    let id = steering_ids(&ws);
    assert_eq!(
        (
            &notices[0]["ids"],
            &notices[0]["queued_for"],
            &notices[0]["kept"]
        ),
        (
            &serde_json::json!(id),
            &serde_json::json!(2),
            &serde_json::json!(false)
        )
    );
    assert_eq!(notices[0]["iteration"], Value::Null);
    // Just before the end.
    let at = |kind: &str| events.iter().position(|e| e["type"] == kind).unwrap();
    let notice_at = events.iter().position(|e| e == notices[0]).unwrap();
    assert_eq!(notice_at + 1, at("loop_finished"), "{events:#?}");
    assert!(common::run_events_validator().is_valid(notices[0]));
    // The run's record has it too (what `ralph watch` and the views read back).
    let record = std::fs::read_to_string(run_dir(&ws).join("run-events.jsonl")).unwrap();
    assert!(
        record.contains(r#""notice":"steer_undelivered""#),
        "{record}"
    );
}

/// The ids of the run's steering messages, as `steering.jsonl` records them.
fn steering_ids(ws: &Workspace) -> Vec<String> {
    let log = std::fs::read_to_string(run_dir(ws).join("steering.jsonl")).unwrap();
    log.lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}
