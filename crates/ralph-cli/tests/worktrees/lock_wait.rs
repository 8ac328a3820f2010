//! A worktree command waiting for the repository lock another ralph command holds: the
//! wait is told after a couple of seconds, naming the holder, and Ctrl-C ends it at once
//! (a blocking wait for the lock would ignore it until the lock is freed).

use std::fs::OpenOptions;
use std::time::{Duration, Instant};

use nix::fcntl::{Flock, FlockArg};
use nix::sys::signal::Signal;

use super::common::code;
use super::common::stderr_watch::StderrWatch;
use super::{COMMIT_OWN_FILE, git, repo, row, stderr, worktrees};

/// How soon ralph must end once stopped: a blocking wait would last as long as the lock
/// is held (the whole test).
const STOPPED_WITHIN: Duration = Duration::from_secs(10);

#[test]
fn ctrl_c_ends_a_landing_s_wait_for_the_repository_lock_which_is_told() {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=one", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let main = git(ws.path(), &["rev-parse", "main"]);
    // This test holds the lock, as another ralph's landing or `run --worktree` would.
    let lock = OpenOptions::new()
        .write(true)
        .open(ws.path().join(".git/ralph/worktrees.lock"))
        .unwrap();
    let held = Flock::lock(lock, FlockArg::LockExclusiveNonblock).unwrap();
    let mut child = ws.start(&["runs", "land", "one", "--check", "true"]);
    // Stopped once it tells the wait (not after a fixed time: on a busy machine ralph may
    // not have reached the lock by then).
    let told = StderrWatch::take(&mut child);
    told.wait_for("waiting for another ralph command");
    let stopped = Instant::now();
    let out = ws.stop(child, Signal::SIGINT);
    let took = stopped.elapsed();
    drop(held);
    let err = told.all();
    assert!(took < STOPPED_WITHIN, "stopped after {took:?}: {err}");
    assert_eq!(code(out.status), 130, "{err}");
    assert!(err.contains("waiting for another ralph command"), "{err}");
    assert!(
        err.contains(&format!("process {}", std::process::id())),
        "the holder is not named: {err}"
    );
    assert!(err.contains("nothing landed"), "{err}");
    assert_eq!(git(ws.path(), &["rev-parse", "main"]), main);
    assert_eq!(row(&worktrees(&ws), "one")["ahead"], 1);
}
