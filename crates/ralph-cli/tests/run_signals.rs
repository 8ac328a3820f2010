//! `ralph run` under signals and contention: Ctrl-C, SIGTERM, a second loop in the same
//! workspace, a closed stdout.

mod common;

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Stdio};
use std::time::Duration;

use common::{Workspace, code, wait_output};
use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, kill, sigaction};
use nix::unistd::Pid;
use pretty_assertions::assert_eq;
use serde_json::Value;

/// An agent that prints its answer and then works for a minute.
const HANGING: &str = "pi/anthropic/text.jsonl | | hang=60\n";

fn pid_of(child: &std::process::Child) -> Pid {
    Pid::from_raw(i32::try_from(child.id()).expect("pid"))
}

/// `signal` stops the run like Ctrl-C; the message says how to insist with the same kind
/// of request (`hint`), never with a key the sender may not have.
fn interrupted_by(signal: Signal, hint: &str) {
    let ws = Workspace::new("cli:\n  backend: pi\n", HANGING);
    let child = ws.start(&["run", "-p", "task"]);
    ws.wait_for_agent(1);
    let out = ws.stop(child, signal);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(out.status), 130, "{stderr}");
    assert!(stderr.contains("stopping the agent"), "{stderr}");
    assert!(stderr.contains(hint), "{stderr}");
    if signal != Signal::SIGINT {
        assert!(!stderr.contains("Ctrl-C"), "{stderr}");
    }
    assert!(
        ws.summary().contains("**Stopped:** interrupted"),
        "{}",
        ws.summary()
    );
    assert_eq!(ws.outcomes(), [Value::from("interrupted")]);
    // The start event goes back to the queue for `--continue`.
    assert_eq!(
        ws.saved_state()["state"]["pending"],
        serde_json::json!([{"topic": "task.start", "payload": null}])
    );
}

#[test]
fn ctrl_c_stops_the_agent_writes_the_summary_and_exits_130() {
    interrupted_by(Signal::SIGINT, "press Ctrl-C again");
}

#[test]
fn sigterm_is_handled_like_ctrl_c() {
    interrupted_by(Signal::SIGTERM, "a second one within");
}

#[test]
fn sighup_from_a_closed_terminal_is_handled_like_ctrl_c() {
    interrupted_by(Signal::SIGHUP, "the terminal went away");
}

#[test]
fn ctrl_backslash_is_handled_like_ctrl_c() {
    interrupted_by(Signal::SIGQUIT, "press Ctrl-\\ again");
}

/// How long the test leaves ralph to act on a signal before the agent goes on: a ralph
/// that took it stops the agent well within this.
const SIGNAL_SETTLE: Duration = Duration::from_millis(500);

/// `ralph run` as `nohup` (SIGHUP) or a shell without job control (`ralph run &` in a
/// script: SIGINT and SIGQUIT) starts it: with `ignored` set to be ignored.
fn start_ignoring(ws: &Workspace, args: &[&str], ignored: &'static [Signal]) -> Child {
    let mut command = ws.command(args);
    // SAFETY: between fork and exec only `sigaction` runs, which is async-signal-safe,
    // and it sets no handler of ours, only the action of ignoring.
    unsafe {
        command.pre_exec(move || {
            let ignore = SigAction::new(SigHandler::SigIgn, SaFlags::empty(), SigSet::empty());
            for &signal in ignored {
                sigaction(signal, &ignore)?;
            }
            Ok(())
        });
    }
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ralph")
}

/// A signal ralph was started with ignored stays ignored: `nohup ralph run &` outlives
/// its terminal, and a script's background ralph is not stopped by the keys meant for
/// the foreground job. The run goes on to its end; SIGTERM still stops it.
#[test]
fn signals_ralph_was_started_with_ignored_stay_ignored() {
    let ignored = &[Signal::SIGHUP, Signal::SIGINT, Signal::SIGQUIT];
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | LOOP_COMPLETE | pause_at=1\n",
    );
    let child = start_ignoring(&ws, &["run", "-p", "task"], ignored);
    let state = ws.path().join(".fake");
    common::wait_for_file(&state.join("paused-1"), "the agent's pause");
    for &signal in ignored {
        kill(pid_of(&child), signal).expect("signal");
    }
    std::thread::sleep(SIGNAL_SETTLE);
    std::fs::write(state.join("resume-1"), "").expect("resume the agent");
    let out = wait_output(child);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(out.status), 0, "{stderr}");
    assert!(!stderr.contains("stopping"), "{stderr}");
    assert_eq!(ws.outcomes(), [Value::from("succeeded")]);
    assert!(ws.summary().contains("completed"), "{}", ws.summary());

    // Only what was ignored: SIGTERM still ends the loop.
    let ws = Workspace::new("cli:\n  backend: pi\n", HANGING);
    let child = start_ignoring(&ws, &["run", "-p", "task"], ignored);
    ws.wait_for_agent(1);
    let out = ws.stop(child, Signal::SIGTERM);
    assert_eq!(code(out.status), 130, "{}", common::stderr(&out));
}

