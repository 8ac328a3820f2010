//! Provider limits: an iteration that ended on one is, with `cli.on_rate_limit: wait`,
//! not counted (neither as an iteration nor as a failure) and runs again once the limit
//! resets, or after a backoff that doubles with each limit in a row; the wait never
//! outlasts `max_runtime_seconds`. With `fail` it is a failed iteration.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Machine;
use super::iteration::Iteration;
use super::outcome::{IterationOutcome, StopReason};
use crate::config::{MAX_RATE_LIMIT_WAIT, RateLimitPolicy};

/// Added to a reset time the agent gave: clocks differ, and a request sent on the second
/// of the reset may still be refused.
pub const RESET_SLACK: Duration = Duration::from_secs(2);

/// The limits hit in a row, and the last one's reset time.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateLimitStreak {
    pub count: u32,
    pub resets_at: Option<u64>,
    pub message: String,
}

/// How long to wait before running the limited iteration again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimitWait {
    pub wait: Duration,
    /// When the limit resets, in Unix seconds, when the agent said.
    pub resets_at: Option<u64>,
}

impl Machine {
    /// Keeps the streak of limits up to date; true when the iteration ended on a limit
    /// the loop waits out (it is then not counted, and its hat's activation is undone).
    pub(super) fn note_rate_limit(
        &mut self,
        iteration: &Iteration,
        outcome: &IterationOutcome,
    ) -> bool {
        let IterationOutcome::RateLimited { message, resets_at } = outcome else {
            self.state.rate_limit = None;
            return false;
        };
        let streak = self
            .state
            .rate_limit
            .get_or_insert_with(RateLimitStreak::default);
        streak.count += 1;
        streak.resets_at = *resets_at;
        streak.message.clone_from(message);
        if self.rules.rate_limits.policy != RateLimitPolicy::Wait {
            return false;
        }
        if let Some(n) = self.state.activations.get_mut(&iteration.hat) {
            *n = n.saturating_sub(1);
        }
        true
    }

    /// Whether `outcome` counts as a failure under the rate-limit policy (`fail`).
    pub(super) fn limit_is_failure(&self, outcome: &IterationOutcome) -> bool {
        matches!(outcome, IterationOutcome::RateLimited { .. })
            && self.rules.rate_limits.policy == RateLimitPolicy::Fail
    }

    /// After an iteration that ended on a limit the loop waits out: how long to wait
    /// (`now` in Unix seconds, `elapsed` the session's time). When the wait would run
    /// past `max_runtime_seconds` the loop stops there instead (its verdict says until
    /// when it was limited) and this returns `None`.
    pub fn rate_limit_wait(&mut self, now: u64, elapsed: Duration) -> Option<RateLimitWait> {
        if self.rules.rate_limits.policy != RateLimitPolicy::Wait || self.state.end.is_some() {
            return None;
        }
        let streak = self.state.rate_limit.as_ref()?;
        let wait = match streak.resets_at {
            Some(at) => Duration::from_secs(at.saturating_sub(now)) + RESET_SLACK,
            None => {
                let doublings = streak.count.saturating_sub(1).min(16);
                self.rules
                    .rate_limits
                    .wait
                    .saturating_mul(1 << doublings)
                    .min(MAX_RATE_LIMIT_WAIT)
            }
        };
        let resets_at = streak.resets_at;
        let used = Duration::from_millis(self.runtime_base_ms) + elapsed;
        let left = self.rules.event_loop.max_runtime.saturating_sub(used);
        if wait >= left {
            self.set_runtime(elapsed);
            self.state.end = Some(StopReason::MaxRuntime {
                limit_secs: self.rules.event_loop.max_runtime.as_secs(),
            });
            return None;
        }
        Some(RateLimitWait { wait, resets_at })
    }
}

#[cfg(test)]
#[path = "rate_limit_tests.rs"]
mod tests;
