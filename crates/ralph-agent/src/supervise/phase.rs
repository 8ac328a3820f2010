//! The phase of one supervised run and every transition between phases, without I/O.
//!
//! The run loop feeds the [`Machine`] what happened ([`Event`]: output and what the sink
//! said of it, a stream closed, the child reaped, a stop request, a timer) and when, and
//! carries out what it answers ([`Action`]: SIGTERM or SIGKILL to the tree, stop waiting).
//! The one deadline the loop sleeps until is read from the phase ([`Machine::deadline`]).
//! Nothing here reads a clock or touches a process, so every transition is tested with
//! made-up instants (see `phase_tests.rs`).
//!
//! Transitions (and the action each one asks for):
//! - Running → Aborting: a deadline, a graceful stop request or the sink's `Stop`, when the
//!   agent's live stdin is open and its backend has an abort command (write it);
//! - Running → Terminating: the same without an abort command, or the exit grace after the
//!   agent's terminal event ran out (SIGTERM);
//! - Aborting → Terminating: [`ABORT_GRACE`] ran out (SIGTERM);
//! - Running, Aborting or Terminating → Killed: an immediate stop request, or the kill
//!   grace ran out (SIGKILL);
//! - Killed → GaveUp: [`REAP_TIMEOUT`] passed (leave the loop);
//! - Running, Aborting, Terminating or Killed → Exited: the agent was reaped;
//! - Exited → Finished: both streams closed, or [`POST_EXIT_DRAIN`] passed (leave the
//!   loop).
//!
//! While the run is paused (Ctrl-Z, see the `pause` module) no deadline fires; when it
//! resumes, every instant the phase and the deadline clock wait for moves on by the time
//! paused.
//!
//! The live stdin (if any) is closed when the sink first reports the agent's terminal
//! event (`CloseStdin`: pi and Claude Code wait for the next command until their input
//! ends); the run loop also closes it before any signal.

use std::time::{Duration, Instant};

use super::deadlines::{DeadlineClock, Expiry, after};
use super::outcome::{ChildStatus, Termination};
use super::stop::StopLevel;
use super::teardown::REAP_TIMEOUT;
use super::{Flow, RunDeadlines};

/// After the agent exited, how long ralph keeps reading output that its leftover
/// processes hold open before it stops them.
pub const POST_EXIT_DRAIN: Duration = Duration::from_millis(500);

/// After ralph wrote the agent's abort command, how long the agent has to end its turn
/// and exit (once it reports the end, its input is closed and it exits on end of file)
/// before SIGTERM. pi 0.73.1 and Claude Code 2.1.332 end an aborted tool call and report
/// it within 0.1 s of the command, and exit within 0.1 s of end of file, against the
/// mock; the rest is room for a loaded machine.
pub const ABORT_GRACE: Duration = Duration::from_secs(3);

/// After the sink said `Settling` (a failed turn the agent may retry by itself), how long
/// the agent's silence takes to mean its turn is over. pi 0.73.1 announces a retry
/// (`auto_retry_start`) within 1 ms of the failed `agent_end`; the rest is room for a
/// loaded machine.
pub const RETRY_SETTLE: Duration = Duration::from_secs(2);

/// Where a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// The agent runs; the deadline clock governs.
    Running,
    /// The abort command was written; SIGTERM follows at `term_at` unless the agent exits
    /// first.
    Aborting { term_at: Instant },
    /// SIGTERM went to the tree at `term_sent`; SIGKILL follows at `kill_at`.
    Terminating {
        term_sent: Instant,
        kill_at: Instant,
    },
    /// SIGKILL went to the tree at `killed_at` (after a SIGTERM at `term_sent`, if any);
    /// the agent has [`REAP_TIMEOUT`] to die.
    Killed {
        term_sent: Option<Instant>,
        killed_at: Instant,
    },
    /// The agent was reaped; its output is read until it closes or [`POST_EXIT_DRAIN`]
    /// has passed (leftover processes may hold it open).
    Exited(Exit),
    /// Nothing more to wait for: the agent was reaped and its output closed or the drain
    /// timed out. What it left behind is the teardown's business.
    Finished(Exit),
    /// SIGKILL did not end the agent within [`REAP_TIMEOUT`] (uninterruptible sleep).
    GaveUp,
}

/// How the agent was reaped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Exit {
    /// `None` when its status could not be collected.
    pub(crate) status: Option<ChildStatus>,
    pub(crate) at: Instant,
    /// When SIGTERM went to the tree, if it did: the teardown's kill grace counts from
    /// there.
    pub(crate) term_sent: Option<Instant>,
}

