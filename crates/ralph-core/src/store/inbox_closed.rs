//! The mark a loop leaves in its run's directory once it has read its inbox for the last
//! time: `inbox.closed`, naming the ralph that closed it (`<pid> <host>`, as the lock file
//! does).
//!
//! The workspace lock alone does not tell `ralph emit` that an event will be read: a loop
//! still holds it while it finishes (its summary, its `post.loop.*` hooks), and a new
//! loop takes it before it names its run in `current-run` (it checks its agents first,
//! which can take seconds). In both windows the current run's inbox is read by no one.
//! With this mark, emit can tell them apart: the lock held by the ralph that closed the
//! run is a loop finishing (refuse); held by another, it is a loop starting (wait for it
//! to name its run). `ralph run --continue` removes the mark: the run's inbox is read
//! again from where it was left.
//!
//! The mark alone still leaves a gap: an emit that found no mark could append after the
//! loop's last read (a gate of the last iteration emits after the loop read its inbox),
//! and its event would sit unread. So both sides take the inbox's lock
//! ([`RunDir::lock_inbox`], `inbox.jsonl.lock`): emit holds it from its check to its
//! append, the loop from its last read until the mark is written. Either the emit's line
//! is in the inbox before that read, or emit finds the mark.

use std::io;
use std::path::PathBuf;

use super::lock_holder::{HeldBy, LockHolder, read_holder, this_host};
use super::{Durability, RalphDir, RunDir, replace};
use crate::file_lock::{FileLock, lock_beside, lock_path};

/// The mark's name in a run's directory.
pub const INBOX_CLOSED_FILE: &str = "inbox.closed";

impl RunDir {
    pub fn inbox_closed_path(&self) -> PathBuf {
        self.path.join(INBOX_CLOSED_FILE)
    }

    /// The lock `ralph emit` and the closing loop take around the inbox (see the module's
    /// doc): `inbox.jsonl.lock`.
    pub fn inbox_lock_path(&self) -> PathBuf {
        lock_path(&self.inbox())
    }

    /// Waits for and takes the inbox's lock, creating its file, for at most
    /// [`crate::file_lock::LOCK_WAIT_LIMIT`] (its holders keep it for an instant). The
    /// file is in the workspace: a link, a FIFO or a directory planted at its name is
    /// refused, never followed or waited on. `NotFound` when the run's directory is gone.
    pub fn lock_inbox(&self) -> io::Result<FileLock> {
        lock_beside(&self.inbox())
    }

    /// Marks the inbox as read for the last time by this process.
    pub fn close_inbox(&self) -> io::Result<()> {
        let text = LockHolder::record(HeldBy::Loop, this_host().as_deref());
        replace(
            &self.inbox_closed_path(),
            text.as_bytes(),
            Durability::Atomic,
        )
    }

    /// Takes the mark away: a continued run reads the inbox again.
    pub fn reopen_inbox(&self) -> io::Result<()> {
        match std::fs::remove_file(self.inbox_closed_path()) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// Who closed the inbox; `None` while it is open. A mark that names no one (damaged,
    /// planted) still closes it, closed by no process we know of.
    pub fn inbox_closed_by(&self) -> Option<ClosedBy> {
        let path = self.inbox_closed_path();
        path.symlink_metadata().ok()?;
        Some(ClosedBy(read_holder(&path)))
    }
}

/// The ralph that closed an inbox, when the mark names one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClosedBy(pub Option<LockHolder>);

/// Whether anything will read a run's inbox, as far as the workspace shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InboxListener {
    /// A loop holds the workspace lock and the run's inbox is open.
    Loop,
    /// No loop holds the workspace lock.
    NoLoop,
    /// The loop that holds the lock closed the run's inbox: it is finishing.
    Finishing,
    /// A loop other than the one that closed the run's inbox holds the lock: a new
    /// loop, which has not yet named its run (or reopened this one).
    Starting,
}

impl RalphDir {
    /// Who will read `run`'s inbox, now.
    pub fn inbox_listener(&self, run: &RunDir) -> io::Result<InboxListener> {
        if !self.loop_running()? {
            return Ok(InboxListener::NoLoop);
        }
        let Some(ClosedBy(closer)) = run.inbox_closed_by() else {
            return Ok(InboxListener::Loop);
        };
        let holder = self.lock_holder();
        let same = |c: &LockHolder, h: &LockHolder| c.pid == h.pid && c.host == h.host;
        Ok(match (closer, holder) {
            (Some(c), Some(h)) if same(&c, &h) => InboxListener::Finishing,
            _ => InboxListener::Starting,
        })
    }
}

#[cfg(test)]
#[path = "inbox_closed_tests.rs"]
mod tests;
