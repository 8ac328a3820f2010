//! The repository-wide locks of the worktree commands, in git's common directory (the
//! one `.git` every worktree of the repository shares, `git rev-parse
//! --git-common-dir`), so that loops started in any checkout of the repository queue on
//! the same file:
//!
//! - `ralph/worktrees.lock`, held for the few git commands that create, remove or land a
//!   worktree: ten loops started at once take turns instead of racing on git's own
//!   lock files;
//! - `ralph/land.lock`, held for a whole landing (rebase, check, fast-forward): one
//!   landing at a time, while other loops may still be created.
//!
//! `flock`: released by the kernel however the holder ends. A wait is unbounded (a
//! landing holds its lock through a check of up to an hour), so it is told after
//! [`LOCK_WAIT_NOTICE_AFTER`], naming the holder, and a stop (Ctrl-C, SIGTERM) ends it
//! at once: the lock is tried again and again, never waited for in a blocking call no
//! signal interrupts.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::Duration;

use nix::fcntl::{Flock, OFlag};
use ralph_agent::{StopController, StopLevel};
use ralph_core::file_lock::{LOCK_WAIT_NOTICE_AFTER, LockKind, LockWait, Patience, lock_patiently};

use crate::diagnostic::diagnostic;
use crate::error::CliError;

/// Held around the git commands that change the repository's worktrees.
pub(crate) const REPO_LOCK: &str = "worktrees.lock";
/// Held for a whole landing.
pub(crate) const LAND_LOCK: &str = "land.lock";
/// The directory of ralph's files in git's common directory (the records are there too).
const LOCK_DIR: &str = "ralph";
/// The longest pause between tries: how late a freed lock or a stop is seen.
const RETRY_MAX: Duration = Duration::from_millis(100);

/// A held lock; dropping it releases it.
#[derive(Debug)]
pub(crate) struct RepoLock {
    _lock: Flock<File>,
}

/// Takes lock `name` in `common_dir`, waiting for it while `what` (what holds it, as
/// the wait's notice says) finishes, until `stop` is raised.
pub(crate) fn take(
    common_dir: &Path,
    name: &str,
    what: &str,
    stop: &StopController,
) -> Result<RepoLock, CliError> {
    let dir = common_dir.join(LOCK_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| CliError::io("create", &dir, e))?;
    let path = dir.join(name);
    let io_err = |e: std::io::Error| CliError::io("lock", &path, e);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags((OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC).bits())
        .open(&path)
        .map_err(io_err)?;
    let stopped = || stop.current() > StopLevel::None;
    // Said as a worktree command says it: what is waited for, and that Ctrl-C ends it.
    let notice = |wait: &LockWait<'_>| {
        let by = (wait.holder.as_ref())
            .map(|h| format!(", {h} holds `{}`", path.display()))
            .unwrap_or_default();
        diagnostic(format_args!(
            "waiting for {what} to finish{by}… (Ctrl-C stops waiting)"
        ));
    };
    let patience = Patience {
        // Every holder holds it for git commands under their own deadlines, or for a
        // landing whose check has its deadline: the wait ends.
        limit: None,
        notice_after: LOCK_WAIT_NOTICE_AFTER,
        notice: &notice,
        stopped: &stopped,
        retry_max: RETRY_MAX,
    };
    match lock_patiently(file, LockKind::Exclusive, &path, &patience) {
        Ok(lock) => Ok(RepoLock { _lock: lock }),
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
            Err(CliError::WorktreeInterrupted(format!(
                "stopped while waiting for {what} to finish (`{}`): nothing was changed",
                path.display()
            )))
        }
        Err(e) => Err(io_err(e)),
    }
}