/// What happened, as the run loop saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// A chunk of stdout arrived and the sink answered `Flow`.
    Stdout(Flow),
    /// Stdout reached end of file (or failed).
    StdoutClosed,
    /// Stderr reached end of file (or failed).
    StderrClosed,
    /// The agent itself was reaped (`None`: its status was lost).
    ChildExited(Option<ChildStatus>),
    /// The caller's stop request changed to this level.
    Stop(StopLevel),
    /// The caller paused the run (Ctrl-Z): its group got SIGSTOP.
    Paused,
    /// The run goes on after this long paused (or after pauses the loop did not see
    /// begin, ralph itself being stopped meanwhile).
    Resumed(Duration),
    /// The instant [`Machine::deadline`] named was reached.
    Timer,
}

/// What the run loop must do now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// Nothing; keep waiting for the next event.
    Wait,
    /// Write the backend's abort command to the live stdin (and accept nothing more).
    Abort,
    /// Close the live stdin once what was queued is written.
    CloseStdin,
    /// Send SIGTERM to the agent's tree.
    Terminate,
    /// Send SIGKILL to the agent's tree.
    Kill,
    /// The agent was reaped and its output is drained (or the drain timed out): leave the
    /// loop and tear down.
    StopWaiting,
    /// The agent survived SIGKILL: leave the loop without a teardown.
    GiveUp,
}

/// The supervisor's decisions for one run.
#[derive(Clone, Debug)]
pub(crate) struct Machine {
    clock: DeadlineClock,
    kill_grace: Duration,
    phase: Phase,
    /// Why ralph stopped the agent; the first reason wins.
    reason: Option<Termination>,
    /// SIGTERM or SIGKILL went to the agent: it did not end on its own.
    signalled: bool,
    stdout_open: bool,
    stderr_open: bool,
    /// The live stdin is open (`None`: there is none, or it was closed).
    live: Option<Live>,
    /// When the agent's silence after a `Settling` answer ends its turn.
    settle_at: Option<Instant>,
    /// The run is paused (Ctrl-Z): nothing is timed.
    paused: bool,
}

/// What the machine knows of an open live stdin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Live {
    /// Whether the backend has an abort command to write before the signals.
    can_abort: bool,
}

impl Machine {
    /// A run spawned at `started`; `has_stderr` is false on a PTY (stderr shares stdout).
    pub(crate) fn new(deadlines: RunDeadlines, started: Instant, has_stderr: bool) -> Machine {
        Machine {
            clock: DeadlineClock::new(deadlines, started),
            kill_grace: deadlines.kill_grace,
            phase: Phase::Running,
            reason: None,
            signalled: false,
            stdout_open: true,
            stderr_open: has_stderr,
            live: None,
            settle_at: None,
            paused: false,
        }
    }

    /// The agent's stdin stays open for commands; `can_abort` when its backend has an
    /// abort command to try before the signals.
    pub(crate) fn with_live_stdin(mut self, can_abort: bool) -> Machine {
        self.live = Some(Live { can_abort });
        self
    }

    #[cfg(test)]
    pub(crate) fn phase(&self) -> Phase {
        self.phase
    }

    pub(crate) fn kill_grace(&self) -> Duration {
        self.kill_grace
    }

    pub(crate) fn stdout_open(&self) -> bool {
        self.stdout_open
    }

    pub(crate) fn stderr_open(&self) -> bool {
        self.stderr_open
    }

    /// True until the agent was reaped (or given up on): its `wait` is still pending.
    pub(crate) fn child_running(&self) -> bool {
        matches!(
            self.phase,
            Phase::Running
                | Phase::Aborting { .. }
                | Phase::Terminating { .. }
                | Phase::Killed { .. }
        )
    }

    /// True while a stop request can still change anything (not once SIGKILL was sent).
    pub(crate) fn accepts_stop(&self) -> bool {
        matches!(
            self.phase,
            Phase::Running | Phase::Aborting { .. } | Phase::Terminating { .. }
        )
    }

    /// True while the live stdin is open (never for the other kinds of stdin).
    #[cfg(test)]
    pub(crate) fn stdin_live(&self) -> bool {
        self.live.is_some()
    }

    /// The live stdin closed by itself (its writer failed: the agent closed its end).
    pub(crate) fn stdin_closed(&mut self) {
        self.live = None;
    }

    /// The abort command could not be queued (the holder of the input had closed it):
    /// SIGTERM now, as without one.
    pub(crate) fn abort_refused(&mut self, now: Instant) -> Action {
        self.live = None;
        match self.phase {
            Phase::Aborting { .. } => self.terminate(now),
            _ => Action::Wait,
        }
    }

    /// How the agent was reaped, once it was.
    pub(crate) fn exit(&self) -> Option<Exit> {
        match self.phase {
            Phase::Exited(exit) | Phase::Finished(exit) => Some(exit),
            Phase::Running
            | Phase::Aborting { .. }
            | Phase::Terminating { .. }
            | Phase::Killed { .. }
            | Phase::GaveUp => None,
        }
    }

