//! No orphans even after `kill -9` of ralph: the agent dies with ralph (its death signal),
//! but what the agent started survives it; the next `ralph run` or `--continue` in the
//! workspace stops that, says so, and never touches a process that is not provably what
//! the killed ralph left.

mod common;

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{RUN_TIMEOUT, Workspace, alive, code, finished, gone, of_type};
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// Iteration 1 publishes an event and ends; iteration 2 starts a long `sleep` in its
/// process group and then works for minutes; iteration 3 completes.
const PLAN: &str = "pi/anthropic/text.jsonl | step=one |\n\
                    pi/anthropic/text.jsonl | | spawn=300 hang=300\n\
                    pi/anthropic/text.jsonl | LOOP_COMPLETE |\n";

/// Processes a test started or that its agents started, SIGKILLed when the test ends,
/// passed or failed, so that no test leaves one behind: single processes, and process
/// groups (the agent's holds whatever else it started).
#[derive(Default)]
struct KillOnDrop {
    pids: Vec<i32>,
    groups: Vec<i32>,
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        for &pgid in &self.groups {
            let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
        }
        for &pid in &self.pids {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}

/// `/proc/<pid>/stat`'s state and start time (field 22), if the process exists.
fn stat(pid: i32) -> Option<(char, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &text[text.rfind(')')? + 2..];
    let fields: Vec<&str> = after.split(' ').collect();
    Some((fields[0].chars().next()?, fields[19].parse().ok()?))
}

fn read_pid(path: &Path) -> i32 {
    let deadline = Instant::now() + RUN_TIMEOUT;
    loop {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs iteration 1, then kills ralph with SIGKILL while iteration 2's agent and its
/// background `sleep` run; returns ralph's pid and the `sleep`'s, which the guard now
/// holds. Asserts the precondition: the agent died with ralph, the `sleep` did not.
fn kill_9_while_the_agent_runs(ws: &Workspace, guard: &mut KillOnDrop) -> (i32, i32) {
    let ralph = ws.start(&["run", "-p", "task", "--max-iterations", "5"]);
    let ralph_pid = i32::try_from(ralph.id()).expect("pid");
    guard.pids.push(ralph_pid);
    let state = ws.path().join(".fake");
    let sleep = read_pid(&state.join("child-2"));
    let agent = read_pid(&state.join("pid-2"));
    guard.pids.push(sleep);
    guard.groups.push(agent);
    assert!(alive(sleep));
    let out = ws.stop(ralph, Signal::SIGKILL);
    assert_eq!(out.status.code(), None, "ralph was not killed");
    assert!(gone(agent), "the agent outlived ralph");
    // Given the agent's death a moment to reach its children, if it ever would.
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        alive(sleep),
        "precondition: the agent's child survives ralph"
    );
    (ralph_pid, sleep)
}

#[test]
fn continue_after_kill_9_stops_what_the_killed_ralphs_agent_left() {
    let ws = Workspace::new("cli:\n  backend: pi\n", PLAN);
    let mut guard = KillOnDrop::default();
    let (ralph, sleep) = kill_9_while_the_agent_runs(&ws, &mut guard);

    let out = ws.run(&["run", "--continue"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(out.status), 0, "{stderr}");
    assert!(gone(sleep), "the leftover still runs: {stderr}");
    // The `sleep`, and the agent's own foreground child if it had started one.
    assert!(stderr.starts_with("ralph: stopped "), "{stderr}");
    assert!(
        stderr.contains(&format!(
            " that an earlier ralph (pid {ralph}, killed before it could stop them) had \
             left running\n"
        )),
        "{stderr}"
    );
    // Said once, on stderr only: the text view on stdout does not repeat it.
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("had left running"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!ws.run_files().dir().join("agent.json").exists());
}

#[test]
fn continue_after_kill_9_during_the_first_iteration_runs_it_again() {
    // The first agent hangs; ralph is killed before any iteration ended.
    let plan = "pi/anthropic/text.jsonl | | hang=300\n\
                pi/anthropic/text.jsonl | LOOP_COMPLETE |\n";
    let ws = Workspace::new("cli:\n  backend: pi\n", plan);
    let mut guard = KillOnDrop::default();
    let ralph = ws.start(&["run", "-p", "the task"]);
    guard.pids.push(i32::try_from(ralph.id()).expect("pid"));
    let agent = read_pid(&ws.path().join(".fake/pid-1"));
    guard.groups.push(agent);
    let out = ws.stop(ralph, Signal::SIGKILL);
    assert_eq!(out.status.code(), None, "ralph was not killed");
    assert!(gone(agent), "the agent outlived ralph");

    let (code, events, stderr) = ws.run_json(&["--continue"]);
    assert_eq!(
        (code, &finished(&events)["reason"]),
        (0, &serde_json::json!("completed")),
        "{stderr}"
    );
    assert_eq!(finished(&events)["totals"]["iterations"], 1, "{stderr}");
    // The task and its first event came from the state saved before iteration 1.
    assert!(ws.prompt(2).contains("the task"), "{}", ws.prompt(2));
}

#[test]
fn a_run_after_kill_9_during_a_gate_stops_what_the_gate_left() {
    // The gate's shell dies with ralph (its death signal); its background `sleep` does not.
    let ws = Workspace::new(
        common::SLOW_GATE,
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let mut guard = KillOnDrop::default();
    let ralph = ws.start(&["run", "-p", "task", "--max-iterations", "1"]);
    let ralph_pid = i32::try_from(ralph.id()).expect("pid");
    guard.pids.push(ralph_pid);
    let gate = read_pid(&ws.path().join("gate.pid"));
    let sleep = read_pid(&ws.path().join("gate-child"));
    guard.groups.push(gate);
    guard.pids.push(sleep);
    let out = ws.stop(ralph, Signal::SIGKILL);
    assert_eq!(out.status.code(), None, "ralph was not killed");
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        alive(sleep),
        "precondition: the gate's child survives ralph"
    );
    assert!(ws.run_files().dir().join("agent.json").exists());

    let out = ws.run(&[
        "run",
        "-p",
        "another task",
        "--max-iterations",
        "1",
        "--no-gates",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(gone(sleep), "the gate's child still runs: {stderr}");
    assert!(
        stderr.contains(&format!("earlier ralph (pid {ralph_pid}, killed")),
        "{stderr}"
    );
}

#[test]
fn a_fresh_run_after_kill_9_stops_the_leftovers_and_reports_a_notice() {
    let ws = Workspace::new("cli:\n  backend: pi\n", PLAN);
    let mut guard = KillOnDrop::default();
    let (ralph, sleep) = kill_9_while_the_agent_runs(&ws, &mut guard);

    let (code, events, stderr) = ws.run_json(&["-p", "another task", "--max-iterations", "1"]);
    assert_eq!(finished(&events)["reason"], "completed", "{stderr}");
    assert_eq!(code, 0);
    assert!(gone(sleep), "the leftover still runs: {stderr}");
    assert!(stderr.contains("had left running"), "{stderr}");
    let notices = of_type(&events, "notice");
    assert_eq!(notices.len(), 1, "{events:?}");
    let notice = notices[0];
    assert_eq!(
        [
            &notice["iteration"],
            &notice["notice"],
            &notice["ralph_pid"],
            &notice["survivors"]
        ],
        [
            &json!(null),
            &json!("leftovers_stopped"),
            &json!(ralph),
            &json!(0)
        ],
    );
    assert!(notice["stopped"].as_u64() >= Some(1), "{notice}");
    assert_eq!(
        events[1]["notice"], "leftovers_stopped",
        "right after loop_started"
    );
}

#[test]
fn a_normal_run_leaves_no_record_and_the_next_run_says_nothing() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | | spawn=300\n",
    );
    let mut guard = KillOnDrop::default();
    let out = ws.run(&["run", "-p", "task", "--max-iterations", "1"]);
    let sleep = read_pid(&ws.path().join(".fake/child-1"));
    guard.pids.push(sleep);
    assert_eq!(code(out.status), 2);
    // The live run stopped its own leftover and removed the record.
    assert!(gone(sleep));
    assert!(!ws.run_files().dir().join("agent.json").exists());
    let out = ws.run(&["run", "--continue", "--max-iterations", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("left running"), "{stderr}");
}

/// A process that is not ralph's: `sleep` in its own process group, started by the test.
fn unrelated_process(guard: &mut KillOnDrop) -> (i32, u64) {
    let child = Command::new("sleep")
        .arg("300")
        .process_group(0)
        .stdin(Stdio::null())
        .env_remove("RALPH_AGENT_RUN")
        .spawn()
        .expect("spawn sleep");
    let pid = i32::try_from(child.id()).expect("pid");
    guard.groups.push(pid);
    std::mem::forget(child);
    (pid, stat(pid).expect("stat").1)
}

/// A pid that no process has now: one that just exited.
fn dead_pid() -> i32 {
    let mut child = Command::new("true").spawn().expect("spawn true");
    let pid = i32::try_from(child.id()).expect("pid");
    child.wait().expect("wait");
    pid
}

fn write_record(ws: &Workspace, record: &Value) {
    let path = ws.run_files().dir().join("agent.json");
    std::fs::write(path, record.to_string()).expect("write the record");
}

/// A workspace whose one run ended at its iteration limit (its run directory is where a
/// test then plants a record).
fn a_finished_run() -> Workspace {
    let ws = Workspace::new("cli:\n  backend: pi\n", "pi/anthropic/text.jsonl | |\n");
    let status = ws
        .run(&["run", "-p", "task", "--max-iterations", "1"])
        .status;
    assert_eq!(code(status), 2);
    ws
}

#[test]
fn a_recorded_group_whose_start_time_does_not_match_is_left_alone() {
    let ws = a_finished_run();
    let mut guard = KillOnDrop::default();
    let (pid, start) = unrelated_process(&mut guard);
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").expect("boot id");
    // A dead ralph whose agent had this pid, but started at another time: the pid was
    // reused by a process (and group) that is not the agent's.
    let record = |agent_start: u64| {
        json!({
            "format": 1,
            "boot_id": boot.trim(),
            "ralph": {"pid": dead_pid(), "start_ticks": 0},
            "agent": {"pid": pid, "start_ticks": agent_start},
        })
    };
    write_record(&ws, &record(start + 1));
    let out = ws.run(&["run", "--continue", "--max-iterations", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(out.status), 2, "{stderr}");
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        alive(pid),
        "a process that is not ralph's was stopped: {stderr}"
    );
    assert!(!stderr.contains("left running"), "{stderr}");

    // The same record with the group's true start time names it: then it is stopped,
    // so what spared it above was the start time alone.
    write_record(&ws, &record(start));
    let out = ws.run(&["run", "--continue", "--max-iterations", "3"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(gone(pid), "{stderr}");
    assert!(stderr.contains("stopped 1 process that"), "{stderr}");
}

#[test]
fn a_record_naming_a_running_ralph_is_left_alone() {
    let ws = a_finished_run();
    let mut guard = KillOnDrop::default();
    // The "ralph" is a live process (as in a workspace copied while its ralph ran), and
    // the agent's group is alive with its true start time.
    let (ralph, ralph_start) = unrelated_process(&mut guard);
    let (agent, agent_start) = unrelated_process(&mut guard);
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").expect("boot id");
    write_record(
        &ws,
        &json!({
            "format": 1,
            "boot_id": boot.trim(),
            "ralph": {"pid": ralph, "start_ticks": ralph_start},
            "agent": {"pid": agent, "start_ticks": agent_start},
        }),
    );
    let out = ws.run(&["run", "--continue", "--max-iterations", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(out.status), 2, "{stderr}");
    std::thread::sleep(Duration::from_millis(200));
    assert!(alive(ralph) && alive(agent), "{stderr}");
}

#[test]
fn continue_after_kill_9_hands_on_what_the_killed_iteration_emitted_once() {
    // a hands over to b; b emits `for.c`, then works on; ralph is killed meanwhile.
    let plan = "pi/anthropic/text.jsonl | for.b |\n\
                pi/anthropic/text.jsonl | for.c=from b | hang=300\n\
                pi/anthropic/text.jsonl | LOOP_COMPLETE |\n";
    let (ws, events) =
        kill_9_in_b_then_continue(plan, "inbox.jsonl", |inbox| inbox.contains("for.c"));
    // b's iteration ends as interrupted with its `for.c`; c gets it once, and b does
    // not run again.
    let records: Vec<(Value, Value, Value)> = ws
        .history()
        .iter()
        .map(|r| (r["hat"].clone(), r["outcome"].clone(), r["events"].clone()))
        .collect();
    assert_eq!(records[1].0, json!("b"));
    assert_eq!(records[1].1, json!({"status": "interrupted"}));
    assert_eq!(
        records[1].2,
        json!([{"topic": "for.c", "payload": "from b"}])
    );
    assert_eq!(records[2].0, json!("c"));
    assert_eq!(
        ws.history()[2]["consumed"],
        json!([{"topic": "for.c", "payload": "from b"}])
    );
    assert_eq!(ws.agent_log().len(), 3, "b never ran again");
    // Its cost is unknown: it was billed, and nothing reported it.
    assert_eq!(finished(&events)["totals"]["cost_complete"], json!(false));
}

#[test]
fn continue_after_kill_9_hands_on_the_event_tags_of_the_killed_iteration_s_answer() {
    // a hands over to b; b answers with an `<event>` tag (no `ralph emit`) after one
    // that is refused (`for..c`: an empty segment), then works on; ralph is killed
    // meanwhile. The tags were only in the killed ralph's memory.
    let tagged = r#"sed=s/LOOP_COMPLETE/<event\x20topic=\\"for..c\\">x<\/event><event\x20topic=\\"for.c\\">from_b<\/event>/g"#;
    let plan = format!(
        "pi/anthropic/text.jsonl | for.b |\n\
         pi/anthropic/text.jsonl | | {tagged} hang=300\n\
         pi/anthropic/text.jsonl | LOOP_COMPLETE |\n"
    );
    // The record has b's whole answer once its run ends: the tag was read by then.
    let (ws, events) = kill_9_in_b_then_continue(&plan, "run-events.jsonl", |record| {
        record
            .lines()
            .any(|l| l.contains("\"iteration\":2") && l.contains("\"run_finished\""))
    });
    // b's iteration ends as interrupted with its tag's `for.c`, said to come from a
    // tag; c gets it, and b does not run again.
    let history = ws.history();
    assert_eq!(
        (
            &history[1]["hat"],
            &history[1]["outcome"],
            &history[1]["events"]
        ),
        (
            &json!("b"),
            &json!({"status": "interrupted"}),
            &json!([{"topic": "for.c", "payload": "from_b"}])
        )
    );
    assert_eq!(history[1]["from_tags"], json!(1));
    let emitted = of_type(&events, "events_emitted");
    assert_eq!(emitted[0]["from_tags"], json!(1), "{emitted:?}");
    // The refused tag is said, as it would have been without the kill: how the user
    // learns why it handed nothing over.
    let ignored: Vec<&Value> = of_type(&events, "notice")
        .into_iter()
        .filter(|n| n["notice"] == "event_tag_ignored")
        .collect();
    assert_eq!(ignored.len(), 1, "{ignored:?}");
    assert_eq!(
        (&ignored[0]["topic"], &ignored[0]["iteration"]),
        (&json!("for..c"), &json!(2)),
        "{ignored:?}"
    );
    assert!(
        ignored[0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("`..`")),
        "{ignored:?}"
    );
    assert_eq!(history[2]["hat"], json!("c"));
    assert_eq!(ws.agent_log().len(), 3, "b ran again");
}

#[test]
fn the_killed_iteration_is_recorded_with_the_time_it_ran_before_the_kill() {
    // b emits `for.c`, answers, waits before its last line, then works on; ralph is
    // killed once that last line is in the record.
    let waited = Duration::from_millis(1_500);
    let plan = format!(
        "pi/anthropic/text.jsonl | for.b |\n\
         pi/anthropic/text.jsonl | for.c=from b | turn_delay={} hang=300\n\
         pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
        waited.as_secs_f64()
    );
    let (ws, events) = kill_9_in_b_then_continue(&plan, "run-events.jsonl", |record| {
        record
            .lines()
            .any(|l| l.contains("\"iteration\":2") && l.contains("\"run_finished\""))
    });
    // At least the wait the record saw, not the 0 ms of an iteration that never ran.
    let ran = ws.history()[1]["duration_ms"]
        .as_u64()
        .expect("duration_ms");
    assert!(ran >= waited.as_millis() as u64, "b ran {ran} ms");
    let finished = of_type(&events, "iteration_finished");
    assert_eq!(finished[0]["duration_ms"], json!(ran), "{finished:?}");
    // It keeps the start the killed ralph gave it, and the run's time counts what the
    // killed ralph ran of it: the continued run starts past both.
    let record = std::fs::read_to_string(ws.run_files().dir().join("run-events.jsonl"))
        .expect("the run's record");
    let started: Value = record
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON line"))
        .find(|e| e["type"] == "iteration_started" && e["iteration"] == 2)
        .expect("b's start");
    assert_eq!(ws.history()[1]["started_at_ms"], started["started_at_ms"]);
    let before_b = started["elapsed_ms"].as_u64().expect("elapsed_ms");
    let resumed_at = of_type(&events, "loop_started")[0]["totals"]["elapsed_ms"]
        .as_u64()
        .expect("elapsed_ms");
    assert!(
        resumed_at >= before_b + ran,
        "the continued run starts at {resumed_at} ms; b started at {before_b} and ran {ran}"
    );
}

/// Runs hats a, b and c (each handing over to the next) on `plan`, kills ralph with
/// SIGKILL during b's iteration once `ready` holds for the run's file `watched`, and
/// runs `--continue`, which must succeed and say that b's iteration was killed.
fn kill_9_in_b_then_continue(
    plan: &str,
    watched: &str,
    ready: impl Fn(&str) -> bool,
) -> (Workspace, Vec<Value>) {
    let config = "cli:\n  backend: pi\nevent_loop:\n  starting_event: work.start\nhats:\n  \
                  a: {description: A, triggers: [work.start]}\n  \
                  b: {description: B, triggers: [for.b]}\n  \
                  c: {description: C, triggers: [for.c]}\n";
    let ws = Workspace::new(config, plan);
    let mut guard = KillOnDrop::default();
    let ralph = ws.start(&["run", "-p", "the task"]);
    guard.pids.push(i32::try_from(ralph.id()).expect("pid"));
    let agent = read_pid(&ws.path().join(".fake/pid-2"));
    guard.groups.push(agent);
    let watched = ws.run_files().dir().join(watched);
    let deadline = Instant::now() + RUN_TIMEOUT;
    while !std::fs::read_to_string(&watched).is_ok_and(|text| ready(&text)) {
        assert!(Instant::now() < deadline, "b never got that far");
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = ws.stop(ralph, Signal::SIGKILL);
    assert_eq!(out.status.code(), None, "ralph was not killed");
    assert!(gone(agent), "the agent outlived ralph");

    let (code, events, stderr) = ws.run_json(&["--continue"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("ralph was killed during iteration 2 (hat `b`)"),
        "{stderr}"
    );
    (ws, events)
}
