//! The workspace lock: one loop per workspace at a time.
//!
//! An exclusive `flock` on `.ralph/loop.lock`, held for the whole run and released by
//! the kernel when the process ends however it ends (no stale lock after a crash). The
//! holder writes its pid into the file so a second loop can say who holds it. The file
//! itself is never deleted: removing a locked file would let a third loop lock a new
//! file with the same name while the first still runs.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg, OFlag};

/// Name of the lock file under `.ralph/`.
pub const LOCK_FILE: &str = "loop.lock";

/// The most of the lock file read for the holder's pid and host (a host name is at most
/// 64 bytes on Linux).
const HOLDER_BYTES: u64 = 128;

/// Who holds (or last held) a lock, as its file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockHolder {
    pub pid: u32,
    /// The holder's host name; `None` in a file written before ralph recorded it.
    pub host: Option<String>,
}

impl LockHolder {
    /// Parses `<pid> [<host>]`; `None` for anything else.
    pub fn parse(text: &str) -> Option<LockHolder> {
        let mut words = text.split_whitespace();
        let pid = words.next()?.parse().ok()?;
        let host = words.next().map(str::to_owned);
        Some(LockHolder { pid, host })
    }

    /// Whether the holder ran on this machine, so that its pid may be looked up here. A
    /// file without a host (an older ralph) is taken to be this machine's, as before.
    pub fn on_this_host(&self) -> bool {
        match (&self.host, this_host()) {
            (Some(theirs), Some(ours)) => *theirs == ours,
            _ => true,
        }
    }
}

/// This machine's host name (a pod's name under Kubernetes, the runner's on CI); `None`
/// when it has none that is one word of text.
pub fn this_host() -> Option<String> {
    let name = nix::unistd::gethostname().ok()?.into_string().ok()?;
    (!name.is_empty() && !name.contains(char::is_whitespace)).then_some(name)
}

/// Reads the holder recorded in the lock file at `path`; `None` when there is no file or
/// it names no holder.
pub fn read_holder(path: &Path) -> Option<LockHolder> {
    let file = crate::fsafe::open_read(path, crate::fsafe::Links::Refuse).ok()?;
    let mut text = String::new();
    file.take(HOLDER_BYTES).read_to_string(&mut text).ok()?;
    LockHolder::parse(&text)
}

/// How often a lock found held is tried again, [`PROBE_WAIT`] apart, before it counts as
/// held: [`is_held`] holds it for an instant (`ralph runs` asks it of every worktree
/// loop), and a loop starting in that instant must not be refused for it.
const PROBE_RETRIES: u32 = 10;
const PROBE_WAIT: std::time::Duration = std::time::Duration::from_millis(20);

/// Held while a loop runs; dropping it releases the lock.
#[derive(Debug)]
pub struct WorkspaceLock {
    _lock: Flock<File>,
    /// The same lock in the user's own directory, where the agent's `git clean -fdx` or
    /// `rm -rf .ralph` cannot take it away (`None` without a usable user directory).
    _user: Option<Flock<File>>,
    /// Why the user's lock was left out, when its directory is unusable.
    user_skipped: Option<LockError>,
    path: PathBuf,
}

/// The user's lock for the workspace at `workspace`: in `$XDG_RUNTIME_DIR/ralph/locks/`
/// (else the cache directory's), named by a hash of the workspace's canonical path.
/// `None` when no absolute user directory is set or the workspace cannot be resolved.
pub(super) fn user_lock_path(workspace: &Path) -> Option<PathBuf> {
    let base = ralph_types::user_dirs::runtime_dir()?;
    let canonical = workspace.canonicalize().ok()?;
    let name = format!(
        "{:016x}.lock",
        ralph_types::user_dirs::fnv1a(canonical.as_os_str().as_encoded_bytes())
    );
    Some(base.join("ralph").join("locks").join(name))
}

