//! A loop whose base branch was renamed after it started (`main` became `trunk`): land
//! and rm say that the base is gone and how to go on, `land --onto` lands it on another
//! branch, and `rm --keep-branch` removes the worktree but keeps the branch.

use super::common::{Workspace, code};
use super::{COMMIT_OWN_FILE, git, ralph_branches, repo, row, stderr, tree, worktrees};

/// A completed loop `one` (one commit ahead), then its base `main` renamed `trunk`.
fn base_renamed() -> Workspace {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=one", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    git(ws.path(), &["branch", "-m", "main", "trunk"]);
    ws
}

#[test]
fn land_and_rm_say_the_base_is_gone_and_land_onto_another_branch_works() {
    let ws = base_renamed();
    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(
        err.contains("started from branch main, which no longer exists"),
        "{err}"
    );
    assert!(err.contains("ralph runs land one --onto BRANCH"), "{err}");
    assert!(err.contains("ralph runs rm one --keep-branch"), "{err}");

    let out = ws.run(&["runs", "rm", "one"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(
        err.contains("main, the branch it was started from"),
        "{err}"
    );
    assert!(
        err.contains("--onto BRANCH") && err.contains("--keep-branch"),
        "{err}"
    );
    assert!(tree(&ws, "one").is_dir());

    // Only a branch that exists, named exactly: no revision syntax, not its own branch.
    for wrong in ["nope", "trunk~1", "ralph/one"] {
        let out = ws.run(&["runs", "land", "one", "--onto", wrong, "--check", "true"]);
        assert_eq!(code(out.status), 1, "{wrong}: {}", stderr(&out));
    }

    let out = ws.run(&["runs", "land", "one", "--onto", "trunk", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let files = git(ws.path(), &["ls-tree", "--name-only", "trunk"]);
    assert!(files.contains("f-one.txt"), "{files}");
    let rows = worktrees(&ws);
    let landed = row(&rows, "one");
    assert_eq!(
        (landed["status"].as_str(), landed["base"].as_str()),
        (Some("landed"), Some("trunk")),
        "{landed}"
    );
    // Landed on trunk, which it now lands on: nothing is left to keep.
    let out = ws.run(&["runs", "rm", "one"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(ralph_branches(&ws).is_empty());
}

#[test]
fn rm_keep_branch_removes_the_worktree_and_keeps_the_branch() {
    let ws = base_renamed();
    let head = git(ws.path(), &["rev-parse", "ralph/one"]);
    let out = ws.run(&["runs", "rm", "one", "--keep-branch"]);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(said.contains("its branch ralph/one is kept"), "{said}");
    assert!(!tree(&ws, "one").exists());
    assert!(worktrees(&ws).is_empty());
    assert_eq!(git(ws.path(), &["rev-parse", "ralph/one"]), head);
}
