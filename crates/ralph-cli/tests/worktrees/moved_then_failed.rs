//! A fast-forward that fails after it moved the base: git runs the post-merge hook once
//! the base is moved and ignores its exit code, so only something that ends git itself
//! there (its deadline on a hook that hangs, a signal) fails the command. The branch has
//! landed all the same: the record says so, and the message says what failed.

use super::common::code;
use super::signals::install_hook;
use super::{COMMIT_OWN_FILE, git, repo, row, stderr, worktrees};

/// Ends the `git merge` that runs it, as its deadline would end one whose hook hangs.
const KILLS_ITS_GIT: &str = "kill -TERM $PPID";

#[test]
fn a_fast_forward_that_fails_after_moving_the_base_is_recorded_as_landed() {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=one", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let branch = git(ws.path(), &["rev-parse", "ralph/one"]);
    install_hook(&ws, "post-merge", KILLS_ITS_GIT);
    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    let err = stderr(&out);
    assert_eq!(git(ws.path(), &["rev-parse", "main"]), branch, "{err}");
    assert_eq!(code(out.status), 0, "{err}");
    assert!(
        err.contains("the command that moved it then failed"),
        "{err}"
    );
    assert!(err.contains("git merge --ff-only"), "{err}");
    let rows = worktrees(&ws);
    assert_eq!(row(&rows, "one")["status"], "landed", "{err}");
    assert_eq!(row(&rows, "one")["ahead"], 0, "{err}");
}
