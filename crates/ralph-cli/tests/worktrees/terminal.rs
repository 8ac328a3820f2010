//! A git hook or a `--check` that asks its question on the terminal (commitizen's
//! prepare-commit-msg opens `/dev/tty`) while `ralph runs land` runs in a real one: git
//! and the check run without a terminal, so the question fails at once and ralph says
//! why, instead of the kernel stopping the asker (a background read) until its deadline,
//! minutes later.

use std::time::Duration;

use super::common::Workspace;
use super::common::code;
use super::common::tmux::run_in_login_terminal;
use super::signals::install_hook;
use super::{COMMIT_OWN_FILE, git, repo, row, stderr, tree, worktrees};

/// The most the landing may take here: the question fails as it is asked. An asker that
/// could wait would hold it for git's deadline (300 s) or the check's (an hour).
const LANDING_ENDS_WITHIN: Duration = Duration::from_secs(30);

/// A commitizen-style hook: its question and the answer on the terminal.
const ASKING_HOOK: &str = "exec < /dev/tty\nprintf 'commit type? ' > /dev/tty\nread -r answer\n\
    echo \"got $answer\" >&2";

/// Runs `ralph runs land <args>` in a terminal until it ends: the screen and its stderr.
fn land_in_terminal(ws: &Workspace, args: &str) -> (String, String) {
    let screen = run_in_login_terminal(
        ws,
        "land",
        &format!("runs land {args} 2> land.err"),
        LANDING_ENDS_WITHIN,
        String::new,
    );
    let err = std::fs::read_to_string(ws.path().join("land.err")).unwrap();
    (screen, err)
}

#[test]
fn a_hook_asking_on_the_terminal_fails_the_landing_at_once_and_says_why() {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=one", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    // main moves on: the landing replays the loop's commit, which runs the hook.
    std::fs::write(ws.path().join("other.txt"), "x\n").unwrap();
    git(ws.path(), &["add", "other.txt"]);
    git(ws.path(), &["commit", "-qm", "main moves"]);
    install_hook(&ws, "prepare-commit-msg", ASKING_HOOK);
    let (screen, err) = land_in_terminal(&ws, "one --check true");
    assert!(screen.contains("land-exit=1"), "{screen}\n{err}");
    assert!(err.contains("wanted the terminal"), "{err}");
    assert!(
        !screen.contains("commit type?"),
        "the hook asked:\n{screen}"
    );
    // A hook refusing is not a conflict: the loop's status stays as it was.
    assert_eq!(row(&worktrees(&ws), "one")["status"], "completed");
    // The rebase was undone: the branch is checked out, ready to land once fixed.
    let on = git(&tree(&ws, "one"), &["symbolic-ref", "-q", "HEAD"]);
    assert_eq!(on.trim(), "refs/heads/ralph/one", "{err}");
}

#[test]
fn a_check_asking_on_the_terminal_fails_the_landing_at_once_and_says_why() {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=one", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let (screen, err) = land_in_terminal(
        &ws,
        "one --check 'exec < /dev/tty; printf \"sudo password? \" > /dev/tty; read -r a'",
    );
    assert!(screen.contains("land-exit=1"), "{screen}\n{err}");
    assert!(err.contains("the check `exec < /dev/tty;"), "{err}");
    assert!(err.contains("asked for input on the terminal"), "{err}");
    assert!(!screen.contains("password?"), "the check asked:\n{screen}");
    assert_eq!(row(&worktrees(&ws), "one")["status"], "check-failed");
}
