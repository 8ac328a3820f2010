//! An exclusive lock for a file under `.ralph/` that several processes rewrite (the
//! agent's tasks and memories): `<file>.lock` beside it, held with `flock` while a writer
//! reads, changes and atomically replaces the file, so concurrent writers queue instead
//! of losing each other's changes. Readers need no lock: the file is only ever replaced
//! whole. ralph-orchestrator leaves the same `.lock` files beside its own.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};

use crate::fsafe::{self, Access, Links};

/// Held while a writer updates the file; dropping it (or the process ending, however it
/// ends) releases it.
#[derive(Debug)]
pub struct FileLock {
    _lock: Flock<File>,
}

/// The lock file of `target`: `<target>.lock`.
pub fn lock_path(target: &Path) -> PathBuf {
    let mut name = target.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Waits for and takes the lock of `target`, creating the lock file (never through a
/// link). An error is about the lock file, [`lock_path`]: the caller names it.
pub fn lock_beside(target: &Path) -> io::Result<FileLock> {
    let file = fsafe::open(
        &lock_path(target),
        Access::new().read(true).write(true).create(true),
        Links::Refuse,
    )?;
    let lock =
        Flock::lock(file, FlockArg::LockExclusive).map_err(|(_, errno)| io::Error::from(errno))?;
    Ok(FileLock { _lock: lock })
}
