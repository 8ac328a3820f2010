//! How a stop the user asked for (Ctrl-C, SIGTERM, ...) ends the run, against the end
//! the run was about to take by itself.

use std::time::Duration;

use super::{EndClass, Machine, StopReason};

impl Machine {
    /// The iteration a killed ralph was in was just finished as interrupted (on
    /// `--continue`): nobody asked this session to stop, so the run goes on. Limits are
    /// checked again by [`Machine::next`].
    pub fn go_on_after_kill(&mut self) {
        if self.state.end == Some(StopReason::Interrupted) {
            self.state.end = None;
        }
    }

    /// A killed ralph ran this (continued) run until `runtime_ms`, as the run's record
    /// shows, and saved only what it had run at its last saved iteration: the time since
    /// counts too, toward the total and `max_runtime`.
    pub fn count_run_until_kill(&mut self, runtime_ms: u64) {
        if runtime_ms > self.state.runtime_ms {
            self.state.runtime_ms = runtime_ms;
            self.runtime_base_ms = runtime_ms;
        }
    }

    /// Ends the run interrupted unless it has ended already (its end stands: the
    /// `post.` hooks of that end run, or ran).
    pub fn interrupt(&mut self, elapsed: Duration) -> StopReason {
        self.set_runtime(elapsed);
        let end = self.state.end.get_or_insert(StopReason::Interrupted);
        end.clone()
    }

    /// Ends the run interrupted after the iteration the stop came in (its gates, the
    /// reaping of what its agent left) or between iterations, before any end hook ran.
    /// A limit that iteration reached gives way: the person stopped the run before it
    /// ran out, and the exit code must say so (130, not 2), as it does when the same
    /// stop comes in an iteration that reaches no limit. A completion or a failure the
    /// iteration reached stands: it is what the run came to.
    pub fn interrupt_over_limit(&mut self, elapsed: Duration) -> StopReason {
        if self
            .state
            .end
            .as_ref()
            .is_some_and(|end| end.class() == EndClass::LimitReached)
        {
            self.state.end = None;
        }
        self.interrupt(elapsed)
    }

    /// Ends the run interrupted whatever end it was about to take: Ctrl-C while a hook
    /// that may still refuse that end (`pre.loop.complete`, `pre.loop.error`) runs or
    /// waits. A completion no approval passed is not one; `--continue` resumes the run.
    pub fn interrupt_unconfirmed(&mut self, elapsed: Duration) -> StopReason {
        self.set_runtime(elapsed);
        self.state.end = Some(StopReason::Interrupted);
        StopReason::Interrupted
    }
}
