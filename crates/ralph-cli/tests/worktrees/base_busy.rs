//! `ralph runs land` while a git operation on the base is in progress in the main
//! checkout: refused, and the base is not moved under it. Checkouts git can no longer
//! read are not looked into.

use std::process::{Command, Stdio};

use super::common::{Workspace, code};
use super::{COMMIT_OWN_FILE, git, repo, stderr};

/// A worktree loop `one` that completed, then a commit on main after it.
pub(super) fn completed_then_main_moved() -> Workspace {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=one", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    std::fs::write(ws.path().join("later.txt"), "later\n").unwrap();
    git(ws.path(), &["add", "later.txt"]);
    git(ws.path(), &["commit", "-qm", "later"]);
    ws
}

#[test]
fn land_refuses_while_the_base_is_being_rebased_or_bisected() {
    let ws = completed_then_main_moved();
    // A rebase of main that stops (its exec fails): main's HEAD is detached meanwhile.
    let stopped = Command::new("git")
        .args(["rebase", "-q", "--exec", "false", "HEAD~1"])
        .current_dir(ws.path())
        .stdin(Stdio::null())
        .output()
        .expect("git");
    assert!(!stopped.status.success(), "the rebase did not stop");
    let before = git(ws.path(), &["rev-parse", "refs/heads/main"]);

    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(
        err.contains("`git rebase` of main is in progress") && err.contains("git rebase --abort"),
        "{err}"
    );
    assert_eq!(git(ws.path(), &["rev-parse", "refs/heads/main"]), before);

    git(ws.path(), &["rebase", "--abort"]);
    git(ws.path(), &["bisect", "start"]);
    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(err.contains("git bisect reset"), "{err}");

    git(ws.path(), &["bisect", "reset"]);
    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
}

#[test]
fn a_checkout_git_cannot_read_any_more_does_not_stop_a_landing() {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=one", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    // Two worktrees of the repository added by hand, one detached (where an operation
    // on main could be in progress), one on a branch of its own; both lose the `.git`
    // file that leads to the repository, which makes them prunable.
    // Outside the repository: git would otherwise find it from the directories above.
    let outside = tempfile::tempdir().unwrap();
    let side = outside.path().join("side");
    let other = outside.path().join("other");
    let (side_s, other_s) = (side.to_str().unwrap(), other.to_str().unwrap());
    git(ws.path(), &["worktree", "add", "-q", "--detach", side_s]);
    git(
        ws.path(),
        &["worktree", "add", "-q", "-b", "elsewhere", other_s],
    );
    std::fs::remove_file(side.join(".git")).unwrap();
    std::fs::remove_file(other.join(".git")).unwrap();
    let listed = git(ws.path(), &["worktree", "list", "--porcelain"]);
    assert_eq!(listed.matches("\nprunable").count(), 2, "{listed}");

    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(ws.path().join("f-one.txt").is_file());
}
