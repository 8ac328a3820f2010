//! Stop requests from the caller (Ctrl-C, SIGTERM to ralph, a UI button).
//!
//! The CLI installs the signal handler and calls [`StopController::interrupt`] on each
//! Ctrl-C: the first asks for a graceful stop (SIGTERM, kill grace, SIGKILL), a second one
//! within [`DOUBLE_INTERRUPT_WINDOW`] asks for an immediate SIGKILL. Requests are sticky:
//! once made they hold for every later run, so a loop between iterations sees them too.
//! The same controller pauses and resumes the runs under its requests for Ctrl-Z and `fg`
//! ([`StopController::pause`], the `pause` module).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::lock;
use super::pause::Pauses;

/// A second interrupt this soon after the first escalates to an immediate kill.
pub const DOUBLE_INTERRUPT_WINDOW: Duration = Duration::from_secs(2);

/// How urgently the caller wants the agent stopped. Ordered: a request never goes down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StopLevel {
    None,
    /// SIGTERM to the agent's processes, kill grace, then SIGKILL.
    Graceful,
    /// SIGKILL now.
    Immediate,
}

/// The sending side, owned by whoever handles Ctrl-C. Cheap to clone.
#[derive(Clone, Debug)]
pub struct StopController {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    tx: watch::Sender<StopLevel>,
    first_interrupt: Mutex<Option<Instant>>,
    /// What a stop would stop now ([`StopController::running`]).
    running: Mutex<Option<Running>>,
    /// The groups of the runs under these requests, for Ctrl-Z ([`StopController::pause`]).
    pauses: Arc<Pauses>,
}

/// What the caller runs under its stop requests at a moment: what a Ctrl-C then stops,
/// for the message that says so. Between them (a wait, the loop's own work) nothing runs,
/// and a stop only ends the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Running {
    Agent,
    Gate,
    Hook,
}

/// Marks something as running until dropped ([`StopController::running`]).
#[derive(Debug)]
#[must_use = "it marks the run only while it is held"]
pub struct RunningGuard {
    inner: Arc<Inner>,
    before: Option<Running>,
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        *lock(&self.inner.running) = self.before;
    }
}

/// The receiving side, handed to [`run`](crate::supervise::run). Cheap to clone.
#[derive(Clone, Debug)]
pub struct StopRequests {
    rx: watch::Receiver<StopLevel>,
    pauses: Arc<Pauses>,
}

impl StopController {
    pub fn new() -> (StopController, StopRequests) {
        let (tx, rx) = watch::channel(StopLevel::None);
        let pauses = Pauses::new();
        let inner = Inner {
            tx,
            first_interrupt: Mutex::new(None),
            running: Mutex::new(None),
            pauses: Arc::clone(&pauses),
        };
        (
            StopController {
                inner: Arc::new(inner),
            },
            StopRequests { rx, pauses },
        )
    }

    /// Raises the request to `level` (never lowers it).
    pub fn request(&self, level: StopLevel) {
        self.inner.tx.send_if_modified(|current| {
            let raise = level > *current;
            if raise {
                *current = level;
            }
            raise
        });
    }

    /// One Ctrl-C at `now`: graceful the first time, immediate when it follows another
    /// within [`DOUBLE_INTERRUPT_WINDOW`]. Returns the level now in force.
    pub fn interrupt(&self, now: Instant) -> StopLevel {
        self.interrupt_stopping(now).0
    }

    /// [`StopController::interrupt`], also returning what ran when the request was raised:
    /// what it stops, for the message that says so. Read in the same step, because the
    /// loop can reap a quick agent and drop its [`RunningGuard`] before a later
    /// [`StopController::what_runs`] would look.
    pub fn interrupt_stopping(&self, now: Instant) -> (StopLevel, Option<Running>) {
        // Held across the request: no guard is taken or dropped in between.
        let running = lock(&self.inner.running);
        let mut first = lock(&self.inner.first_interrupt);
        let level = match *first {
            Some(at) if now.saturating_duration_since(at) <= DOUBLE_INTERRUPT_WINDOW => {
                StopLevel::Immediate
            }
            _ => {
                *first = Some(now);
                StopLevel::Graceful
            }
        };
        drop(first);
        self.request(level);
        (self.current(), *running)
    }

    pub fn current(&self) -> StopLevel {
        *self.inner.tx.borrow()
    }

    /// Marks `what` as running until the guard is dropped (then what ran before it, if
    /// anything, is running again).
    pub fn running(&self, what: Running) -> RunningGuard {
        let before = lock(&self.inner.running).replace(what);
        RunningGuard {
            inner: Arc::clone(&self.inner),
            before,
        }
    }

    /// What runs now, as marked by [`StopController::running`].
    pub fn what_runs(&self) -> Option<Running> {
        *lock(&self.inner.running)
    }

    /// A receiver for another run.
    pub fn requests(&self) -> StopRequests {
        StopRequests {
            rx: self.inner.tx.subscribe(),
            pauses: Arc::clone(&self.inner.pauses),
        }
    }

    /// Ctrl-Z at `now`: SIGSTOP to every process of every run under these requests (its
    /// group and the descendants that left it; and of any run that starts before
    /// [`StopController::resume`]), and no deadline of
    /// theirs fires meanwhile. Pauses nest: the runs go on at the last resume. Returns how
    /// many runs are paused.
    pub fn pause(&self, now: Instant) -> usize {
        self.inner.pauses.pause(now)
    }

    /// `fg` or `bg` at `now`: the runs' deadlines move on by the time paused, then what
    /// the pause stopped gets SIGCONT.
    pub fn resume(&self, now: Instant) {
        self.inner.pauses.resume(now);
    }

    /// The time spent paused after `start`, every ended pause added up (a pause that
    /// began before `start` counts from there only): for a clock that must not count it
    /// (`max_runtime`).
    pub fn paused_since(&self, start: Instant) -> Duration {
        self.inner.pauses.paused_since(start)
    }
}

impl StopRequests {
    /// Requests that never fire (no controller).
    pub fn never() -> StopRequests {
        let (_tx, rx) = watch::channel(StopLevel::None);
        StopRequests {
            rx,
            pauses: Pauses::new(),
        }
    }

    /// Where a run enrolls its process tree for Ctrl-Z and learns of the pauses.
    pub(crate) fn pauses(&self) -> &Arc<Pauses> {
        &self.pauses
    }

    pub fn current(&self) -> StopLevel {
        *self.rx.borrow()
    }

    /// Waits until a stop is requested (returns at once when one already was); pends
    /// forever once the controller is gone. Cancel-safe.
    pub async fn stopped(&mut self) {
        while self.current() == StopLevel::None {
            self.changed().await;
        }
    }

    /// Waits until the level changes and returns it; pends forever once the controller is
    /// gone. Cancel-safe.
    pub(crate) async fn changed(&mut self) -> StopLevel {
        match self.rx.changed().await {
            Ok(()) => *self.rx.borrow_and_update(),
            Err(_) => std::future::pending().await,
        }
    }
}

#[cfg(test)]
#[path = "stop_tests.rs"]
mod tests;
