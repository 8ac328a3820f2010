//! A landing that rebased the loop's branch and then landed nothing puts the branch back
//! where it was: refused at the fast-forward (the base's checkout has uncommitted
//! changes), or stopped by Ctrl-C during its check. Only a failed check keeps it
//! rebased, as `check-failed` records.

use nix::sys::signal::Signal;

use super::base_busy::completed_then_main_moved;
use super::common::code;
use super::signals::{hang, hung_pid, stopped_while_hung};
use super::{git, row, stderr, tree, worktrees};

/// The commit the loop `one`'s branch is at.
fn tip(ws: &super::common::Workspace) -> String {
    git(ws.path(), &["rev-parse", "refs/heads/ralph/one"])
}

#[test]
fn a_landing_refused_at_the_fast_forward_leaves_the_branch_as_it_was() {
    let ws = completed_then_main_moved();
    let before = tip(&ws);
    let status = row(&worktrees(&ws), "one")["status"].clone();
    // Found only when the base is about to move, after the rebase and the check.
    std::fs::write(ws.path().join("shared.txt"), "edited by hand\n").unwrap();

    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(
        err.contains("uncommitted changes") && err.contains("nothing landed"),
        "{err}"
    );
    assert_eq!(tip(&ws), before, "the branch stayed rebased: {err}");
    assert!(
        err.contains(&format!("ralph/one is back at {}", &before[..12])),
        "{err}"
    );
    // Its checkout with it: main's later commit is not in the worktree.
    assert!(!tree(&ws, "one").join("later.txt").exists(), "{err}");
    assert_eq!(row(&worktrees(&ws), "one")["status"], status);

    git(ws.path(), &["checkout", "--", "shared.txt"]);
    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(ws.path().join("f-one.txt").is_file());
}

#[test]
fn a_landing_stopped_during_its_check_leaves_the_branch_as_it_was() {
    let ws = completed_then_main_moved();
    let before = tip(&ws);
    let check = hang(&hung_pid(&ws));
    let err = stopped_while_hung(
        &ws,
        &["runs", "land", "one", "--check", &check],
        Signal::SIGINT,
    );
    assert!(
        err.contains("nothing landed") && err.contains("ralph/one is back at"),
        "{err}"
    );
    assert_eq!(tip(&ws), before, "the branch stayed rebased: {err}");
    assert!(!tree(&ws, "one").join("later.txt").exists(), "{err}");
}
