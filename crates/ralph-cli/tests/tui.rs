//! The full-screen view in a real terminal (tmux): a three-hat loop run with `--tui`,
//! paged back to iteration 1, searched, exported; `ralph watch` in a second window on the
//! same run, left with `q` while the loop goes on; then `q` under `ralph run --tui` asks
//! and stops the loop as Ctrl-C does, and the terminal is given back; after an agent that
//! crashed and a SIGTERM too.
//!
//! The reviewer's fake agent stops mid-transcript until the test ends the run, so every
//! check is of a state the screen is known to reach, never of timing. Needs `tmux`
//! (scripts/test.sh installs it).

mod common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use common::tmux::{POLL, Tmux, session_script};
use common::{RUN_TIMEOUT, THREE_HATS, Workspace};

/// The reviewer's transcript stops after this line (a tool call has started).
const PAUSE_LINE: u32 = 24;

/// A shell script that runs `command` (ralph's arguments) in the workspace with the fake
/// agents, then says `<name> exit <code>` and waits.
fn script(ws: &Workspace, name: &str, command: &str) -> PathBuf {
    session_script(ws, name, command, &format!("echo \"{name} exit $?\""))
}

fn wait_file(path: &Path) {
    let deadline = Instant::now() + RUN_TIMEOUT;
    while !path.exists() {
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(POLL);
    }
}

#[test]
fn run_tui_browses_searches_exports_and_a_watcher_follows_the_same_run() {
    let ws = Workspace::new(
        THREE_HATS,
        &format!(
            "pi/anthropic/text.jsonl | plan.ready=write hello.txt |\n\
             claude/v2.1.332_happy_ralph_args.jsonl | build.done=wrote hello.txt | sed=s/LOOP_COMPLETE/Built./\n\
             pi/anthropic/tool.jsonl | review.approved=looks good;LOOP_COMPLETE | pause_at={PAUSE_LINE}\n"
        ),
    );
    let run = script(&ws, "run", "run --tui -p 'Write hello.txt'");
    let tmux = Tmux::start(ws.path(), "t", &run);

    // Live: the third iteration runs, the list shows all three.
    wait_file(&ws.path().join(format!(".fake/paused-{PAUSE_LINE}")));
    // One condition for all of it: a frame reaches tmux in more than one write, and a
    // screen read between two of them could show the list row before the header.
    tmux.wait_for("t:0", "the reviewer at work", |s| {
        s.contains("iteration 3 · reviewer · running")
            && s.contains("planner")
            && s.contains("builder")
            && s.contains("iteration 3/10")
    });

    // Back to iteration 1.
    tmux.keys("t:0", &["Up", "Up"]);
    tmux.wait_for("t:0", "iteration 1", |s| {
        s.contains("iteration 1 · planner · succeeded")
    });

    // Search, then export.
    tmux.keys("t:0", &["/"]);
    tmux.keys("t:0", &["-l", "mock model"]);
    tmux.keys("t:0", &["Enter"]);
    tmux.wait_for("t:0", "a match", |s| s.contains("match 1/"));
    tmux.keys("t:0", &["e"]);
    tmux.wait_for("t:0", "where the export went", |s| {
        s.contains("exported to")
    });
    let run_dir = std::fs::read_dir(ws.path().join(".ralph/runs"))
        .expect("runs")
        .next()
        .expect("a run")
        .expect("entry")
        .path();
    let exported = std::fs::read_to_string(run_dir.join("exports/iteration-1.md")).expect("export");
    assert!(exported.contains("iteration 1 · planner"), "{exported}");

    // A watcher in a second window sees the same run, live, and leaves it running.
    let watch = script(&ws, "watch", "watch");
    let opened = tmux.tmux(&["new-window", "-t", "t", "sh", &watch.display().to_string()]);
    assert!(
        opened.status.success(),
        "tmux new-window: {}\nthe run's window:\n{}",
        String::from_utf8_lossy(&opened.stderr),
        tmux.screen("t:0")
    );
    tmux.wait_for("t:1", "the run in the watcher", |s| {
        s.contains("iteration 3 · reviewer · running") && s.contains("planner")
    });
    tmux.keys("t:1", &["Up", "Up"]);
    tmux.wait_for("t:1", "iteration 1 in the watcher", |s| {
        s.contains("iteration 1 · planner · succeeded")
    });
    tmux.keys("t:1", &["q"]);
    tmux.wait_for("t:1", "the watcher gone", |s| s.contains("watch exit 0"));
    assert!(
        tmux.screen("t:0").contains("planner"),
        "the run's view stays"
    );
    assert!(!tmux.screen("t:0").contains("run exit"), "the loop goes on");

    // q under `ralph run --tui` asks; n keeps the loop, q y stops it as Ctrl-C does.
    tmux.keys("t:0", &["q"]);
    tmux.wait_for("t:0", "the question", |s| {
        s.contains("stop the loop and quit? (y/n)")
    });
    tmux.keys("t:0", &["n"]);
    tmux.wait_for("t:0", "the loop going on", |s| {
        s.contains("the loop goes on")
    });
    tmux.keys("t:0", &["q"]);
    tmux.wait_for("t:0", "the question", |s| {
        s.contains("stop the loop and quit? (y/n)")
    });
    tmux.keys("t:0", &["y"]);
    let screen = tmux.wait_for("t:0", "the end", |s| s.contains("run exit"));
    assert!(screen.contains("run exit 130"), "{screen}");
    // The terminal is back: no TUI frame is left on the screen, the verdict is said,
    // and as at the end of the text view, where the summary is and how to go on.
    assert!(!screen.contains("? help"), "{screen}");
    assert!(screen.contains("interrupted"), "{screen}");
    assert!(screen.contains("summary: .ralph/runs/"), "{screen}");
    assert!(
        screen.contains("`ralph run --continue` resumes it"),
        "{screen}"
    );
}

