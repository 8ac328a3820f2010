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
//! A pid alone does not name a process for long: a new loop can get the pid of the ralph
//! that closed the last run, and would be taken for that ralph finishing. So the mark
//! also says when its ralph started (`started <ticks>`, the clock ticks since boot that
//! `/proc/<pid>/stat` gives); a holder with the same pid that started at another time is
//! another process. The caller reads `/proc` (this crate starts and inspects no
//! processes) and passes the times in; where they are not known, the pid decides.
//!
//! The mark alone still leaves a gap: an emit that found no mark could append after the
//! loop's last read (a gate of the last iteration emits after the loop read its inbox),
//! and its event would sit unread. So both sides take the inbox's lock
//! ([`RunDir::lock_inbox`], `inbox.jsonl.lock`): emit holds it from its check to its
//! append, the loop from its last read until the mark is written. Either the emit's line
//! is in the inbox before that read, or emit finds the mark.

use std::io::{self, Read};
use std::path::PathBuf;

use super::lock_holder::{HeldBy, LockHolder, this_host};
use super::{Durability, RalphDir, RunDir, replace};
use crate::file_lock::{FileLock, lock_beside, lock_path};

/// The mark's name in a run's directory.
pub const INBOX_CLOSED_FILE: &str = "inbox.closed";
/// The most of a mark read: a pid, a host name (at most 64 bytes), the start time and
/// their separators fit with room; the file is in the workspace, and may be anything.
const MARK_BYTES: u64 = 192;
/// The word before the closer's start time on the mark's second line.
const STARTED_WORD: &str = "started";

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

    /// Marks the inbox as read for the last time by this process, which started at
    /// `started` (see the module's doc; `None` where the system does not say).
    pub fn close_inbox(&self, started: Option<u64>) -> io::Result<()> {
        let mut text = LockHolder::record(HeldBy::Loop, this_host().as_deref());
        if let Some(ticks) = started {
            text.push_str(&format!("{STARTED_WORD} {ticks}\n"));
        }
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
        let mut text = Vec::new();
        if let Ok(file) = crate::fsafe::open_read(&path, crate::fsafe::Links::Refuse) {
            // Unreadable, it names no one: still a mark.
            let _ = file.take(MARK_BYTES).read_to_end(&mut text);
        }
        Some(ClosedBy::parse(&String::from_utf8_lossy(&text)))
    }
}

/// The ralph that closed an inbox, as the mark names it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClosedBy {
    /// Its pid and host; `None` when the mark names no one (damaged, planted).
    pub holder: Option<LockHolder>,
    /// When it started (clock ticks since boot), when the mark says.
    pub started: Option<u64>,
}

impl ClosedBy {
    /// Reads a mark's text: the closer's line as in a lock file, then `started <ticks>`.
    fn parse(text: &str) -> ClosedBy {
        let started = text.lines().find_map(|line| {
            let mut words = line.split_whitespace();
            (words.next() == Some(STARTED_WORD)).then(|| words.next()?.parse().ok())?
        });
        ClosedBy {
            holder: LockHolder::parse(text),
            started,
        }
    }
}

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
    /// Who will read `run`'s inbox, now. `started_at(pid)` says when the process with
    /// that pid on this host started (`None` when the system does not say).
    pub fn inbox_listener(
        &self,
        run: &RunDir,
        started_at: impl Fn(u32) -> Option<u64>,
    ) -> io::Result<InboxListener> {
        if !self.loop_running()? {
            return Ok(InboxListener::NoLoop);
        }
        let Some(closer) = run.inbox_closed_by() else {
            return Ok(InboxListener::Loop);
        };
        let holder = self.lock_holder();
        let same = |c: &LockHolder, h: &LockHolder| {
            let same_pid = c.pid == h.pid && c.host == h.host;
            // The pid taken again by a process that started after the closer.
            let reused = || match (closer.started, h.on_this_host()) {
                (Some(closed), true) => started_at(h.pid).is_some_and(|now| now != closed),
                _ => false,
            };
            same_pid && !reused()
        };
        Ok(match (&closer.holder, holder) {
            (Some(c), Some(h)) if same(c, &h) => InboxListener::Finishing,
            _ => InboxListener::Starting,
        })
    }
}

#[cfg(test)]
#[path = "inbox_closed_tests.rs"]
mod tests;
