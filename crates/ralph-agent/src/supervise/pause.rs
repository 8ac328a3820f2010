//! Job control (Ctrl-Z, `fg`, `bg`) for what ralph supervises.
//!
//! Every child runs in a process group (and mostly a session) of its own, so the
//! terminal's SIGTSTP reaches ralph alone: stopped by itself, ralph would leave the agent
//! calling its model unseen, with no deadline applied. So the caller that takes SIGTSTP
//! pauses first ([`StopController::pause`](super::StopController::pause)): every process of
//! a run in progress gets SIGSTOP, and so does any run that starts before the matching
//! [`StopController::resume`](super::StopController::resume), which sends SIGCONT.
//!
//! The runs learn of it through a watch ([`PauseState`]): while paused, no deadline of
//! theirs fires, and on resume every one of them moves on by the time spent paused, so an
//! agent is never stopped for a silence the user imposed. The time adds up in
//! [`PauseState::total`]; the caller takes the pauses after its start off its own clock
//! (`max_runtime`: [`Pauses::paused_since`]), and a run's reported time leaves out those
//! during the run.
//!
//! A run's whole tree is stopped, not only its group: pi and Claude Code start every tool
//! command in a session of its own, so the group alone would leave the build or the test
//! suite the agent started running while ralph says it is paused. The tree is found as the
//! teardown finds it ([`AgentTree`]: the group, the descendants, the adopted orphans that
//! carry the run's marker), and exactly the processes stopped one by one are continued.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use ralph_types::ProcessIdentity;
use tokio::sync::watch;

use super::lock;
use super::signal::{signal_group, signal_pid};
use super::tree::{AgentTree, identity_of};

/// How many times a pause looks for processes of a tree that are not yet stopped. A
/// stopped process starts nothing, so the look ends once a round finds no new one; the
/// bound is for a tree that a process outside it keeps feeding (a second look finds
/// what forked while the first was stopping its parent).
const STOP_ROUNDS: usize = 8;

/// What the runs see of the pauses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PauseState {
    /// Paused now.
    pub(crate) paused: bool,
    /// The time spent paused so far, every pause that ended added up. Only grows.
    pub(crate) total: Duration,
}

/// The trees of the runs in progress and whether they are paused; one per
/// [`StopController`](super::StopController), shared with its requests.
#[derive(Debug)]
pub(crate) struct Pauses {
    board: Mutex<Board>,
    tx: watch::Sender<PauseState>,
}

#[derive(Debug, Default)]
struct Board {
    /// Pauses asked for and not yet resumed (Ctrl-Z and a read from the background can
    /// overlap): the runs go on at the last resume.
    depth: usize,
    since: Option<Instant>,
    /// Every pause that ended, from its start to its end: for the time paused within a
    /// span ([`Pauses::paused_since`]). One per Ctrl-Z (or read from the background), each
    /// a user's doing: a few, never a flood.
    ended: Vec<(Instant, Instant)>,
    runs: Vec<Member>,
    next_id: u64,
}

/// One enrolled run: its tree, and what of it a pause stopped outside its group.
#[derive(Debug)]
struct Member {
    id: u64,
    tree: AgentTree,
    /// The processes stopped one by one, by identity: only these get SIGCONT, and only
    /// while the pid still names the same process.
    stopped: Vec<ProcessIdentity>,
}

impl Member {
    /// SIGSTOP to the group, then to every process of the tree, until a look finds no
    /// process not yet stopped.
    fn stop(&mut self) {
        // A group already gone (ESRCH) has nothing to stop.
        let _ = signal_group(self.tree.pgid(), Some(Signal::SIGSTOP));
        for _ in 0..STOP_ROUNDS {
            self.tree.collect();
            let mut found = false;
            for &pid in self.tree.known() {
                if self.stopped.iter().any(|s| s.pid == pid) {
                    continue;
                }
                // A zombie, or a process gone since the look: nothing to stop.
                let Some(identity) = identity_of(pid) else {
                    continue;
                };
                if signal_pid(pid, Some(Signal::SIGSTOP)).is_ok() {
                    self.stopped.push(identity);
                    found = true;
                }
            }
            if !found {
                break;
            }
        }
    }

    /// SIGCONT to the group and to exactly the processes [`Member::stop`] stopped.
    fn go_on(&mut self) {
        let _ = signal_group(self.tree.pgid(), Some(Signal::SIGCONT));
        for identity in self.stopped.drain(..) {
            // A pid that names another process now is not ours to continue.
            if identity_of(identity.pid) == Some(identity) {
                let _ = signal_pid(identity.pid, Some(Signal::SIGCONT));
            }
        }
    }
}

impl Pauses {
    pub(crate) fn new() -> Arc<Pauses> {
        Arc::new(Pauses {
            board: Mutex::new(Board::default()),
            tx: watch::channel(PauseState::default()).0,
        })
    }

    /// Stops every enrolled run's tree (the first of overlapping pauses); returns how many
    /// runs are paused.
    pub(crate) fn pause(&self, now: Instant) -> usize {
        let mut board = lock(&self.board);
        board.depth += 1;
        if board.depth == 1 {
            board.since = Some(now);
            board.runs.iter_mut().for_each(Member::stop);
            self.tx.send_modify(|state| state.paused = true);
        }
        board.runs.len()
    }

    /// Ends a pause: at the last one, the time paused is added up and the runs go on.
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
        let since = board.since.take().unwrap_or(now);
        let paused_for = now.saturating_duration_since(since);
        board.ended.push((since, now));
        // The runs learn of the time first: a group that goes on and writes at once
        // must find its deadlines already moved.
        self.tx.send_modify(|state| {
            state.paused = false;
            state.total += paused_for;
        });
        board.runs.iter_mut().for_each(Member::go_on);
    }

    /// The time paused after `start` (not counting a pause still going on): a pause that
    /// began before `start` counts from there only.
    pub(crate) fn paused_since(&self, start: Instant) -> Duration {
        lock(&self.board)
            .ended
            .iter()
            .map(|&(since, until)| until.saturating_duration_since(since.max(start)))
            .sum()
    }

    pub(crate) fn watch(&self) -> watch::Receiver<PauseState> {
        self.tx.subscribe()
    }

    /// Enrolls the process tree of a run until the returned guard is dropped; stopped at
    /// once when it starts during a pause.
    pub(crate) fn enroll(self: &Arc<Self>, tree: AgentTree) -> Enrolled {
        let mut board = lock(&self.board);
        let id = board.next_id;
        board.next_id += 1;
        let mut member = Member {
            id,
            tree,
            stopped: Vec::new(),
        };
        if board.depth > 0 {
            member.stop();
        }
        board.runs.push(member);
        Enrolled {
            pauses: Arc::clone(self),
            id,
        }
    }
}

/// A run's tree on the board ([`Pauses::enroll`]).
#[derive(Debug)]
pub(crate) struct Enrolled {
    pauses: Arc<Pauses>,
    id: u64,
}

impl Drop for Enrolled {
    fn drop(&mut self) {
        let mut board = lock(&self.pauses.board);
        let Some(at) = board.runs.iter().position(|m| m.id == self.id) else {
            return;
        };
        let mut member = board.runs.remove(at);
        // Never left stopped: what remains of the tree (ralph's teardown has signalled
        // it) must be able to die of it.
        if board.depth > 0 {
            member.go_on();
        }
    }
}

#[cfg(test)]
#[path = "pause_tests.rs"]
mod tests;
