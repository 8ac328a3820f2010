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
//! `flock`: released by the kernel however the holder ends.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg, OFlag};

use crate::diagnostic::diagnostic;
use crate::error::CliError;

/// Held around the git commands that change the repository's worktrees.
pub(crate) const REPO_LOCK: &str = "worktrees.lock";
/// Held for a whole landing.
pub(crate) const LAND_LOCK: &str = "land.lock";
/// The directory of ralph's files in git's common directory (the records are there too).
const LOCK_DIR: &str = "ralph";

/// A held lock; dropping it releases it.
#[derive(Debug)]
pub(crate) struct RepoLock {
    _lock: Flock<File>,
}

/// Takes lock `name` in `common_dir`, waiting for it (and saying so when `what` is given
/// and it is held).
pub(crate) fn take(
    common_dir: &Path,
    name: &str,
    what: Option<&str>,
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
    let file = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(lock) => return Ok(RepoLock { _lock: lock }),
        Err((file, Errno::EWOULDBLOCK)) => file,
        Err((_, errno)) => return Err(io_err(errno.into())),
    };
    if let Some(what) = what {
        diagnostic(format_args!("waiting for {what} to finish…"));
    }
    // Every holder holds it for git commands under their own deadlines, or for a
    // landing whose check has its deadline: the wait ends.
    match Flock::lock(file, FlockArg::LockExclusive) {
        Ok(lock) => Ok(RepoLock { _lock: lock }),
        Err((_, errno)) => Err(io_err(errno.into())),
    }
}
