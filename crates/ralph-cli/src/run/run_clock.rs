//! The loop's own clock: the time since it started, less the time ralph was stopped
//! (Ctrl-Z until `fg`). `max_runtime` and every runtime the loop reports count on it: a
//! run suspended overnight goes on after `fg` with the time it had left, as its agent's
//! deadlines do (see `ralph_agent::StopController::pause`).

use std::time::{Duration, Instant};

use ralph_agent::StopController;
use ralph_core::machine::Machine;

/// When the loop started, and where the time it spent stopped adds up.
pub(crate) struct RunClock {
    started: Instant,
    stop: StopController,
}

impl RunClock {
    /// A clock that starts now and leaves out the pauses of `stop`.
    pub(crate) fn start(stop: &StopController) -> RunClock {
        RunClock {
            started: Instant::now(),
            stop: stop.clone(),
        }
    }

    /// The time the loop has run: since it started, less the pauses that ended since. A
    /// pause before the start (Ctrl-Z while `--worktree` made the worktree) is none of
    /// the loop's time, so it must not be taken off it either.
    pub(crate) fn elapsed(&self) -> Duration {
        self.started
            .elapsed()
            .saturating_sub(self.stop.paused_since(self.started))
    }
}

/// What is left of the run's `max_runtime` as the loop's clock runs: it bounds a gate
/// or a hook as it bounds an agent, stopped (TERM, then KILL) when it runs out.
#[derive(Clone, Copy)]
pub(crate) struct RuntimeLeft<'a> {
    pub(crate) clock: &'a RunClock,
    pub(crate) machine: &'a Machine,
}

impl RuntimeLeft<'_> {
    /// What is left now; zero once it is spent.
    pub(crate) fn now(&self) -> Duration {
        self.machine.runtime_left(self.clock.elapsed())
    }

    /// `timeout` cut to what is left, and whether it was cut: a command stopped at the
    /// cut deadline was stopped by the runtime limit, not by its own timeout. The cut an
    /// agent's iteration gets ([`Machine::iteration_wall`]).
    pub(crate) fn bound(&self, timeout: Duration) -> (Duration, bool) {
        let plan = self.machine.iteration_wall(timeout, self.clock.elapsed());
        (plan.wall, plan.cut_to_runtime)
    }
}

#[cfg(test)]
#[path = "run_clock_tests.rs"]
mod tests;
