//! Who watches a run: every [`RunEvent`] goes to one observer, in order, as it happens.
//!
//! [`JsonObserver`](super::json::JsonObserver) is `--output json`;
//! [`TextObserver`](super::text::TextObserver) is the text for people, live on a terminal
//! (colours, a status line while the agent is silent) or plain in a pipe.
//!
//! An observer never fails the run: a closed stdout (`ralph run | head`) silences it and
//! the loop goes on, because the agent's work and the run's files matter more than its
//! display.

use std::io;

use ralph_core::run_event::RunEvent;

use crate::diagnostic::diagnostic;

/// Receives a run's events.
pub(crate) trait Observer {
    fn observe(&mut self, event: &RunEvent<'_>);

    /// Whether [`Observer::tick`] does anything: the run loop keeps no timer for an
    /// observer that does not want one.
    fn wants_ticks(&self) -> bool {
        false
    }

    /// Time passes while an agent runs (called every
    /// [`FRAME_INTERVAL`](super::term::status::FRAME_INTERVAL) or so, even when the agent
    /// is silent): for spinners and elapsed counters.
    fn tick(&mut self, _now: std::time::Instant) {}

    /// The wait a [`RunEvent::RateLimitWait`] announced is over (its time passed, or a
    /// stop cut it short): a countdown shown for it goes.
    fn wait_over(&mut self) {}
}

/// Says once, on stderr, that stdout is gone and the run goes on.
pub(crate) fn report_closed(error: &io::Error) {
    if error.kind() == io::ErrorKind::BrokenPipe {
        diagnostic(format_args!(
            "stdout was closed; the loop goes on without output (see .ralph/runs/)"
        ));
    } else {
        diagnostic(format_args!(
            "cannot write to stdout ({error}); the loop goes on without output (see \
             .ralph/runs/), and ralph will not exit 0"
        ));
    }
}
