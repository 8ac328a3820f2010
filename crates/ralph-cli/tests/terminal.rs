//! What a person sees: `ralph run` in a real terminal (tmux), with a fake pi that
//! streams a real transcript and stops at chosen lines until the test lets it go on, so
//! every check is of a state the screen is known to reach, never of timing.
//!
//! Needs `tmux` (scripts/test.sh installs it).

mod common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use common::tmux::{POLL, Tmux, session_script};
use common::{RUN_TIMEOUT, Workspace, ralph_bin};
use nix::errno::Errno;
use nix::sys::signal::kill;
use nix::unistd::Pid;

/// Waits until the fake agent has reached its pause after line `n`.
fn wait_paused(state: &Path, n: u32) {
    let deadline = Instant::now() + RUN_TIMEOUT;
    while !state.join(format!("paused-{n}")).exists() {
        assert!(
            Instant::now() < deadline,
            "the agent never reached line {n}"
        );
        std::thread::sleep(POLL);
    }
}

/// The status line's clock (`0:07` in `⠙ iteration 1 · 0:07 · running …`), if shown.
fn status_clock(screen: &str) -> Option<String> {
    screen
        .lines()
        .find(|l| l.contains("iteration 1 · ") && l.contains(" · running "))
        .and_then(|l| l.split(" · ").nth(1))
        .map(str::to_owned)
}

/// `ralph run -p 'write out.txt'` in a terminal, in `ws`, with the fake agents; the shell
/// outlives Ctrl-C, writes ralph's exit code to `.fake/exit-code` and says `ralph is done`.
fn start_run(ws: &Workspace) -> (Tmux, PathBuf) {
    let state = ws.path().join(".fake");
    let after = format!(
        "echo \"exit $?\" > '{}/exit-code'\necho 'ralph is done'",
        state.display()
    );
    let script = session_script(ws, "session", "run -p 'write out.txt'", &after);
    (Tmux::start(ws.path(), "t", &script), state)
}

#[test]
fn a_person_sees_the_run_stream_and_a_clean_stop_on_ctrl_c() {
    // Pause after line 11 (mid-sentence) and after line 24 (a tool has started).
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/tool.jsonl | | pause_at=11,24\n",
    );
    let (terminal, state) = start_run(&ws);

    // The header, then the answer as far as it has streamed: mid-sentence.
    wait_paused(&state, 11);
    let screen = terminal.wait_for("t", "the first words", |s| s.contains("I'll create the"));
    assert!(
        screen.contains("── iteration 1/100 · ralph · pi · run time 0:00 ──"),
        "{screen}"
    );
    assert!(!screen.contains("show it"), "{screen}");

    // More text arrives, then a tool starts and the agent goes quiet: the status line
    // shows what runs, with a clock that counts.
    std::fs::write(state.join("resume-11"), "").expect("resume");
    wait_paused(&state, 24);
    let screen = terminal.wait_for("t", "the tool call and the status line", |s| {
        s.contains("I'll create the file and show it.")
            && s.contains("▸ bash  echo hello > out.txt && cat out.txt")
            && status_clock(s).is_some()
    });
    let first = status_clock(&screen);
    terminal.wait_for("t", "the status line's clock moving on", |s| {
        status_clock(s).is_some_and(|c| Some(&c) != first.as_ref())
    });

    // Ctrl-C: the agent is stopped, the status line is gone, the verdict is printed.
    terminal.keys("t", &["C-c"]);
    let screen = terminal.wait_for("t", "the end of the run", |s| s.contains("ralph is done"));
    let code = std::fs::read_to_string(state.join("exit-code")).expect("exit code");
    assert_eq!(code.trim(), "exit 130", "{screen}");
    for part in [
        "ralph: stopping the agent and ending the loop",
        "■ iteration 1 interrupted",
        "■ interrupted",
        "  summary: .ralph/runs/",
    ] {
        assert!(screen.contains(part), "{part:?} in\n{screen}");
    }
    assert_eq!(
        status_clock(&screen),
        None,
        "a status line was left:\n{screen}"
    );
    assert!(
        !screen.lines().any(|l| l.contains("· running ")),
        "{screen}"
    );
    // No process of the agent is left: its process group is empty.
    let pid: i32 = std::fs::read_to_string(state.join("pid-1"))
        .expect("pid")
        .trim()
        .parse()
        .expect("a pid");
    assert_eq!(kill(Pid::from_raw(-pid), None), Err(Errno::ESRCH));
}