    /// Whether ralph sent the agent SIGTERM or SIGKILL.
    pub(crate) fn signalled(&self) -> bool {
        self.signalled
    }

    /// The time from the start to the first stdout byte, pauses (Ctrl-Z) left out.
    pub(crate) fn time_to_first_byte(&self) -> Option<Duration> {
        self.clock.time_to_first_byte()
    }

    /// The next instant something must happen in this phase; `None` when only an event
    /// can move the run on.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        if self.paused {
            return None;
        }
        match self.phase {
            Phase::Running => match (self.clock.next(), self.settle_at) {
                (Some((at, _)), Some(settle)) => Some(at.min(settle)),
                (next, settle) => next.map(|(at, _)| at).or(settle),
            },
            Phase::Aborting { term_at, .. } => Some(term_at),
            Phase::Terminating { kill_at, .. } => Some(kill_at),
            Phase::Killed { killed_at, .. } => Some(killed_at + REAP_TIMEOUT),
            Phase::Exited(exit) => Some(exit.at + POST_EXIT_DRAIN),
            Phase::Finished(_) | Phase::GaveUp => None,
        }
    }

    /// Every transition: `event` happened at `now`.
    pub(crate) fn on(&mut self, event: Event, now: Instant) -> Action {
        match event {
            Event::Stdout(flow) => self.on_stdout(flow, now),
            Event::StdoutClosed => {
                self.stdout_open = false;
                self.finish_if_drained()
            }
            Event::StderrClosed => {
                self.stderr_open = false;
                self.finish_if_drained()
            }
            Event::ChildExited(status) => self.on_exit(status, now),
            Event::Stop(StopLevel::None) => Action::Wait,
            Event::Stop(StopLevel::Graceful) => self.stop(Termination::Interrupted, false, now),
            Event::Stop(StopLevel::Immediate) => self.stop(Termination::Interrupted, true, now),
            Event::Paused => {
                self.paused = true;
                Action::Wait
            }
            Event::Resumed(paused) => {
                self.paused = false;
                self.shift(paused);
                Action::Wait
            }
            Event::Timer => self.on_timer(now),
        }
    }

    /// Moves every instant this run waits for on by `paused`.
    fn shift(&mut self, paused: Duration) {
        self.clock.shift(paused);
        self.settle_at = self.settle_at.map(|at| after(at, paused));
        self.phase = match self.phase {
            Phase::Aborting { term_at } => Phase::Aborting {
                term_at: after(term_at, paused),
            },
            Phase::Terminating { term_sent, kill_at } => Phase::Terminating {
                term_sent: after(term_sent, paused),
                kill_at: after(kill_at, paused),
            },
            Phase::Killed {
                term_sent,
                killed_at,
            } => Phase::Killed {
                term_sent: term_sent.map(|at| after(at, paused)),
                killed_at: after(killed_at, paused),
            },
            Phase::Exited(exit) => Phase::Exited(Exit {
                at: after(exit.at, paused),
                term_sent: exit.term_sent.map(|at| after(at, paused)),
                ..exit
            }),
            phase @ (Phase::Running | Phase::Finished(_) | Phase::GaveUp) => phase,
        };
    }

    /// How the run ended: ralph's reason for stopping it if it had one, else the agent's
    /// own exit.
    pub(crate) fn termination(&self) -> Termination {
        match (&self.reason, self.exit().and_then(|e| e.status)) {
            (Some(reason), _) => reason.clone(),
            (None, Some(ChildStatus::Code(code))) => Termination::Exited { code },
            (None, Some(ChildStatus::Signal(signal))) => Termination::Signaled { signal },
            (None, None) => Termination::StatusLost,
        }
    }

    /// Output counts as activity in every phase (for the first-byte time). A terminal
    /// event or a stop asked for once ralph is already stopping the agent, or after it
    /// exited, changes nothing: no later phase reads the clock, and [`Machine::stop`]
    /// keeps the first reason.
    fn on_stdout(&mut self, flow: Flow, now: Instant) -> Action {
        self.clock.on_output(now);
        match flow {
            Flow::Continue => {
                self.settle_at = None;
                Action::Wait
            }
            Flow::Settling => {
                if self.live.is_some() && self.phase == Phase::Running {
                    self.settle_at.get_or_insert(now + RETRY_SETTLE);
                }
                Action::Wait
            }
            Flow::Quiet(wait) => {
                self.settle_at = None;
                self.clock.quiet_for(now, wait);
                Action::Wait
            }
            Flow::Finished => self.finished(now),
            Flow::Stop => self.stop(Termination::StoppedByCaller, false, now),
            Flow::FinishedAfterStop => {
                self.keep_reason(Termination::StoppedByCaller);
                self.finished(now)
            }
        }
    }

    /// The agent's turn is over: the exit grace starts, and its live stdin closes (pi and
    /// Claude Code wait for the next command until their input ends; also while aborting).
    fn finished(&mut self, now: Instant) -> Action {
        self.settle_at = None;
        self.clock.on_finished(now);
        match self.live.take() {
            Some(_) => Action::CloseStdin,
            None => Action::Wait,
        }
    }

    fn on_exit(&mut self, status: Option<ChildStatus>, now: Instant) -> Action {
        let term_sent = match self.phase {
            Phase::Running | Phase::Aborting { .. } => None,
            Phase::Terminating { term_sent, .. } => Some(term_sent),
            Phase::Killed { term_sent, .. } => term_sent,
            // Reaped once; after giving up the loop no longer waits.
            Phase::Exited(_) | Phase::Finished(_) | Phase::GaveUp => return Action::Wait,
        };
        self.phase = Phase::Exited(Exit {
            status,
            at: now,
            term_sent,
        });
        self.finish_if_drained()
    }

    /// Leaves the loop once the agent was reaped and both its streams closed.
    fn finish_if_drained(&mut self) -> Action {
        match self.phase {
            Phase::Exited(exit) if !self.stdout_open && !self.stderr_open => {
                self.phase = Phase::Finished(exit);
                Action::StopWaiting
            }
            _ => Action::Wait,
        }
    }

    fn on_timer(&mut self, now: Instant) -> Action {
        if self.deadline().is_none_or(|at| now < at) {
            return Action::Wait;
        }
        match self.phase {
            Phase::Running if self.settle_at.is_some_and(|at| at <= now) => self.finished(now),
            Phase::Running => {
                let Some((_, expiry)) = self.clock.next() else {
                    return Action::Wait;
                };
                let reason = match expiry {
                    Expiry::Startup => Termination::StartupTimeout,
                    Expiry::Idle => Termination::IdleTimeout,
                    Expiry::Wall => Termination::WallClockTimeout,
                    Expiry::ExitGrace => Termination::StoppedAfterFinish,
                };
                self.stop(reason, false, now)
            }
            Phase::Aborting { .. } => self.terminate(now),
            Phase::Terminating { .. } => self.kill(now),
            Phase::Killed { .. } => {
                self.phase = Phase::GaveUp;
                Action::GiveUp
            }
            Phase::Exited(exit) => {
                // Leftovers hold the pipes open: stop waiting, the teardown stops them.
                self.phase = Phase::Finished(exit);
                Action::StopWaiting
            }
            Phase::Finished(_) | Phase::GaveUp => Action::Wait,
        }
    }

    /// Records why the agent is being stopped (the first reason wins) and starts stopping
    /// it: the abort command when its live stdin is open and has one, then after
    /// [`ABORT_GRACE`] SIGTERM, then after the kill grace SIGKILL; or SIGKILL at once when
    /// `immediate`. Only while it runs and SIGKILL has not been sent.
    fn stop(&mut self, reason: Termination, immediate: bool, now: Instant) -> Action {
        if !self.keep_reason(reason) {
            return Action::Wait;
        }
        if immediate {
            return self.kill(now);
        }
        match (self.phase, self.live) {
            (Phase::Running, Some(Live { can_abort: true })) => {
                self.phase = Phase::Aborting {
                    term_at: now + ABORT_GRACE,
                };
                Action::Abort
            }
            (Phase::Running, _) => self.terminate(now),
            _ => Action::Wait,
        }
    }

    /// Records `reason` for stopping the agent unless one was given first; false (and
    /// nothing recorded) once a stop no longer applies: after SIGKILL or the exit.
    fn keep_reason(&mut self, reason: Termination) -> bool {
        if !self.accepts_stop() {
            return false;
        }
        self.reason.get_or_insert(reason);
        true
    }

    fn terminate(&mut self, now: Instant) -> Action {
        self.live = None;
        self.signalled = true;
        self.phase = Phase::Terminating {
            term_sent: now,
            kill_at: now + self.kill_grace,
        };
        Action::Terminate
    }

    fn kill(&mut self, now: Instant) -> Action {
        self.live = None;
        let term_sent = match self.phase {
            Phase::Running | Phase::Aborting { .. } => None,
            Phase::Terminating { term_sent, .. } => Some(term_sent),
            Phase::Killed { .. } | Phase::Exited(_) | Phase::Finished(_) | Phase::GaveUp => {
                return Action::Wait;
            }
        };
        self.signalled = true;
        self.phase = Phase::Killed {
            term_sent,
            killed_at: now,
        };
        Action::Kill
    }
}

#[cfg(test)]
#[path = "phase_tests.rs"]
mod tests;
