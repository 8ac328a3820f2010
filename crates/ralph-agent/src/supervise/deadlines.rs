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
    first_byte: Option<Instant>,
    last_byte: Instant,
    finished: Option<Instant>,
}

impl DeadlineClock {
    pub(crate) fn new(deadlines: RunDeadlines, started: Instant) -> DeadlineClock {
        DeadlineClock {
            deadlines,
            started,
            first_byte: None,
            last_byte: started,
            finished: None,
        }
    }

    pub(crate) fn on_output(&mut self, now: Instant) {
        self.first_byte.get_or_insert(now);
        self.last_byte = now;
    }

    /// Records the terminal event; only the first one counts.
    pub(crate) fn on_finished(&mut self, now: Instant) {
        self.finished.get_or_insert(now);
    }

    pub(crate) fn first_byte(&self) -> Option<Instant> {
        self.first_byte
    }

    /// The earliest pending deadline. Before the first byte the startup deadline governs
    /// (the inactivity one takes over from spawn time only when there is no startup
    /// deadline); after the terminal event only the exit grace and the wall clock remain.
    pub(crate) fn next(&self) -> Option<(Instant, Expiry)> {
        let d = &self.deadlines;
        let wall = d.wall.map(|w| (self.started + w, Expiry::Wall));
        let activity = match (self.finished, self.first_byte) {
            (Some(at), _) => Some((at + d.exit_grace, Expiry::ExitGrace)),
            (None, None) => match (d.startup, d.idle) {
                (Some(s), _) => Some((self.started + s, Expiry::Startup)),
                (None, Some(i)) => Some((self.started + i, Expiry::Idle)),
                (None, None) => None,
            },
            (None, Some(_)) => d.idle.map(|i| (self.last_byte + i, Expiry::Idle)),
        };
        match (wall, activity) {
            (Some(w), Some(a)) => Some(if a.0 < w.0 { a } else { w }),
            (w, a) => w.or(a),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    fn deadlines() -> RunDeadlines {
        RunDeadlines {
            startup: Some(10 * S),
            idle: Some(5 * S),
            wall: Some(100 * S),
            exit_grace: 2 * S,
            kill_grace: S,
        }
    }

    #[test]
    fn startup_governs_until_the_first_byte_then_inactivity_resets_on_every_byte() {
        let t0 = Instant::now();
        let mut clock = DeadlineClock::new(deadlines(), t0);
        assert_eq!(clock.next(), Some((t0 + 10 * S, Expiry::Startup)));
        clock.on_output(t0 + 3 * S);
        assert_eq!(clock.next(), Some((t0 + 8 * S, Expiry::Idle)));
        clock.on_output(t0 + 7 * S);
        assert_eq!(clock.next(), Some((t0 + 12 * S, Expiry::Idle)));
        assert_eq!(clock.first_byte(), Some(t0 + 3 * S));
    }

    #[test]
    fn without_a_startup_deadline_inactivity_counts_from_spawn() {
        let t0 = Instant::now();
        let d = RunDeadlines {
            startup: None,
            ..deadlines()
        };
        assert_eq!(
            DeadlineClock::new(d, t0).next(),
            Some((t0 + 5 * S, Expiry::Idle))
        );
    }

    #[test]
    fn after_the_terminal_event_only_exit_grace_and_wall_remain() {
        let t0 = Instant::now();
        let mut clock = DeadlineClock::new(deadlines(), t0);
        clock.on_output(t0 + S);
        clock.on_finished(t0 + 2 * S);
        clock.on_finished(t0 + 3 * S);
        assert_eq!(clock.next(), Some((t0 + 4 * S, Expiry::ExitGrace)));
    }

    #[test]
    fn wall_clock_wins_when_it_is_earlier() {
        let t0 = Instant::now();
        let d = RunDeadlines {
            wall: Some(3 * S),
            ..deadlines()
        };
        assert_eq!(
            DeadlineClock::new(d, t0).next(),
            Some((t0 + 3 * S, Expiry::Wall))
        );
        assert_eq!(DeadlineClock::new(RunDeadlines::none(), t0).next(), None);
    }

    /// The supervisor once had its own defaults (an inactivity deadline of 10 minutes
    /// where the docs say 15); its defaults must be the documented ones.
    #[test]
    fn the_default_run_deadlines_are_the_documented_defaults() {
        const DOCUMENTED_IDLE: Duration = Duration::from_secs(900);
        const DOCUMENTED_STARTUP: Duration = Duration::from_secs(120);
        const DOCUMENTED_ITERATION: Duration = Duration::from_secs(3600);
        let d = RunDeadlines::default();
        assert_eq!(
            (d.startup, d.idle, d.wall),
            (
                Some(DOCUMENTED_STARTUP),
                Some(DOCUMENTED_IDLE),
                Some(DOCUMENTED_ITERATION)
            )
        );
    }
}
