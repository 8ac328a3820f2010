//! A hook that blocks stops the loop: the machine records why, so `next` stops, the
//! summary and the saved state name the hook, and the exit code says failure.

use std::time::Duration;

use super::{Iteration, Machine, StopReason};

impl Machine {
    /// Ends the run because hook `hook` at `phase` blocked it, for `why`. A blocked
    /// completion is no completion, so the hook's reason replaces it; any other reason
    /// the loop already stops for (a limit, failures) is kept, being the cause.
    pub fn block_for_hook(
        &mut self,
        hook: &str,
        phase: &str,
        why: &str,
        elapsed: Duration,
    ) -> StopReason {
        self.set_runtime(elapsed);
        let blocked = StopReason::HookBlocked {
            hook: hook.to_owned(),
            phase: phase.to_owned(),
            why: why.to_owned(),
        };
        let end = match self.state.end.take() {
            None | Some(StopReason::Completed { .. }) => blocked,
            Some(other) => other,
        };
        self.state.end = Some(end.clone());
        end
    }
}

impl Machine {
    /// Undoes [`Machine::next`] for an iteration a hook kept from running: its events go
    /// back to the front of the queue, in order, and its hat's activation is not
    /// counted, so a continued run (`--continue`) handles them.
    pub fn give_back(&mut self, iteration: Iteration) {
        for event in iteration.events.into_iter().rev() {
            self.state.pending.push_front(event);
        }
        if let Some(n) = self.state.activations.get_mut(&iteration.hat) {
            *n = n.saturating_sub(1);
        }
    }
}

#[cfg(test)]
#[path = "hook_stop_tests.rs"]
mod tests;
