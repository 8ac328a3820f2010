//! The workspace lock: one loop per workspace at a time.
//!
//! An exclusive `flock` on `.ralph/loop.lock`, held for the whole run and released by
//! the kernel when the process ends however it ends (no stale lock after a crash). The
//! holder writes its pid into the file so a second loop can say who holds it. The file
//! itself is never deleted: removing a locked file would let a third loop lock a new
//! file with the same name while the first still runs.

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg, OFlag};

use super::lock_holder::{HeldBy, LockHolder, read_from, read_holder, this_host};

/// Name of the lock file under `.ralph/`.
pub const LOCK_FILE: &str = "loop.lock";

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
fn lock_user(path: Option<&Path>, by: HeldBy) -> Result<Option<Flock<File>>, LockError> {
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
    take(file, path, by).map(Some)
}

/// The user's lock for a workspace, or why it was left out.
pub(super) type UserLock = (Option<Flock<File>>, Option<LockError>);

/// [`lock_user`], leaving the user's lock out (with why) when its directory cannot hold
/// it. The user's lock is only a safety net (the lock under `.ralph/` is the lock): a
/// directory that cannot hold it (a home that is not writable, as `docker run --user`
/// gives, or another user's `XDG_RUNTIME_DIR` kept after `su`) leaves it out rather than
/// refuse; another loop holding it is still an error.
pub(super) fn lock_user_if_usable(path: Option<&Path>, by: HeldBy) -> Result<UserLock, LockError> {
    match lock_user(path, by) {
        Ok(lock) => Ok((lock, None)),
        Err(e) if matches!(&e, LockError::Io { source, .. } if unusable_directory(source)) => {
            Ok((None, Some(e)))
        }
        Err(e) => Err(e),
    }
}

/// Locks `file` (at `path`) without waiting and writes this process's pid and host into
/// it, and what holds it (`by`); when another holds it, says who.
fn take(file: File, path: &Path, by: HeldBy) -> Result<Flock<File>, LockError> {
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
            Err((file, Errno::EWOULDBLOCK)) => {
                let holder = read_from(&file);
                return Err(LockError::Held {
                    pid: holder.as_ref().map(|h| h.pid),
                    by: holder.as_ref().map_or(HeldBy::Loop, |h| h.by),
                    host: holder
                        .and_then(|h| h.host)
                        .filter(|h| Some(h) != this_host().as_ref()),
                    path: path.to_path_buf(),
                });
            }
            Err((_, errno)) => return Err(io_err(io::Error::from(errno))),
        }
    };
    let holder = LockHolder::record(by, this_host().as_deref());
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
    #[error("{}", held_message(*.pid, .host.as_deref(), *.by, .path))]
    Held {
        pid: Option<u32>,
        /// What holds it: a loop, or a worktree command at work on the worktree.
        by: HeldBy,
        /// The holder's host, when it is not this one (a volume shared between machines).
        host: Option<String>,
        path: PathBuf,
    },
    #[error("cannot lock `{}`: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
}

/// The refusal for a lock held by `pid` (on `host`, when not this one) for `by`.
fn held_message(pid: Option<u32>, host: Option<&str>, by: HeldBy, path: &Path) -> String {
    let who = match (pid, host) {
        (Some(p), Some(host)) => format!(" (pid {p} on host {host})"),
        (Some(p), None) => format!(" (pid {p})"),
        (None, _) => String::new(),
    };
    let kill = match (pid, host) {
        (Some(p), None) => format!(", or `kill -INT {p}`"),
        _ => String::new(),
    };
    let path = path.display();
    match by.command() {
        None => format!(
            "another ralph loop{who} is already running in this workspace (it holds \
             `{path}`); wait for it to finish or stop it (Ctrl-C in its terminal{kill}), \
             then try again"
        ),
        // No loop runs: a worktree command is changing the files under this workspace.
        Some(command) => format!(
            "`{command}`{who} {} (it holds `{path}`); wait for it to finish{}, or stop it \
             (Ctrl-C in its terminal{kill})",
            by.doing_here(),
            match by {
                HeldBy::Remove => " (the worktree is then gone)",
                _ => " and try again",
            }
        ),
    }
}

/// What holds the lock at `path` now, as its holder wrote it (a loop when it wrote
/// nothing this ralph reads); `None` when nothing does, or there is no lock file.
///
/// Asks by taking a shared lock without waiting and letting it go at once: `flock` has no
/// query. A loop starting in that instant sees the lock held, and tries again a few
/// times ([`PROBE_RETRIES`]) before it refuses to start, so that `ralph emit` and
/// `ralph runs` (which asks of every worktree loop) can ask at any time.
pub(super) fn held_by(path: &Path) -> io::Result<Option<HeldBy>> {
    Ok(holding(path)?.map(|(by, _)| by))
}

