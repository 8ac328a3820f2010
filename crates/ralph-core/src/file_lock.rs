//! An exclusive lock for a file under `.ralph/` that several processes rewrite (the
//! agent's tasks and memories): `<file>.lock` beside it, held with `flock` while a writer
//! reads, changes and atomically replaces the file, so concurrent writers queue instead
//! of losing each other's changes. Readers of the task list need no lock: the file is
//! only ever replaced whole. ralph-orchestrator leaves the same `.lock` files beside its
//! own.
//!
//! A lock is waited for a bounded time ([`LOCK_WAIT_LIMIT`]): a process that holds one
//! and hangs (an editor, a stuck agent, `flock … sleep`) would otherwise hang every
//! `ralph tools` call of an agent, silently, until the loop's idle timeout. After
//! [`LOCK_WAIT_NOTICE_AFTER`] the wait is told (see [`on_lock_wait`]), naming the holder
//! when the system says who it is. The wait itself is [`lock_patiently`], which the
//! worktree commands' repository locks share with no limit and an end on Ctrl-C.

use std::fs::File;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use nix::fcntl::{Flock, FlockArg};

use crate::fsafe::{self, Access, Links};

/// How long a command waits for a lock another process holds before it gives up: far
/// longer than any change ralph makes under one (milliseconds, even for a large list),
/// far shorter than an agent's idle timeout.
pub const LOCK_WAIT_LIMIT: Duration = Duration::from_secs(30);
/// How long a wait lasts before it is told: past the waits concurrent writers cause.
pub const LOCK_WAIT_NOTICE_AFTER: Duration = Duration::from_secs(2);
/// The first pause between tries, doubled up to [`LOCK_RETRY_MAX`]: short, since the
/// usual holder is another ralph that is done within milliseconds.
const LOCK_RETRY_FIRST: Duration = Duration::from_millis(1);
const LOCK_RETRY_MAX: Duration = Duration::from_millis(25);
/// Where Linux lists the locks held, with the process that took each.
const PROC_LOCKS: &str = "/proc/locks";

/// Held while a writer updates the file; dropping it (or the process ending, however it
/// ends) releases it.
#[derive(Debug)]
pub struct FileLock {
    _lock: Flock<File>,
}

/// A wait for a lock that has lasted [`LOCK_WAIT_NOTICE_AFTER`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockWait<'a> {
    /// The lock file.
    pub lock: &'a Path,
    pub holder: Option<Holder>,
    /// How long the wait lasts at most, in all (`None`: until the lock is let go).
    pub limit: Option<Duration>,
}

/// How a lock another process holds is waited for: tried again and again, with pauses
/// that double up to `retry_max`, never in a blocking call that no signal ends.
pub struct Patience<'a> {
    /// Given up after this long (an error of kind `TimedOut`); `None`: as long as it
    /// takes, where every holder is bounded by deadlines of its own.
    pub limit: Option<Duration>,
    /// How long the wait lasts before `notice` is told of it, once.
    pub notice_after: Duration,
    pub notice: &'a dyn Fn(&LockWait<'_>),
    /// Asked between tries: `true` ends the wait (an error of kind `Interrupted`).
    pub stopped: &'a dyn Fn() -> bool,
    /// The longest pause between tries: how late a freed lock or a stop is seen.
    pub retry_max: Duration,
}

/// The process that took a lock, as the system lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    pub pid: u32,
    /// Its command name; `None` when it has ended (a lock outlives the process that
    /// took it in the processes it started, as `flock LOCK command` does) or is not ours
    /// to look at.
    pub name: Option<String>,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.name {
            Some(name) => write!(f, "process {} ({name})", self.pid),
            None => write!(
                f,
                "process {} (or a process it started, which inherits the lock)",
                self.pid
            ),
        }
    }
}

/// Whether a lock is taken to read (with other readers) or to write (alone).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockKind {
    Shared,
    Exclusive,
}

