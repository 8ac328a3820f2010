use std::time::Duration;

use super::{Git, lock_contention};

#[test]
fn lock_contention_is_told_from_other_failures() {
    for held in [
        "fatal: Unable to create '/r/.git/index.lock': File exists.\n\nAnother git process seems to be running",
        "error: could not lock config file .git/config: File exists",
        "fatal: cannot lock ref 'refs/heads/ralph/a': Unable to create '/r/.git/refs/heads/ralph/a.lock': File exists.",
        "error: Unable to create '/r/.git/packed-refs.lock': File exists.",
    ] {
        assert!(lock_contention(held), "{held}");
    }
    for other in [
        "fatal: a branch named 'ralph/a' already exists",
        "fatal: cannot lock ref 'refs/heads/main': is at 1 but expected 2",
        "CONFLICT (content): Merge conflict in shared.txt",
    ] {
        assert!(!lock_contention(other), "{other}");
    }
}

#[test]
fn a_git_command_past_its_deadline_is_said_to_have_timed_out() {
    let dir = tempfile::tempdir().unwrap();
    let git = Git {
        timeout: Duration::from_secs(1),
        ..Git::new().unwrap()
    };
    // An alias that hangs, as a hook or filter git runs would.
    let err = git
        .ok(dir.path(), &["-c", "alias.hang=!sleep 100", "hang"])
        .unwrap_err()
        .to_string();
    assert!(err.contains("timed out after 1 s"), "{err}");
    assert!(err.contains("hooks, filters"), "{err}");
}

#[test]
fn a_git_command_killed_by_a_signal_says_which() {
    let dir = tempfile::tempdir().unwrap();
    let git = Git::new().unwrap();
    // An alias whose shell kills git itself (its parent), as the OOM killer would.
    for (signal, name) in [
        ("KILL", "signal 9, SIGKILL"),
        ("TERM", "signal 15, SIGTERM"),
    ] {
        let alias = format!("alias.die=!kill -{signal} $PPID");
        let err = git
            .ok(dir.path(), &["-c", &alias, "die"])
            .unwrap_err()
            .to_string();
        assert!(err.contains(&format!("(killed by {name}")), "{err}");
    }
}