/// [`held_by`], with the holder its file names, when it names one.
pub(super) fn holding(path: &Path) -> io::Result<Option<(HeldBy, Option<LockHolder>)>> {
    // A link or a FIFO planted at the lock's name is not a lock: never follow or block
    // on it.
    let file = match crate::fsafe::open_read(path, crate::fsafe::Links::Refuse) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    match Flock::lock(file, FlockArg::LockSharedNonblock) {
        Ok(_released_on_drop) => Ok(None),
        Err((file, Errno::EWOULDBLOCK)) => {
            let holder = read_from(&file);
            Ok(Some((
                holder.as_ref().map_or(HeldBy::Loop, |h| h.by),
                holder,
            )))
        }
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
    lock_with(path, lock_user_if_usable(user, HeldBy::Loop)?)
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
        _lock: take(file, path, HeldBy::Loop)?,
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

/// The workspace lock as held by a command about to change or delete the workspace's
/// files (`ralph runs land`, `ralph runs rm`); dropping it releases the lock.
#[derive(Debug)]
pub struct RemovalLock {
    _lock: Option<Flock<File>>,
    _user: Option<Flock<File>>,
}

impl super::RalphDir {
    /// Takes the workspace lock, creating `.ralph/`; see [`super::RalphDir::ensure_gitignore`].
    ///
    /// The user's lock comes first, before anything is made in the workspace: a command
    /// that holds it while it deletes the workspace ([`super::RalphDir::lock_for_removal`])
    /// must find nothing made there meanwhile. And a workspace that is gone (deleted
    /// since the loop was typed in it) is never made again: the loop would run in an
    /// empty directory. Below the top of a checkout that `ralph runs land` or `rm` holds,
    /// refused as at its top (`checkout_held.rs`), and the `.ralph/` made for it goes.
    pub fn lock(&self) -> Result<WorkspaceLock, LockError> {
        let lock_path = self.root.join(LOCK_FILE);
        let io_err = |source| LockError::Io {
            path: self.root.clone(),
            source,
        };
        let workspace = self.root.parent();
        let user = workspace.and_then(user_lock_path);
        let user = lock_user_if_usable(user.as_deref(), HeldBy::Loop)?;
        let top = workspace.and_then(super::checkout_held::checkout_above);
        if let Some(top) = &top {
            super::checkout_held::refuse_if_held(top)?;
        }
        let fresh = self.root.symlink_metadata().is_err();
        crate::fsafe::create_dir(&self.root).map_err(io_err)?;
        let lock = lock_with(&lock_path, user)?;
        // Again, now that this loop's lock is there for the command to find.
        if let Some(top) = &top
            && let Err(refused) = super::checkout_held::refuse_if_held(top)
        {
            drop(lock);
            if fresh {
                // Best effort: a bare `.ralph/` left behind is only untidy.
                let _ = self.remove_if_bare();
            }
            return Err(refused);
        }
        Ok(lock)
    }

    /// Whether a loop is running in this workspace now (it holds the workspace lock).
    /// `ralph runs land` or `ralph runs rm` holding it is no loop: see
    /// [`super::RalphDir::held_by`].
    pub fn loop_running(&self) -> io::Result<bool> {
        Ok(self.held_by()? == Some(HeldBy::Loop))
    }

    /// What holds the workspace lock now: a loop, or a worktree command at work on the
    /// worktree; `None` when nothing does.
    pub fn held_by(&self) -> io::Result<Option<HeldBy>> {
        // The user's lock first: the agent may have deleted `.ralph/` with its lock. One
        // that cannot be read (a user directory this user cannot use) was never taken:
        // the loop then holds only the one under `.ralph/`.
        if let Some(user) = self.root.parent().and_then(user_lock_path)
            && let Ok(Some(by)) = held_by(&user)
        {
            return Ok(Some(by));
        }
        held_by(&self.root.join(LOCK_FILE))
    }

    /// Who holds (or last held) the workspace lock, as its file says; see
    /// [`LockHolder::on_this_host`] before looking its pid up.
    pub fn lock_holder(&self) -> Option<LockHolder> {
        read_holder(&self.root.join(LOCK_FILE))
    }

    /// Takes the workspace lock for a command that is about to delete the workspace, so
    /// that no loop starts in it meanwhile (a loop takes the same locks, the user's
    /// first), and none is running: [`LockError::Held`] when one is. Unlike
    /// [`super::RalphDir::lock`] it creates nothing in the workspace: the lock under
    /// `.ralph/` is taken only where `.ralph/` is, and where it is not, a loop starting
    /// would still stop at the user's lock. Both locks name `by` as their holder, so
    /// that `ralph runs` and a loop refused meanwhile say what is at work.
    pub fn lock_for_removal(&self, by: HeldBy) -> Result<RemovalLock, LockError> {
        let user = self.root.parent().and_then(user_lock_path);
        let (user, _) = lock_user_if_usable(user.as_deref(), by)?;
        let path = self.root.join(LOCK_FILE);
        let lock = match open_lock_file(&path) {
            Ok(file) => Some(take(file, &path, by)?),
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