#[test]
fn ctrl_c_during_a_gate_says_it_stops_the_gate() {
    let gate = "gates:\n  - name: slow\n    run: \"touch in-gate; sleep 60\"\n";
    let ws = Workspace::new(
        &format!("cli:\n  backend: pi\n{gate}"),
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let child = ws.start(&["run", "-p", "task"]);
    let marker = ws.path().join("in-gate");
    let deadline = std::time::Instant::now() + common::RUN_TIMEOUT;
    while !marker.exists() {
        assert!(std::time::Instant::now() < deadline, "the gate never ran");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = ws.stop(child, Signal::SIGINT);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(out.status), 130, "{stderr}");
    assert!(
        stderr.contains(
            "ralph: stopping the gate and ending the loop (press Ctrl-C again within 2s to \
             kill it now)\n"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("the agent"), "{stderr}");
}

#[test]
fn a_second_loop_in_the_same_workspace_is_refused_with_the_holders_pid() {
    let ws = Workspace::new("cli:\n  backend: pi\n", HANGING);
    let first = ws
        .command(&["run", "-p", "task"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    ws.wait_for_agent(1);
    let second = ws.run(&["run", "-p", "task"]);
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(code(second.status), 1, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "another ralph loop (pid {}) is already running",
            first.id()
        )),
        "{stderr}"
    );
    assert_eq!(ws.agent_log().len(), 1);
    kill(pid_of(&first), Signal::SIGINT).expect("signal");
    assert_eq!(code(wait_output(first).status), 130);
}

#[test]
fn a_closed_stdout_neither_stops_nor_corrupts_the_run() {
    closed_stdout(&["--output", "json"], "{\"type\":\"loop_started\"");
}

#[test]
fn a_closed_stdout_neither_stops_nor_corrupts_a_run_shown_as_text() {
    closed_stdout(&["-v"], "ralph run ");
}

/// Like `ralph run <extra> | head -1`.
fn closed_stdout(extra: &[&str], first_line: &str) {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/long.jsonl | step=a |\npi/anthropic/long.jsonl | step=b |\npi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let mut args = vec!["run", "-p", "task"];
    args.extend_from_slice(extra);
    let mut child = ws
        .command(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Read one line, then close the pipe, like `ralph run --output json | head -1`.
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("read");
    assert!(first.starts_with(first_line), "{first}");
    let out = wait_output(child);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(out.status), 0, "{stderr}");
    // Said once at most (never, if ralph wrote everything before the pipe closed).
    assert!(
        stderr
            .matches("stdout was closed; the loop goes on")
            .count()
            <= 1,
        "{stderr}"
    );
    assert_eq!(ws.history().len(), 3);
    assert!(ws.summary().contains("completed"));
}

#[test]
fn ctrl_c_while_an_agents_version_is_checked_stops_the_check_and_exits_130() {
    let ws = Workspace::new("cli:\n  backend: pi\n", HANGING);
    let started = std::time::Instant::now();
    let child = ws
        .command(&["run", "--output", "json", "-p", "task"])
        .env("FAKE_VERSION_DELAY", "60")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ralph");
    while ws.version_log().is_empty() {
        assert!(
            started.elapsed() < common::RUN_TIMEOUT,
            "pi --version never ran"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = ws.stop(child, Signal::SIGINT);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(out.status), 130, "{stderr}");
    // Well before the version command's own limit (30 s) would have ended it.
    assert!(
        started.elapsed() < ralph_agent::probe::VERSION_PROBE_TIMEOUT,
        "{stderr}"
    );
    assert!(!stderr.contains("reinstall"), "{stderr}");
    // The loop ends as any interrupted loop: before its first agent, resumable.
    let last: Value = serde_json::from_slice(
        out.stdout
            .trim_ascii_end()
            .rsplit(|b| *b == b'\n')
            .next()
            .unwrap(),
    )
    .expect("a JSON line");
    assert_eq!(
        (&last["type"], &last["reason"]),
        (&"loop_finished".into(), &"interrupted".into())
    );
    assert_eq!(ws.agent_log(), Vec::<String>::new(), "no agent ran");
}

#[test]
fn ctrl_c_stops_a_run_whose_stdout_nobody_reads() {
    // The agent floods its output; ralph's own stdout is a pipe the test never reads, so
    // ralph fills it, then its queue, and waits: Ctrl-C must still stop the run.
    let ws = Workspace::new(
        "cli:\n  backend: custom\n  command: sh\n  args: [-c, 'touch started; yes \
         0123456789012345678901234567890123456789 | head -c 40000000; exec sleep 60']\n",
        "",
    );
    let mut child = ws
        .command(&["run", "-p", "task"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ralph");
    let unread = child.stdout.take();
    common::wait_for_file(&ws.path().join("started"), "the agent's start");
    let deadline = std::time::Instant::now() + common::RUN_TIMEOUT;
    // Long enough for the pipe and the queue to fill.
    std::thread::sleep(std::time::Duration::from_secs(2));
    kill(pid_of(&child), Signal::SIGINT).expect("SIGINT");
    let stopped = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "ralph did not stop while its stdout was not read"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    drop(unread);
    let out = wait_output(child);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(stopped), 130, "{stderr}");
    assert!(stderr.contains("stdout is not being read"), "{stderr}");
    assert!(
        ws.summary().contains("**Stopped:** interrupted"),
        "{}",
        ws.summary()
    );
}

/// Stdout on a full device (`/dev/full`: every write fails with ENOSPC). The run goes
/// on, as for a closed pipe, but stderr names the real error, not a reader that went
/// away, and ralph does not exit 0: its output is incomplete. `--help` and `--version`
/// fail the same way instead of saying nothing.
#[test]
fn stdout_on_a_full_disk_is_named_and_fails_the_command() {
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full");
    if full().is_err() {
        eprintln!("no /dev/full here: nothing to check");
        return;
    }
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    for args in [
        &["run", "--output", "json", "-p", "task"][..],
        &["run", "-p", "task"][..],
        &["--version"][..],
        &["--help"][..],
        &["run", "--help"][..],
    ] {
        let out = ws
            .command(args)
            .stdout(full().unwrap())
            .stderr(Stdio::piped())
            .output()
            .expect("run ralph");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(code(out.status), 1, "{args:?}: {stderr}");
        assert!(
            stderr.contains("No space left on device"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("went away"), "{args:?}: {stderr}");
    }
    // The run itself went on and completed.
    assert!(ws.summary().contains("completed"), "{}", ws.summary());
}

/// Ctrl-C while the last iteration's gate runs: the iteration reached
/// `max_iterations`, but the person stopped the run first, so it ends interrupted (130),
/// not at the limit (2).
#[test]
fn ctrl_c_during_the_last_iterations_gate_ends_the_run_interrupted() {
    let gate = "gates:\n  - name: slow\n    run: \"touch in-gate; sleep 60\"\n";
    let ws = Workspace::new(
        &format!("cli:\n  backend: pi\n{gate}"),
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let child = ws.start(&["run", "--max-iterations", "1", "-p", "task"]);
    common::wait_for_file(&ws.path().join("in-gate"), "the gate's start");
    ended_interrupted(&ws, ws.stop(child, Signal::SIGINT));
}

/// SIGTERM while ralph reaps what the last iteration's agent left running (here a
/// process that outlives the agent and takes its time to go): interrupted, as above.
#[test]
fn sigterm_while_the_last_iteration_is_torn_down_ends_the_run_interrupted() {
    // Told to stop only by the teardown (the agent itself has exited), it says so and
    // lingers until it is killed. The agent exits only once the trap is set: on a loaded
    // machine the teardown's SIGTERM could otherwise come first and end it silently.
    let agent = "(trap 'touch got-term' TERM; touch trap-set; while :; do sleep 0.1; done) \
                 >/dev/null 2>&1 & while [ ! -e trap-set ]; do sleep 0.01; done; echo working";
    let ws = Workspace::new(
        &format!("cli:\n  backend: custom\n  command: sh\n  args: [-c, \"{agent}\"]\n"),
        "",
    );
    let child = ws.start(&["run", "--max-iterations", "1", "-p", "task"]);
    common::wait_for_file(&ws.path().join("got-term"), "the teardown's SIGTERM");
    ended_interrupted(&ws, ws.stop(child, Signal::SIGTERM));
}

fn ended_interrupted(ws: &Workspace, out: std::process::Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(out.status), 130, "{stderr}");
    assert!(
        ws.summary().contains("**Stopped:** interrupted"),
        "{}",
        ws.summary()
    );
    let state = ws.saved_state();
    assert_eq!(state["state"]["end"]["reason"], "interrupted", "{state}");
}
