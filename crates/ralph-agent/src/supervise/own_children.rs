//! The children ralph started itself, told apart from the orphans it adopts.
//!
//! ralph is a child subreaper (see the `tree` module), so its children are of two kinds:
//! the processes it started (agents, gates, hooks, probes, an interactive session), whose
//! exit statuses their own waits collect, and orphans of the trees below them, reparented
//! to ralph when their parent died. An orphan may have cleared its environment (`env -i`),
//! so that no marker says whose it is; that it is a child of ralph that ralph did not
//! start says it: it comes from a tree ralph runs. Once it exits, nobody waits for it but
//! ralph, which must reap it, and must never reap a child it started (that would steal the
//! exit status its own wait is for).
//!
//! Every start records its child here, holding the record's lock from before the fork to
//! the record; a look for adopted orphans holds it from the read of `/proc` to its
//! decisions. So a look never sees a child that was started but not yet recorded. An entry
//! goes when its child was reaped by whoever waits for it, or when a look no longer finds
//! the pid at all (a reaped child, as tokio reaps one it was told to kill on drop).

use std::collections::BTreeSet;
use std::io;
use std::sync::{Mutex, MutexGuard};

static STARTED: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// The pids of the children ralph started and that were not reaped yet, locked: no child
/// is started while the guard is held.
pub(crate) fn started() -> MutexGuard<'static, BTreeSet<i32>> {
    super::lock(&STARTED)
}

/// Starts a child through `start` and records its pid (`pid_of` reads it).
pub(crate) fn start<T>(
    start: impl FnOnce() -> io::Result<T>,
    pid_of: impl FnOnce(&T) -> Option<i32>,
) -> io::Result<T> {
    let mut started = started();
    let child = start()?;
    if let Some(pid) = pid_of(&child) {
        started.insert(pid);
    }
    Ok(child)
}

/// The child `pid` that ralph started was reaped: its pid may be anyone's from now on.
pub(crate) fn reaped(pid: i32) {
    started().remove(&pid);
}

/// Starts `cmd` as ralph starts its children (tests that start processes of their own
/// beside supervised runs: a look must not take them for adopted orphans).
#[cfg(test)]
pub(crate) fn spawn(cmd: &mut std::process::Command) -> io::Result<std::process::Child> {
    start(|| cmd.spawn(), |child| i32::try_from(child.id()).ok())
}
