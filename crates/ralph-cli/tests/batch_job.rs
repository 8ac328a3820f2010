//! `ralph run` as a batch job: cancelled the way CI engines and Kubernetes cancel (their
//! signal sequences replayed against a running loop), then finished with `--continue` in
//! a copy of the repository at another path, as a fresh clone with `.ralph/` restored
//! from an artifact or a volume would; and the result it hands on (the last JSON event,
//! GitHub's step summary and annotations).

mod common;

use std::path::Path;
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

use common::{Workspace, code, finished, git, wait_output};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use pretty_assertions::assert_eq;
use serde_json::Value;

/// What the issue promises an engine: the agent's group stopped, the state saved and
/// ralph gone with 130 within this long of the first signal. Well inside GitHub's 7.5 s
/// before its SIGTERM and Kubernetes' default 30 s grace.
const EXIT_WITHIN: Duration = Duration::from_secs(5);

/// GitHub Actions on a cancelled job: SIGINT, SIGTERM this long after it, then SIGKILL
/// [`GITHUB_KILL_AFTER_TERM`] later.
const GITHUB_TERM_AFTER_INT: Duration = Duration::from_millis(7500);
const GITHUB_KILL_AFTER_TERM: Duration = Duration::from_millis(2500);

/// Kubernetes: SIGTERM, then SIGKILL after `terminationGracePeriodSeconds` (30 by default).
const KUBERNETES_GRACE: Duration = Duration::from_secs(30);

/// An agent that ignores SIGTERM (as a busy agent's tool may) and works for a minute:
/// only the kill after ralph's kill grace stops it, the slowest way an agent goes. The
/// second iteration completes.
const STUBBORN: &str = "pi/anthropic/text.jsonl | | ignore_term hang=60\n\
                        pi/anthropic/text.jsonl | LOOP_COMPLETE |\n";

/// One step of an engine's sequence: wait this long after the previous step (unless
/// ralph has exited), then send the signal.
type Step = (Duration, Signal);

