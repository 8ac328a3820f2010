//! Job control (Ctrl-Z, `fg`, `bg`) for what ralph supervises.
//!
//! Every child runs in a process group (and mostly a session) of its own, so the
//! terminal's SIGTSTP reaches ralph alone: stopped by itself, ralph would leave the agent
//! calling its model unseen, with no deadline applied. So the caller that takes SIGTSTP
//! pauses first ([`StopController::pause`](super::StopController::pause)): every group of
//! a run in progress gets SIGSTOP, and so does any group that starts before the matching
//! [`StopController::resume`](super::StopController::resume), which sends SIGCONT.
//!
//! The runs learn of it through a watch ([`PauseState`]): while paused, no deadline of
//! theirs fires, and on resume every one of them moves on by the time spent paused, so an
//! agent is never stopped for a silence the user imposed. The time adds up in
//! [`PauseState::total`], which the caller also takes off its own clock (`max_runtime`).
//!
//! Only each run's process group is stopped: a descendant that left it (`setsid`) goes on
//! running, as it would after a Ctrl-Z in a shell.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use tokio::sync::watch;

use super::lock;
use super::signal::signal_group;

/// What the runs see of the pauses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PauseState {
    /// Paused now.
    pub(crate) paused: bool,
    /// The time spent paused so far, every pause that ended added up. Only grows.
    pub(crate) total: Duration,
}

/// The groups of the runs in progress and whether they are paused; one per
/// [`StopController`](super::StopController), shared with its requests.
#[derive(Debug)]
pub(crate) struct Pauses {
    board: Mutex<Board>,
    tx: watch::Sender<PauseState>,
}

#[derive(Debug, Default)]
struct Board {
    /// Pauses asked for and not yet resumed (Ctrl-Z and a read from the background can
    /// overlap): the groups go on at the last resume.
    depth: usize,
    since: Option<Instant>,
    groups: Vec<(u64, i32)>,
    next_id: u64,
}

impl Pauses {
    pub(crate) fn new() -> Arc<Pauses> {
        Arc::new(Pauses {
            board: Mutex::new(Board::default()),
            tx: watch::channel(PauseState::default()).0,
        })
    }

    /// Stops every enrolled group (the first of overlapping pauses); returns how many
    /// runs are paused.
    pub(crate) fn pause(&self, now: Instant) -> usize {
        let mut board = lock(&self.board);
        board.depth += 1;
        if board.depth == 1 {
            board.since = Some(now);
            signal_all(&board.groups, Signal::SIGSTOP);
            self.tx.send_modify(|state| state.paused = true);
        }
        board.groups.len()
    }

    /// Ends a pause: at the last one, the time paused is added up and the groups go on.
    /// A resume without a pause does nothing.
    pub(crate) fn resume(&self, now: Instant) {
        let mut board = lock(&self.board);
        if board.depth == 0 {
            return;
        }
        board.depth -= 1;
        if board.depth > 0 {
            return;
        }
        let paused_for = board
            .since
            .take()
            .map_or(Duration::ZERO, |since| now.saturating_duration_since(since));
        // The runs learn of the time first: a group that goes on and writes at once
        // must find its deadlines already moved.
        self.tx.send_modify(|state| {
            state.paused = false;
            state.total += paused_for;
        });
        signal_all(&board.groups, Signal::SIGCONT);
    }

    /// The time spent paused so far (not counting a pause still going on).
    pub(crate) fn total(&self) -> Duration {
        self.tx.borrow().total
    }

    pub(crate) fn watch(&self) -> watch::Receiver<PauseState> {
        self.tx.subscribe()
    }

    /// Enrolls the process group `pgid` of a run until the returned guard is dropped;
    /// stopped at once when it starts during a pause.
    pub(crate) fn enroll(self: &Arc<Self>, pgid: i32) -> Enrolled {
        let mut board = lock(&self.board);
        let id = board.next_id;
        board.next_id += 1;
        board.groups.push((id, pgid));
        if board.depth > 0 {
            signal_all(&[(id, pgid)], Signal::SIGSTOP);
        }
        Enrolled {
            pauses: Arc::clone(self),
            id,
        }
    }
}

/// A run's group on the board ([`Pauses::enroll`]).
#[derive(Debug)]
pub(crate) struct Enrolled {
    pauses: Arc<Pauses>,
    id: u64,
}

impl Drop for Enrolled {
    fn drop(&mut self) {
        let mut board = lock(&self.pauses.board);
        let Some(at) = board.groups.iter().position(|(id, _)| *id == self.id) else {
            return;
        };
        let (_, pgid) = board.groups.remove(at);
        // Never left stopped: what remains of the group (ralph's teardown has signalled
        // it) must be able to die of it.
        if board.depth > 0 {
            signal_all(&[(self.id, pgid)], Signal::SIGCONT);
        }
    }
}

fn signal_all(groups: &[(u64, i32)], signal: Signal) {
    for &(_, pgid) in groups {
        // A group already gone (ESRCH) has nothing to stop.
        let _ = signal_group(pgid, Some(signal));
    }
}

#[cfg(test)]
#[path = "pause_tests.rs"]
mod tests;