/// Whether `source`, an error taking the user's lock, says its directory cannot hold a
/// lock file, as opposed to a lock found there (held by another loop, or a link planted
/// at its name).
fn unusable_directory(source: &io::Error) -> bool {
    matches!(
        source.kind(),
        io::ErrorKind::PermissionDenied
            | io::ErrorKind::ReadOnlyFilesystem
            | io::ErrorKind::StorageFull
            | io::ErrorKind::NotADirectory
            | io::ErrorKind::NotFound
    )
}

/// Takes the user's lock for a workspace, creating its directory; `Ok(None)` when there is
/// no user directory to put it in (the lock under `.ralph/` still holds).
fn lock_user(path: Option<&Path>) -> Result<Option<Flock<File>>, LockError> {
    let Some(path) = path else {
        return Ok(None);
    };
    let io_err = |source| LockError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io_err)?;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags((OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC).bits())
        .open(path)
        .map_err(io_err)?;
    take(file, path).map(Some)
}

/// The user's lock for a workspace, or why it was left out.
pub(super) type UserLock = (Option<Flock<File>>, Option<LockError>);

/// [`lock_user`], leaving the user's lock out (with why) when its directory cannot hold
/// it. The user's lock is only a safety net (the lock under `.ralph/` is the lock): a
/// directory that cannot hold it (a home that is not writable, as `docker run --user`
/// gives, or another user's `XDG_RUNTIME_DIR` kept after `su`) leaves it out rather than
/// refuse; another loop holding it is still an error.
pub(super) fn lock_user_if_usable(path: Option<&Path>) -> Result<UserLock, LockError> {
    match lock_user(path) {
        Ok(lock) => Ok((lock, None)),
        Err(e) if matches!(&e, LockError::Io { source, .. } if unusable_directory(source)) => {
            Ok((None, Some(e)))
        }
        Err(e) => Err(e),
    }
}

/// Locks `file` (at `path`) without waiting and writes this process's pid and host into
/// it; when another holds it, says who.
fn take(file: File, path: &Path) -> Result<Flock<File>, LockError> {
    let io_err = |source| LockError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = file;
    let mut tries = 0;
    let mut lock = loop {
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(lock) => break lock,
            Err((again, Errno::EWOULDBLOCK)) if tries < PROBE_RETRIES => {
                tries += 1;
                file = again;
                std::thread::sleep(PROBE_WAIT);
            }
            Err((mut file, Errno::EWOULDBLOCK)) => {
                let mut text = String::new();
                // A pid and a host name are short: never read a planted huge file whole.
                let _ = (&mut file).take(HOLDER_BYTES).read_to_string(&mut text);
                let holder = LockHolder::parse(&text);
                return Err(LockError::Held {
                    pid: holder.as_ref().map(|h| h.pid),
                    host: holder
                        .and_then(|h| h.host)
                        .filter(|h| Some(h) != this_host().as_ref()),
                    path: path.to_path_buf(),
                });
            }
            Err((_, errno)) => return Err(io_err(io::Error::from(errno))),
        }
    };
    let holder = match this_host() {
        Some(host) => format!("{} {host}\n", std::process::id()),
        None => format!("{}\n", std::process::id()),
    };
    lock.set_len(0).map_err(io_err)?;
    lock.seek(SeekFrom::Start(0)).map_err(io_err)?;
    lock.write_all(holder.as_bytes()).map_err(io_err)?;
    Ok(lock)
}

impl WorkspaceLock {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Why the lock in the user's directory was left out (only the lock under `.ralph/`
    /// holds, which an agent's `rm -rf .ralph` can take away), for a warning.
    pub fn user_lock_skipped(&self) -> Option<&LockError> {
        self.user_skipped.as_ref()
    }
}

/// Why the lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "another ralph loop{}{} is already running in this workspace (it holds `{}`); wait \
         for it to finish or stop it (Ctrl-C in its terminal{}), then try again",
        .pid.map(|p| format!(" (pid {p}")).unwrap_or_default(),
        match (.pid, .host) {
            (Some(_), Some(host)) => format!(" on host {host})"),
            (Some(_), None) => ")".to_owned(),
            (None, _) => String::new(),
        },
        .path.display(),
        match (.pid, .host) {
            (Some(p), None) => format!(", or `kill -INT {p}`"),
            _ => String::new(),
        }
    )]
    Held {
        pid: Option<u32>,
        /// The holder's host, when it is not this one (a volume shared between machines).
        host: Option<String>,
        path: PathBuf,
    },
    #[error("cannot lock `{}`: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
}