/// Replays `steps` against `child`; returns its output and how long after the first
/// signal it exited.
fn replay(child: Child, steps: &[Step]) -> (Output, Duration) {
    let pid = Pid::from_raw(i32::try_from(child.id()).expect("pid"));
    let mut child = child;
    let mut first = None;
    for &(after, signal) in steps {
        let due = Instant::now() + after;
        while Instant::now() < due {
            if child.try_wait().expect("wait").is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        first.get_or_insert_with(Instant::now);
        kill(pid, signal).expect("signal ralph");
    }
    let out = wait_output(child);
    let took = first.expect("a signal was sent").elapsed();
    (out, took)
}

fn github_cancel() -> Vec<Step> {
    vec![
        (Duration::ZERO, Signal::SIGINT),
        (GITHUB_TERM_AFTER_INT, Signal::SIGTERM),
        (GITHUB_KILL_AFTER_TERM, Signal::SIGKILL),
    ]
}

fn kubernetes_stop() -> Vec<Step> {
    vec![
        (Duration::ZERO, Signal::SIGTERM),
        (KUBERNETES_GRACE, Signal::SIGKILL),
    ]
}

/// A git repository with one commit, the workspace of a batch job.
fn git_workspace(config: &str, plan: &str) -> Workspace {
    let ws = Workspace::new(config, plan);
    git(ws.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(ws.path().join(".gitignore"), ".fake/\n").expect("gitignore");
    git(ws.path(), &["add", "-A"]);
    git(ws.path(), &["commit", "-q", "-m", "start"]);
    ws
}

/// A copy of `ws`'s whole tree (its `.ralph/` and the fake agents' state included) at
/// another path.
fn copy_elsewhere(ws: &Workspace, config: &str) -> Workspace {
    let copy = Workspace::new(config, "");
    let status = Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", ws.path().display()))
        .arg(copy.path())
        .status()
        .expect("cp");
    assert!(status.success());
    assert_ne!(copy.path(), ws.path());
    copy
}

fn wait_for_file(path: &Path) {
    let deadline = Instant::now() + common::RUN_TIMEOUT;
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// Cancels a running loop with `steps`, checks that it stopped as interrupted in time,
/// then finishes the run in a copy of the repository at another path.
fn cancelled_then_continued_elsewhere(steps: &[Step]) {
    let config = "cli:\n  backend: pi\n";
    let ws = git_workspace(config, STUBBORN);
    let child = ws.start(&["run", "-p", "task", "--output", "json"]);
    wait_for_file(&ws.path().join(".fake/ignoring-term-1"));
    let (out, took) = replay(child, steps);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("ralph exited {took:?} after the first signal");
    assert_eq!(code(out.status), 130, "{stderr}");
    assert!(took < EXIT_WITHIN, "took {took:?}: {stderr}");
    let events = json_lines(&out);
    assert_eq!(finished(&events)["reason"], "interrupted");
    assert_eq!(
        ws.saved_state()["state"]["pending"],
        serde_json::json!([{"topic": "task.start", "payload": null}])
    );
    // The agent's group is gone: nothing of it survived its ralph.
    let agent: i32 = std::fs::read_to_string(ws.path().join(".fake/pid-1"))
        .expect("pid")
        .trim()
        .parse()
        .expect("pid");
    assert!(
        kill(Pid::from_raw(-agent), None).is_err(),
        "the agent's group lives"
    );

    let copy = copy_elsewhere(&ws, config);
    let agents = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake-agents");
    assert_portable(copy.path(), &[ws.path(), &agents]);
    drop(ws);
    let (code, events, stderr) = copy.run_json(&["--continue"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(finished(&events)["reason"], "completed");
    assert_eq!(finished(&events)["totals"]["iterations"], 2);
    assert_eq!(copy.history().len(), 2);
    assert!(copy.summary().contains("completed"), "{}", copy.summary());
}

/// Nothing ralph keeps under `.ralph/` names the workspace's path or the agent's install
/// path: a restored copy holds no path of the machine it came from. (Each session's
/// `loop_started` event says where that session ran: a record of the past, never read
/// back.)
fn assert_portable(copy: &Path, origins: &[&Path]) {
    let files = walk(&copy.join(".ralph"));
    assert!(
        files.iter().any(|f| f.ends_with("command.json")),
        "{files:?}"
    );
    for entry in walk(&copy.join(".ralph")) {
        if entry.extension().is_some_and(|e| e == "zst") {
            continue;
        }
        let text = std::fs::read_to_string(&entry).unwrap_or_default();
        let kept: String = text
            .lines()
            .filter(|l| !l.starts_with("{\"type\":\"loop_started\""))
            .collect();
        for origin in origins {
            let origin = origin.display().to_string();
            assert!(
                !kept.contains(&origin),
                "{} names the path {origin}:\n{text}",
                entry.display()
            );
        }
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read_dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn a_github_actions_cancel_stops_the_loop_in_time_and_a_copy_elsewhere_finishes_it() {
    cancelled_then_continued_elsewhere(&github_cancel());
}

#[test]
fn a_kubernetes_stop_stops_the_loop_in_time_and_a_copy_elsewhere_finishes_it() {
    cancelled_then_continued_elsewhere(&kubernetes_stop());
}

/// Starts `ralph run` with `config` and `plan` in a git workspace, waits for `ready` (a
/// file the slow part creates once it ignores SIGTERM), replays `steps`, and checks the
/// exit: 130, in time, the run's end reported and its state saved.
fn stopped_in_time(config: &str, plan: &str, ready: &str, steps: &[Step]) -> Workspace {
    let ws = git_workspace(config, plan);
    let child = ws.start(&["run", "-p", "task", "--output", "json"]);
    wait_for_file(&ws.path().join(ready));
    let (out, took) = replay(child, steps);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("ralph exited {took:?} after the first signal");
    assert_eq!(code(out.status), 130, "{stderr}");
    assert!(took < EXIT_WITHIN, "took {took:?}: {stderr}");
    assert_eq!(finished(&json_lines(&out))["reason"], "interrupted");
    // Saved: the state covers every iteration the history records.
    let iterations = ws.saved_state()["state"]["iterations"]
        .as_u64()
        .expect("iterations");
    if iterations > 0 {
        assert_eq!(iterations, ws.history().len() as u64);
    }
    ws
}

#[test]
fn a_gate_that_ignores_sigterm_does_not_hold_ralph_past_the_deadline() {
    let config = "cli:\n  backend: pi\ngates:\n  - name: slow\n    \
                  run: \"trap '' TERM; : > .fake/gate-running; sleep 60\"\n    \
                  before: [LOOP_COMPLETE]\n";
    let ws = stopped_in_time(
        config,
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
        ".fake/gate-running",
        &kubernetes_stop(),
    );
    // The promise its gate did not pass is not believed.
    let history = ws.history();
    assert_eq!(
        history[0]["gates"][0]["reason"], "interrupted",
        "{history:?}"
    );
    assert_eq!(history[0]["withheld"], serde_json::json!(["LOOP_COMPLETE"]));
}

#[test]
fn a_hook_that_ignores_sigterm_does_not_hold_ralph_past_the_deadline() {
    let config = "cli:\n  backend: pi\nhooks:\n  enabled: true\n  events:\n    \
                  pre.iteration.start:\n      - name: slow\n        \
                  command: \"trap '' TERM; : > .fake/hook-running; sleep 60\"\n        \
                  on_error: warn\n";
    let ws = stopped_in_time(
        config,
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
        ".fake/hook-running",
        &github_cancel(),
    );
    assert!(ws.agent_log().is_empty(), "{:?}", ws.agent_log());
    assert_eq!(ws.saved_state()["state"]["iterations"], 0);
}

#[test]
fn a_second_signal_during_the_teardown_kills_the_agent_at_once_and_still_saves() {
    // Ctrl-C, then the engine's SIGTERM while ralph waits out the agent's kill grace.
    let steps = [
        (Duration::ZERO, Signal::SIGINT),
        (Duration::from_millis(300), Signal::SIGTERM),
    ];
    let ws = stopped_in_time(
        "cli:\n  backend: pi\n",
        STUBBORN,
        ".fake/ignoring-term-1",
        &steps,
    );
    assert_eq!(
        ws.saved_state()["state"]["pending"],
        serde_json::json!([{"topic": "task.start", "payload": null}])
    );
    assert_eq!(ws.outcomes(), [Value::from("interrupted")]);
}

#[test]
fn a_sigterm_while_the_agents_are_checked_still_ends_as_interrupted_and_resumable() {
    // A pod stopped right after it started, while the agent answers `--version`.
    let ws = git_workspace(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let child = ws
        .command(&["run", "-p", "task", "--output", "json"])
        .env("FAKE_VERSION_DELAY", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    while ws.version_log().is_empty() {
        std::thread::sleep(Duration::from_millis(10));
    }
    let (out, _) = replay(child, &kubernetes_stop());
    let stderr = String::from_utf8_lossy(&out.stderr);
    // 130 from ralph, not 143 from a signal's default action.
    assert_eq!(code(out.status), 130, "{stderr}");
    assert_eq!(finished(&json_lines(&out))["reason"], "interrupted");
    assert!(ws.agent_log().is_empty());
    let (code, events, stderr) = ws.run_json(&["--continue"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(finished(&events)["reason"], "completed");
}

#[test]
fn the_last_json_event_carries_the_branch_and_commit_and_the_step_summary_the_result() {
    let ws = git_workspace(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    git(ws.path(), &["checkout", "-q", "-b", "ralph/task-1"]);
    let summary = ws.path().join(".fake/step-summary.md");
    std::fs::write(&summary, "earlier step\n").expect("summary");
    let out = ws
        .command(&["run", "-p", "task", "--output", "json"])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .expect("run");
    assert_eq!(
        code(out.status),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every stdout line is JSON: no annotation in the contract's way.
    let events = json_lines(&out);
    let last = finished(&events);
    assert_eq!(last["git"]["branch"], "ralph/task-1");
    assert_eq!(
        last["git"]["commit"],
        git(ws.path(), &["rev-parse", "HEAD"])
    );
    assert_eq!(last["exit_code"], 0);
    assert_eq!(last["totals"]["iterations"], 1);
    let md = std::fs::read_to_string(&summary).expect("summary");
    assert!(
        md.starts_with("earlier step\n### ralph: completed\n"),
        "{md}"
    );
    assert!(md.contains("| branch | ralph/task-1 |"), "{md}");
    assert!(md.contains("| exit code | 0 |"), "{md}");
}

#[test]
fn outside_a_repository_the_last_event_has_no_git_and_a_failure_is_annotated_in_text_mode() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\nevent_loop:\n  max_consecutive_failures: 1\n",
        "pi/anthropic/text.jsonl | | exit=3\n",
    );
    let (code_json, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code_json, 1, "{stderr}");
    assert!(finished(&events).get("git").is_none(), "{events:?}");
    let out = ws
        .command(&["run", "-p", "task"])
        .env("GITHUB_ACTIONS", "true")
        .output()
        .expect("run");
    assert_eq!(code(out.status), 1);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let errors: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error title=ralph failed::"))
        .collect();
    assert_eq!(errors.len(), 1, "{stdout}");
    assert!(errors[0].ends_with("(exit 1)"), "{stdout}");
}

#[test]
fn a_hats_file_given_by_its_absolute_path_is_found_again_in_a_copy_elsewhere() {
    let config = "cli:\n  backend: pi\n";
    let ws = git_workspace(config, STUBBORN);
    std::fs::write(
        ws.path().join("hats.yml"),
        "event_loop:\n  starting_event: work.start\nhats:\n  builder:\n    name: Builder\n    \
         description: Builds it\n    triggers: [work.start]\n    publishes: [LOOP_COMPLETE]\n    \
         instructions: Build.\n",
    )
    .expect("hats");
    let hats = ws.path().join("hats.yml").display().to_string();
    let child = ws.start(&["run", "-p", "task", "-H", &hats, "--output", "json"]);
    wait_for_file(&ws.path().join(".fake/ignoring-term-1"));
    let (out, _) = replay(child, &kubernetes_stop());
    assert_eq!(code(out.status), 130, "{out:?}");
    // Saved relative to the workspace, so that `--continue` finds it wherever it runs.
    assert_eq!(ws.saved_state()["command_line"]["hats"], "hats.yml");
    let copy = copy_elsewhere(&ws, config);
    drop(ws);
    let (code, events, stderr) = copy.run_json(&["--continue"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(finished(&events)["reason"], "completed");
    assert_eq!(copy.history()[1]["hat"], "builder");
}