#[test]
fn a_crashed_agent_then_sigterm_give_the_terminal_back() {
    // Iteration 1's agent dies by a signal's exit code; iteration 2's stops mid-stream.
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | | exit=139\n\
         pi/anthropic/text.jsonl | | pause_at=2\n",
    );
    // After ralph: whether the terminal is back in canonical (cooked) mode.
    let run = session_script(
        &ws,
        "run",
        "run --tui -p task --max-iterations 3",
        "echo \"run exit $?\"; stty -a | grep -o -- '-\\{0,1\\}icanon' | sed 's/^/mode /'",
    );
    let tmux = Tmux::start(ws.path(), "t", &run);
    wait_file(&ws.path().join(".fake/paused-2"));
    tmux.wait_for("t:0", "iteration 2 at work", |s| {
        s.contains("iteration 2") && s.contains("running")
    });
    let alternate = || tmux.format("t:0", "#{alternate_on}");
    assert_eq!(alternate(), "1", "the view runs on the alternate screen");

    let lock = std::fs::read_to_string(ws.path().join(".ralph/loop.lock")).expect("the lock");
    let pid: i32 = lock
        .split_whitespace()
        .next()
        .and_then(|p| p.parse().ok())
        .expect("ralph's pid in the lock");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("SIGTERM");
    let screen = tmux.wait_for("t:0", "the end", |s| s.contains("mode "));
    assert!(screen.contains("run exit 130"), "{screen}");
    assert!(
        screen.contains("mode icanon"),
        "raw mode left on:\n{screen}"
    );
    assert_eq!(alternate(), "0", "the alternate screen left on:\n{screen}");
    assert!(!screen.contains("? help"), "{screen}");
    assert_eq!(
        tmux.format("t:0", "#{cursor_flag}"),
        "1",
        "the cursor is hidden"
    );
}

#[test]
fn the_full_screen_view_needs_a_terminal_and_a_run() {
    let ws = Workspace::new("cli:\n  backend: pi\n", "pi/anthropic/text.jsonl | |\n");
    let out = ws.run(&["run", "--tui", "-p", "task"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("needs a terminal on stdout"), "{stderr}");
    assert!(stderr.contains("leave out --tui"), "{stderr}");
    assert!(ws.agent_log().is_empty(), "no agent ran");
    // Refused before anything of a run was made: no run directory, no current run
    // pointing at one, so `--continue` still finds the run before (here: none).
    let ralph = ws.path().join(".ralph");
    assert!(
        !ralph.join("current-run").exists(),
        "a current run was named"
    );
    let runs = std::fs::read_dir(ralph.join("runs")).map_or(0, |dir| dir.count());
    assert_eq!(runs, 0, "a run directory was made");

    // An unknown run is named as one, with where the runs are listed, as `events --run`
    // says it: not a file ralph could not open.
    for unknown in ["no-such-run", "20200101T000000Z"] {
        let out = ws.run(&["watch", unknown]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{stderr}");
        assert!(stderr.contains("`ralph runs` lists them"), "{stderr}");
        assert!(!stderr.contains("cannot open"), "{stderr}");
    }

    // A run that exists, watched in a pipe: the hint names what reads a run there.
    let out = ws.run(&["run", "-p", "task"]);
    assert!(out.status.code().is_some(), "the run ended");
    // `last` names it, as for `events --run`: the run is found, and only the pipe stops it.
    for args in [&["watch"][..], &["watch", "last"]] {
        let out = ws.run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{stderr}");
        assert!(stderr.contains("`ralph events`"), "{args:?}: {stderr}");
        assert!(!stderr.contains("--output json"), "{stderr}");
    }
}