/// Whether a loop holds the lock at `path` now; `false` when there is no lock file.
///
/// Asks by taking a shared lock without waiting and letting it go at once: `flock` has no
/// query. A loop starting in that instant sees the lock held, and tries again a few
/// times ([`PROBE_RETRIES`]) before it refuses to start, so that `ralph emit` and
/// `ralph runs` (which asks of every worktree loop) can ask at any time.
pub(super) fn is_held(path: &Path) -> io::Result<bool> {
    // A link or a FIFO planted at the lock's name is not a lock: never follow or block
    // on it.
    let file = match crate::fsafe::open_read(path, crate::fsafe::Links::Refuse) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    match Flock::lock(file, FlockArg::LockSharedNonblock) {
        Ok(_released_on_drop) => Ok(false),
        Err((_, Errno::EWOULDBLOCK)) => Ok(true),
        Err((_, errno)) => Err(io::Error::from(errno)),
    }
}

/// The pid a loop on this host wrote into the lock at `path` (read without following a
/// link, and only its first bytes); `None` without one, or when another host holds it
/// (its pid means nothing here).
pub(super) fn holder_pid(path: &Path) -> Option<u32> {
    read_holder(path)
        .filter(LockHolder::on_this_host)
        .map(|h| h.pid)
}

/// Takes the lock at `path` without waiting, after `user` (the user's lock for the same
/// workspace, see [`user_lock_path`]).
#[cfg(test)]
pub(super) fn lock(path: &Path, user: Option<&Path>) -> Result<WorkspaceLock, LockError> {
    lock_with(path, lock_user_if_usable(user)?)
}

/// Takes the lock at `path` without waiting, the user's lock already taken (or left
/// out, with why) by [`lock_user_if_usable`].
pub(super) fn lock_with(path: &Path, user: UserLock) -> Result<WorkspaceLock, LockError> {
    let (user, user_skipped) = user;
    let io_err = |source| LockError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = open_lock_file(path).map_err(io_err)?;
    Ok(WorkspaceLock {
        _lock: take(file, path)?,
        _user: user,
        user_skipped,
        path: path.to_path_buf(),
    })
}

/// Opens (creating it) the lock file at `path`, never through a link: a planted
/// `loop.lock` link would have ralph truncate its target and write a pid into it.
fn open_lock_file(path: &Path) -> io::Result<File> {
    crate::fsafe::open(
        path,
        crate::fsafe::Access::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false),
        crate::fsafe::Links::Refuse,
    )
}

/// The workspace lock as held by a command about to delete the workspace (`ralph runs
/// rm`); dropping it releases the lock.
#[derive(Debug)]
pub struct RemovalLock {
    _lock: Option<Flock<File>>,
    _user: Option<Flock<File>>,
}

impl super::RalphDir {
    /// Takes the workspace lock for a command that is about to delete the workspace, so
    /// that no loop starts in it meanwhile (a loop takes the same locks, the user's
    /// first), and none is running: [`LockError::Held`] when one is. Unlike
    /// [`super::RalphDir::lock`] it creates nothing in the workspace: the lock under
    /// `.ralph/` is taken only where `.ralph/` is, and where it is not, a loop starting
    /// would still stop at the user's lock.
    pub fn lock_for_removal(&self) -> Result<RemovalLock, LockError> {
        let user = self.root.parent().and_then(user_lock_path);
        let (user, _) = lock_user_if_usable(user.as_deref())?;
        let path = self.root.join(LOCK_FILE);
        let lock = match open_lock_file(&path) {
            Ok(file) => Some(take(file, &path)?),
            // No `.ralph/`: no loop ran here, and one starting meets the user's lock.
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(source) => return Err(LockError::Io { path, source }),
        };
        Ok(RemovalLock {
            _lock: lock,
            _user: user,
        })
    }
}

#[cfg(test)]
#[path = "lock_tests.rs"]
mod tests;
