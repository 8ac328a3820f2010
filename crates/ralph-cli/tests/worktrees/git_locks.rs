//! git's own lock files held by another git process while ralph creates or lands a
//! worktree loop: ralph waits them out instead of failing.

use std::path::Path;
use std::process::Output;

use super::common::{Workspace, code, wait_output};
use super::{COMMIT_OWN_FILE, ralph_branches, repo, stderr};

/// How long the tests below hold one of git's lock files as another git would: far
/// longer than ralph takes to reach its git command, far shorter than its retries last.
const HOLD: std::time::Duration = std::time::Duration::from_millis(1500);

/// Holds the lock file at `lock` (as a git process would) for [`HOLD`] while `ralph
/// <args>` runs: ralph must wait it out, then succeed.
fn run_while_git_holds(ws: &Workspace, lock: &Path, args: &[&str]) -> Output {
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    std::fs::write(lock, "").unwrap();
    let mut child = ws.start(args);
    std::thread::sleep(HOLD);
    assert!(
        child.try_wait().expect("try_wait").is_none(),
        "ralph did not wait for {}",
        lock.display()
    );
    std::fs::remove_file(lock).unwrap();
    wait_output(child)
}

#[test]
fn git_lock_files_held_by_another_git_are_waited_out() {
    let ws = repo(COMMIT_OWN_FILE);
    let git_dir = ws.path().join(".git");
    let out = run_while_git_holds(
        &ws,
        &git_dir.join("refs/heads/ralph/held.lock"),
        &["run", "--worktree=held", "-q", "-p", "x"],
    );
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert_eq!(ralph_branches(&ws), ["ralph/held"]);
    // Landing fast-forwards main in this checkout, which needs its index.
    let out = run_while_git_holds(
        &ws,
        &git_dir.join("index.lock"),
        &["runs", "land", "held", "--check", "true"],
    );
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(ws.path().join("f-held.txt").is_file());
}
