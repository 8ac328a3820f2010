//! `ralph watch` of a worktree loop from the main checkout: by the name `ralph runs` lists
//! it under, and by its run directory, whose own workspace (not the working directory's)
//! says whether a loop still runs it.

use super::common::tmux::{Tmux, session_script};
use super::common::{code, wait_for_file, wait_output};
use super::{COMMIT_OWN_FILE, repo, stderr, tree};

/// Longer than a few of `ralph watch`'s looks at whether the loop runs (one a second).
const ALIVE_LOOKS: std::time::Duration = std::time::Duration::from_secs(3);

#[test]
fn watch_finds_a_worktree_loop_by_the_name_ralph_runs_lists() {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=feat", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    // Found: only the pipe stops it, with the hint of what reads a run there.
    let out = ws.run(&["watch", "feat"]);
    let err = stderr(&out);
    assert_ne!(code(out.status), 0, "{err}");
    assert!(err.contains("`ralph events`"), "{err}");
    assert!(!err.contains("no run"), "{err}");
    // The main checkout has no run of its own: its current run, or `last`, says where
    // the loops' runs are.
    for args in [&["watch"][..], &["watch", "last"]] {
        let err = stderr(&ws.run(args));
        assert!(
            err.contains("`ralph watch feat` shows one"),
            "{args:?}: {err}"
        );
    }
    // A name no loop has is still an unknown run.
    let err = stderr(&ws.run(&["watch", "other"]));
    assert!(err.contains("no run `other`"), "{err}");
    // The loop's checkout, named by its path: pointed to the loop's name.
    for path in [".ralph/worktrees/feat", ".ralph/worktrees/feat/"] {
        let out = ws.run(&["watch", path]);
        let err = stderr(&out);
        assert_ne!(code(out.status), 0, "{err}");
        assert!(
            err.contains("is the checkout of the worktree loop `feat`")
                && err.contains("`ralph watch feat` shows its run"),
            "{path}: {err}"
        );
    }
}

#[test]
fn a_live_worktree_loop_watched_by_its_run_directory_from_elsewhere_is_running() {
    let ws = repo("");
    // The agent stops after its second line until the test lets it go.
    std::fs::write(
        ws.path().join(".fake/plan"),
        "pi/anthropic/text.jsonl | LOOP_COMPLETE | pause_at=2 |\n",
    )
    .unwrap();
    let looping = ws.start(&["run", "--worktree=feat", "-q", "-p", "x"]);
    let state = ws.path().join(".fake");
    wait_for_file(&state.join("paused-2"), "the agent's pause");
    let own = tree(&ws, "feat").join(".ralph");
    let id = std::fs::read_to_string(own.join("current-run")).unwrap();
    let run_dir = own.join("runs").join(id.trim());
    // Watched from the main checkout, a workspace with no loop of its own.
    let script = session_script(
        &ws,
        "watch",
        &format!("watch '{}'", run_dir.display()),
        "echo \"watch exit $?\"",
    );
    let tmux = Tmux::start(ws.path(), "w", &script);
    tmux.wait_for("w", "the run", |s| s.contains(id.trim()));
    std::thread::sleep(ALIVE_LOOKS);
    let screen = tmux.screen("w");
    assert!(
        !screen.contains("not running"),
        "a live loop shown as gone:\n{screen}"
    );
    std::fs::write(state.join("resume-2"), "").unwrap();
    let out = wait_output(looping);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    tmux.wait_for("w", "the loop's end", |s| s.contains("completed"));
    tmux.keys("w", &["q"]);
    tmux.wait_for("w", "the watcher gone", |s| s.contains("watch exit 0"));
}
