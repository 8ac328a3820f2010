//! The four deadlines of one agent run and the pure clock that decides which fires next.
//!
//! Startup: no stdout byte at all within N. Inactivity: no stdout byte for N (any byte
//! resets it, so a long tool run that prints is never killed). Wall clock: the whole
//! iteration. Exit grace: after the sink reported the agent's terminal event, the agent
//! gets N to exit before it is stopped. Each is reported as its own [`Termination`].
//!
//! [`Termination`]: crate::supervise::Termination

use std::time::{Duration, Instant};

use ralph_types::{DEFAULT_KILL_GRACE, Deadlines};

/// The deadlines one supervised run enforces: the configured [`Deadlines`] with the wall
/// clock of this particular run, the kill grace, and any of them switched off. Only its
/// `Default` knows default values, and it takes them from [`Deadlines::default`], so the
/// supervisor cannot drift from the documented defaults. `None` disables a deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunDeadlines {
    pub startup: Option<Duration>,
    pub idle: Option<Duration>,
    pub wall: Option<Duration>,
    pub exit_grace: Duration,
    pub kill_grace: Duration,
}

impl From<Deadlines> for RunDeadlines {
    /// The configured deadlines, the iteration's as the wall clock, the default kill
    /// grace.
    fn from(d: Deadlines) -> RunDeadlines {
        RunDeadlines {
            startup: Some(d.startup),
            idle: Some(d.idle),
            wall: Some(d.iteration),
            exit_grace: d.exit_grace,
            kill_grace: DEFAULT_KILL_GRACE,
        }
    }
}

impl Default for RunDeadlines {
    fn default() -> RunDeadlines {
        RunDeadlines::from(Deadlines::default())
    }
}

impl RunDeadlines {
    /// No startup, inactivity or wall deadline; default graces.
    pub fn none() -> RunDeadlines {
        RunDeadlines {
            startup: None,
            idle: None,
            wall: None,
            ..RunDeadlines::default()
        }
    }
}

/// Which deadline expired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expiry {
    Startup,
    Idle,
    Wall,
    ExitGrace,
}

/// Tracks activity and answers "what expires next, and when".
#[derive(Clone, Debug)]
pub(crate) struct DeadlineClock {
    deadlines: RunDeadlines,
    started: Instant,
    /// How long the run had run when its first stdout byte came, the pauses before it
    /// left out (`started` has moved on by them by then).
    first_byte: Option<Duration>,
    last_byte: Instant,
    /// The end of a wait the agent announced (see [`DeadlineClock::quiet_for`]).
    quiet_until: Option<Instant>,
    finished: Option<Instant>,
}

impl DeadlineClock {
    pub(crate) fn new(deadlines: RunDeadlines, started: Instant) -> DeadlineClock {
        DeadlineClock {
            deadlines,
            started,
            first_byte: None,
            last_byte: started,
            quiet_until: None,
            finished: None,
        }
    }

    pub(crate) fn on_output(&mut self, now: Instant) {
        // A Ctrl-Z before the agent's first output is the user's wait, not the agent's:
        // it is reported as the time to the first byte, which must leave it out.
        let started = self.started;
        self.first_byte
            .get_or_insert_with(|| now.saturating_duration_since(started));
        self.last_byte = now;
    }

    /// The agent announced at `now` that it waits `wait` before it goes on: the
    /// inactivity deadline counts from the end of that wait, at most
    /// [`MAX_ANNOUNCED_WAIT`] away (the wall-clock deadline still holds).
    pub(crate) fn quiet_for(&mut self, now: Instant, wait: Duration) {
        let until = after(now, wait.min(MAX_ANNOUNCED_WAIT));
        self.quiet_until = Some(self.quiet_until.map_or(until, |u| u.max(until)));
    }

    /// Records the terminal event; only the first one counts.
    pub(crate) fn on_finished(&mut self, now: Instant) {
        self.finished.get_or_insert(now);
    }

    /// The time from the start to the first stdout byte, not counting the pauses
    /// (Ctrl-Z) before it; `None` before any.
    pub(crate) fn time_to_first_byte(&self) -> Option<Duration> {
        self.first_byte
    }

    /// The run was paused (Ctrl-Z) for `paused`: every deadline moves on by as much, as
    /// if the clock had stood still. The start moves too, so that a first byte after
    /// the pause counts its time from there; one that came before keeps its time.
    pub(crate) fn shift(&mut self, paused: Duration) {
        self.started = after(self.started, paused);
        self.last_byte = after(self.last_byte, paused);
        self.quiet_until = self.quiet_until.map(|at| after(at, paused));
        self.finished = self.finished.map(|at| after(at, paused));
    }

    /// The earliest pending deadline. Before the first byte the startup deadline governs
    /// (the inactivity one takes over from spawn time only when there is no startup
    /// deadline); after the terminal event only the exit grace and the wall clock remain.
    pub(crate) fn next(&self) -> Option<(Instant, Expiry)> {
        let d = &self.deadlines;
        let wall = d.wall.map(|w| (after(self.started, w), Expiry::Wall));
        let activity = match (self.finished, self.first_byte) {
            (Some(at), _) => Some((after(at, d.exit_grace), Expiry::ExitGrace)),
            (None, None) => match (d.startup, d.idle) {
                (Some(s), _) => Some((after(self.started, s), Expiry::Startup)),
                (None, Some(i)) => Some((after(self.started, i), Expiry::Idle)),
                (None, None) => None,
            },
            (None, Some(_)) => {
                let quiet_from = self
                    .quiet_until
                    .map_or(self.last_byte, |q| q.max(self.last_byte));
                d.idle.map(|i| (after(quiet_from, i), Expiry::Idle))
            }
        };
        match (wall, activity) {
            (Some(w), Some(a)) => Some(if a.0 < w.0 { a } else { w }),
            (w, a) => w.or(a),
        }
    }
}

/// `at + wait`, or [`NEVER`] after `at` where the clock cannot hold that moment: a
/// deadline that far off is none (config caps its deadlines, but this crate takes any).
pub(crate) fn after(at: Instant, wait: Duration) -> Instant {
    at.checked_add(wait).unwrap_or(at + NEVER)
}

/// The longest wait an agent's announcement keeps the inactivity deadline off: an agent
/// that says it waits a day and then hangs is stopped an hour (plus the inactivity
/// timeout) later, not a day.
pub(crate) const MAX_ANNOUNCED_WAIT: Duration = Duration::from_secs(60 * 60);

/// How far off a deadline too far for the clock is put: a hundred years.
const NEVER: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);

#[cfg(test)]
#[path = "deadlines_tests.rs"]
mod tests;