#[test]
fn ctrl_c_in_the_middle_of_an_answer_starts_ralphs_message_on_a_line_of_its_own() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/tool.jsonl | | pause_at=11\n",
    );
    let (terminal, state) = start_run(&ws);
    wait_paused(&state, 11);
    terminal.wait_for("t", "the first words", |s| s.contains("I'll create the"));
    terminal.keys("t", &["C-c"]);
    let screen = terminal.wait_for("t", "the end of the run", |s| s.contains("ralph is done"));
    assert!(
        screen
            .lines()
            .any(|l| l.starts_with("ralph: stopping the agent and ending the loop")),
        "the message is glued to the answer:\n{screen}"
    );
}

#[test]
fn inspect_on_a_terminal_indents_its_report_and_says_when_it_reads_the_terminal() {
    let ws = Workspace::new("", "");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/pi/anthropic/text.jsonl");
    let script = ws.path().join("session.sh");
    std::fs::write(
        &script,
        format!(
            "cd '{ws}'\n'{ralph}' inspect '{fixture}'\n'{ralph}' inspect\necho \"inspect done $?\"\n\
             exec sleep 600\n",
            ws = ws.path().display(),
            ralph = ralph_bin(),
            fixture = fixture.display(),
        ),
    )
    .expect("script");
    let terminal = Tmux::start(ws.path(), "t", &script);
    let screen = terminal.wait_for("t", "the hint about reading the terminal", |s| {
        s.contains("reading an agent's stream from the terminal")
    });
    assert!(screen.lines().any(|l| l == "{"), "{screen}");
    assert!(
        screen.lines().any(|l| l.starts_with("  \"agent\": \"pi\"")),
        "{screen}"
    );
    let out = terminal.tmux(&["send-keys", "C-d"]);
    assert!(out.status.success());
    terminal.wait_for("t", "the second inspect to end", |s| {
        s.contains("inspect done 1")
    });
}

/// The countdown's time left (`9m 58s` in `⏸ rate limited on pi: retrying in 9m 58s (at …)`),
/// if shown.
fn countdown(screen: &str) -> Option<String> {
    let line = screen
        .lines()
        .find(|l| l.starts_with("⏸ rate limited on pi: retrying in "))?;
    let rest = line.strip_prefix("⏸ rate limited on pi: retrying in ")?;
    rest.split(" (at ").next().map(str::to_owned)
}

#[test]
fn a_person_sees_a_wait_counted_down_and_gone_on_ctrl_c() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n  rate_limit_wait_seconds: 600\n",
        "pi/anthropic/error429.jsonl | |\n",
    );
    let (terminal, state) = start_run(&ws);
    let screen = terminal.wait_for("t", "the countdown", |s| countdown(s).is_some());
    assert!(
        screen.contains("⏸ rate limited: waiting 10m 00s, then iteration 1 (ralph)"),
        "{screen}"
    );
    let first = countdown(&screen);
    terminal.wait_for("t", "the countdown moving on", |s| {
        countdown(s).is_some_and(|c| Some(&c) != first.as_ref())
    });
    terminal.keys("t", &["C-c"]);
    let screen = terminal.wait_for("t", "the end of the run", |s| s.contains("ralph is done"));
    let code = std::fs::read_to_string(state.join("exit-code")).expect("exit code");
    assert_eq!(code.trim(), "exit 130", "{screen}");
    assert!(screen.contains("■ interrupted"), "{screen}");
    assert_eq!(
        countdown(&screen),
        None,
        "the countdown was left:\n{screen}"
    );
}