/// Who is told of a long wait. ralph-core writes to no terminal: the binary says how a
/// wait is shown, once, at its start; until then waits are not told.
static WAIT_NOTICE: OnceLock<fn(&LockWait<'_>)> = OnceLock::new();

/// Sets what is called when a wait for a lock has lasted [`LOCK_WAIT_NOTICE_AFTER`]
/// (once a wait). Only the first call counts.
pub fn on_lock_wait(notice: fn(&LockWait<'_>)) {
    let _ = WAIT_NOTICE.set(notice);
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
    let path = lock_path(target);
    let file = fsafe::open(
        &path,
        Access::new().read(true).write(true).create(true),
        Links::Refuse,
    )?;
    let lock = lock_file(file, LockKind::Exclusive, &path)?;
    Ok(FileLock { _lock: lock })
}

/// Takes `kind` of lock on `file` (the lock file at `path`), waiting at most
/// [`LOCK_WAIT_LIMIT`]; past it, an error of kind `TimedOut` that names the holder.
pub fn lock_file(file: File, kind: LockKind, path: &Path) -> io::Result<Flock<File>> {
    let notice = |wait: &LockWait<'_>| {
        if let Some(notice) = WAIT_NOTICE.get() {
            notice(wait);
        }
    };
    lock_patiently(
        file,
        kind,
        path,
        &Patience {
            limit: Some(LOCK_WAIT_LIMIT),
            notice_after: LOCK_WAIT_NOTICE_AFTER,
            notice: &notice,
            stopped: &|| false,
            retry_max: LOCK_RETRY_MAX,
        },
    )
}

/// Takes the lock on `file` (its path `path`, for the notice), waiting as `patience` says.
pub fn lock_patiently(
    mut file: File,
    kind: LockKind,
    path: &Path,
    patience: &Patience<'_>,
) -> io::Result<Flock<File>> {
    let arg = match kind {
        LockKind::Shared => FlockArg::LockSharedNonblock,
        LockKind::Exclusive => FlockArg::LockExclusiveNonblock,
    };
    let start = Instant::now();
    let mut pause = LOCK_RETRY_FIRST;
    let mut told = false;
    loop {
        match Flock::lock(file, arg) {
            Ok(lock) => return Ok(lock),
            Err((back, nix::errno::Errno::EWOULDBLOCK)) => file = back,
            Err((back, nix::errno::Errno::EINTR)) => {
                file = back;
                continue;
            }
            Err((_, errno)) => return Err(io::Error::from(errno)),
        }
        if (patience.stopped)() {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "stopped while waiting for the lock",
            ));
        }
        let waited = start.elapsed();
        if let Some(limit) = patience.limit
            && waited >= limit
        {
            let holder = holder_of(&file);
            let by = holder.map_or_else(|| "another process".to_owned(), |h| h.to_string());
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "{by} has held it for over {} s; if it is stuck, end it (or, when nothing \
                     else uses the file, delete the lock file), then try again",
                    limit.as_secs()
                ),
            ));
        }
        if !told && waited >= patience.notice_after {
            told = true;
            (patience.notice)(&LockWait {
                lock: path,
                holder: holder_of(&file),
                limit: patience.limit,
            });
        }
        let left = patience.limit.map_or(pause, |l| l.saturating_sub(waited));
        std::thread::sleep(pause.min(left));
        pause = (pause * 2).min(patience.retry_max);
    }
}

/// The process holding a lock on `file`, from `/proc/locks`; `None` when the system
/// does not say (not Linux, no `/proc`, or the lock was let go meanwhile).
fn holder_of(file: &File) -> Option<Holder> {
    let meta = file.metadata().ok()?;
    let locks = std::fs::read_to_string(PROC_LOCKS).ok()?;
    let pid = holder_in(&locks, meta.dev(), meta.ino())?;
    let name = std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|n| n.trim_end().to_owned())
        .filter(|n| !n.is_empty());
    Some(Holder { pid, name })
}

/// The pid of the `flock` holder of the file `dev`/`ino` in the text of
/// [`PROC_LOCKS`]: lines such as `3: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF`, the
/// device as hex major:minor; a waiter's line (`3: -> FLOCK …`) holds nothing.
fn holder_in(locks: &str, dev: u64, ino: u64) -> Option<u32> {
    let (major, minor) = (nix::sys::stat::major(dev), nix::sys::stat::minor(dev));
    locks.lines().find_map(|line| {
        let mut fields = line.split_whitespace().skip(1);
        if fields.next()? != "FLOCK" {
            return None;
        }
        let pid = fields.nth(2)?.parse::<u32>().ok()?;
        let mut file = fields.next()?.split(':');
        let (maj, min, inode) = (file.next()?, file.next()?, file.next()?);
        let same = u64::from_str_radix(maj, 16).ok()? == major
            && u64::from_str_radix(min, 16).ok()? == minor
            && inode.parse::<u64>().ok()? == ino;
        same.then_some(pid)
    })
}

#[cfg(test)]
#[path = "file_lock_tests.rs"]
mod tests;
