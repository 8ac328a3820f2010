//! Provider limits: an iteration that ended on one is, with `on_rate_limit: wait` or
//! `failover`, not counted (neither as an iteration nor as a failure) and runs again,
//! unless it handed over (published events) first: then it is counted and the loop goes
//! on. Either way its backend is limited (for that hat) until the reset time the agent
//! gave, or a backoff that doubles with each limit in a row; an iteration about to run on
//! a limited backend waits for it first, with `failover` only when all of the hat's
//! backends are limited (see `failover.rs`). A wait never outlasts
//! `max_runtime_seconds`. With `fail` a limit is a failed iteration, and so is an
//! overloaded provider past [`OVERLOAD_WAITS`] overloads in a row.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Machine;
use super::failover::BackendLimit;
use super::iteration::{Iteration, IterationReport};
use super::millis;
use super::outcome::{IterationOutcome, StopReason};
use crate::config::{MAX_RATE_LIMIT_WAIT, RateLimitPolicy};

/// Added to a reset time the agent gave: clocks differ, and a request sent on the second
/// of the reset may still be refused.
pub const RESET_SLACK: Duration = Duration::from_secs(2);

/// From this limit in a row on, a reset time given is waited for no less than the
/// backoff (the first limit trusts the agent's reset time alone).
pub const REPEAT_LIMIT_BACKOFF_FROM: u32 = 2;

/// An overloaded or unavailable provider ([`ralph_stream::names_overload`]: HTTP 529 or
/// 503, `overloaded`, with no reset time) is waited for this many times in a row. From
/// the next overload in a row on, each counts as a failed iteration (toward
/// `max_consecutive_failures`) and its backend rests only the first backoff: unlike a
/// rate limit, an overload says nothing of when it ends and may last for hours, and
/// waiting for it with a doubling backoff would keep the loop idle until
/// `max_runtime_seconds`.
pub const OVERLOAD_WAITS: u32 = 3;

/// The backoff doubles at most this many times (then [`MAX_RATE_LIMIT_WAIT`] caps it
/// anyway); keeps the shift from overflowing.
const MAX_DOUBLINGS: u32 = 16;

/// The limits hit in a row, and the last one's reset time.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateLimitStreak {
    pub count: u32,
    pub resets_at: Option<u64>,
    pub message: String,
    /// The hat whose attempt hit the last limit.
    #[serde(default)]
    pub hat: String,
    /// Which of its backends it ran on (0 the primary, `n` the `n`th of `fallback`).
    #[serde(default)]
    pub fallback: u32,
    /// The attempts of the next iteration that ended on a limit and run again (not
    /// counted): the history has a record of each that the state covers.
    #[serde(default)]
    pub run_again: u32,
    /// When the next attempt would have started (Unix seconds), set when the loop ends
    /// at its runtime limit instead of waiting: later than `resets_at` when limits in a
    /// row backed off past it, and the only time known when the agent gave none.
    #[serde(default)]
    pub retry_at: Option<u64>,
    /// How many of the last limits in a row were overloads (see [`OVERLOAD_WAITS`]).
    #[serde(default)]
    pub overloads: u32,
}

impl RateLimitStreak {
    /// Whether the last limit was an overload past [`OVERLOAD_WAITS`]: a failure.
    pub fn overload_spent(&self) -> bool {
        self.overloads > OVERLOAD_WAITS
    }
}

/// How long to wait before an iteration whose backend is limited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateLimitWait {
    pub wait: Duration,
    /// When the limit resets, in Unix seconds, when the agent said.
    pub resets_at: Option<u64>,
    /// What named the limit.
    pub message: String,
}

/// What an iteration about to start does about its backend's limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BackendWait {
    /// Its backend is not limited (or the loop already ends): it starts now.
    Free,
    /// Its backend is limited: it starts after this wait.
    Wait(RateLimitWait),
    /// The wait would outlast `max_runtime_seconds`: the loop ends instead.
    PastRuntime,
}

/// What provider limits cost a run: the waits and the moves to a fallback backend.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateLimitTally {
    /// Waits the loop went through (a wait cut short by a stop included).
    pub waits: u32,
    /// Their time in all, as waited.
    pub waited_ms: u64,
    /// Attempts that ran on a later backend of their hat than the attempt before
    /// (`on_rate_limit: failover`).
    pub failovers: u32,
}

impl RateLimitTally {
    /// No limit was waited for or failed over from.
    pub fn is_empty(&self) -> bool {
        *self == RateLimitTally::default()
    }
}

impl Machine {
    /// Counts a wait for a provider's limit that lasted `waited` (it may have been cut
    /// short by a stop).
    pub fn waited(&mut self, waited: Duration) {
        let tally = &mut self.state.rate_limit_tally;
        tally.waits = tally.waits.saturating_add(1);
        tally.waited_ms = tally.waited_ms.saturating_add(millis(waited));
    }

    /// Which attempt at the next iteration this is: 1, or one more than its attempts
    /// that ended on a limit and run again (they keep its number).
    pub fn attempt(&self) -> u32 {
        self.state
            .rate_limit
            .as_ref()
            .map_or(0, |l| l.run_again)
            .saturating_add(1)
    }

    /// What `hat` does on a limit: its own `on_rate_limit`, else `cli`'s.
    pub fn rate_limit_policy(&self, hat: &str) -> RateLimitPolicy {
        self.rules
            .hat(hat)
            .and_then(|h| h.on_rate_limit)
            .unwrap_or(self.rules.rate_limits.policy)
    }

    /// Keeps the streak of limits and which backend is limited until when up to date;
    /// true when the iteration ended on a limit the loop runs again (it is then not
    /// counted, and its hat's activation is undone).
    ///
    /// An attempt that `handed_over` (published events before its limit) did its work:
    /// it ends its iteration, counted as its hat's, and the next iteration is a new one
    /// for the hat its events go to, which waits only if its own backend is limited. Run
    /// again, it would do that work twice and hand over twice; and an agent that always
    /// hands over before its limit would never count toward `max_iterations`.
    pub(super) fn note_rate_limit(
        &mut self,
        iteration: &Iteration,
        report: &IterationReport,
        handed_over: bool,
    ) -> bool {
        // When the attempt ended, rounded up: a backoff is never cut short by the rounding.
        let now = (report.started_at_ms + millis(report.duration)).div_ceil(1000);
        let IterationOutcome::RateLimited { message, resets_at } = &report.outcome else {
            self.state.rate_limit = None;
            self.backend_ran(&iteration.hat, report.fallback, now, None);
            return false;
        };
        let policy = self.rate_limit_policy(&iteration.hat);
        let streak = self
            .state
            .rate_limit
            .get_or_insert_with(RateLimitStreak::default);
        // A reset time given makes it a limit that ends, whatever the message says.
        streak.overloads = if resets_at.is_none() && ralph_stream::names_overload(message) {
            streak.overloads.saturating_add(1)
        } else {
            0
        };
        let spent = streak.overload_spent();
        let runs_again = policy != RateLimitPolicy::Fail && !handed_over && !spent;
        streak.count = streak.count.saturating_add(1);
        streak.resets_at = *resets_at;
        streak.message.clone_from(message);
        streak.hat.clone_from(&iteration.hat);
        streak.fallback = report.fallback;
        // Counted (with `fail`, or handed over): the next iteration has had no attempt yet.
        streak.run_again = if runs_again {
            streak.run_again.saturating_add(1)
        } else {
            0
        };
        // A spent overload fails, and its backend rests the first backoff: not hammered,
        // and the loop reaches `max_consecutive_failures` in minutes, not hours.
        let count = if spent { 1 } else { streak.count };
        if policy == RateLimitPolicy::Fail {
            return false;
        }
        // The backend is left alone until then, whichever iteration of the hat comes
        // next: this one again, or (handed over) a later one.
        let limit = BackendLimit {
            hat: iteration.hat.clone(),
            fallback: report.fallback,
            until: self.limited_until(count, *resets_at, now),
            resets_at: *resets_at,
            message: message.clone(),
        };
        self.backend_ran(&iteration.hat, report.fallback, now, Some(limit));
        if runs_again && let Some(n) = self.state.activations.get_mut(&iteration.hat) {
            *n = n.saturating_sub(1);
        }
        runs_again
    }

    /// Until when (Unix seconds) a backend that hit the `count`th limit in a row at `now`
    /// is left alone: the reset time the agent gave plus [`RESET_SLACK`], else the
    /// backoff. From the [`REPEAT_LIMIT_BACKOFF_FROM`]th limit in a row a reset time
    /// given is not enough: the backend rests at least the backoff of the limits after
    /// the first (the configured wait, doubled for each further one). A reset time that
    /// keeps being past (clock skew, a window still closed after its reset) would
    /// otherwise mean an attempt every [`RESET_SLACK`] for as long as the run lasts.
    fn limited_until(&self, count: u32, resets_at: Option<u64>, now: u64) -> u64 {
        let reset = match resets_at {
            // A reset time already past still leaves the backend alone for the slack: no
            // attempt straight into the same limit. The reset time is the agent's
            // number: saturating, a far one stays far (a wrapped sum near zero would
            // count the backend as never limited, and run it again at once, over and
            // over).
            Some(at) => at.max(now).saturating_add(RESET_SLACK.as_secs()),
            None => return now.saturating_add(self.backoff(count).as_secs()),
        };
        if count < REPEAT_LIMIT_BACKOFF_FROM {
            return reset;
        }
        let floor = self.backoff(count - (REPEAT_LIMIT_BACKOFF_FROM - 1));
        reset.max(now.saturating_add(floor.as_secs()))
    }

    /// The wait before another attempt when no reset time is known: the configured
    /// first wait, doubled for each limit in a row before this one, at most
    /// [`MAX_RATE_LIMIT_WAIT`].
    fn backoff(&self, count: u32) -> Duration {
        let doublings = count.saturating_sub(1).min(MAX_DOUBLINGS);
        self.rules
            .rate_limits
            .wait
            .saturating_mul(1 << doublings)
            .min(MAX_RATE_LIMIT_WAIT)
    }

    /// Whether `outcome` of an iteration of `hat` counts as a failure: under the
    /// rate-limit policy (`fail`), or as an overload past [`OVERLOAD_WAITS`]. Asked after
    /// the streak has taken the outcome in.
    pub(super) fn limit_is_failure(&self, hat: &str, outcome: &IterationOutcome) -> bool {
        matches!(outcome, IterationOutcome::RateLimited { .. })
            && (self.rate_limit_policy(hat) == RateLimitPolicy::Fail
                || (self.state.rate_limit.as_ref()).is_some_and(RateLimitStreak::overload_spent))
    }

    /// Why a limited `outcome` that counts as a failure failed, for the verdict: the
    /// limit, and for a spent overload that waiting for it stopped.
    pub(super) fn limit_failure_reason(&self, outcome: &IterationOutcome) -> String {
        match self.state.rate_limit.as_ref() {
            Some(streak) if streak.overload_spent() => format!(
                "{outcome}; overloaded {} times in a row: past the first \
                 {OVERLOAD_WAITS}, each overload counts as a failure",
                streak.overloads
            ),
            _ => outcome.to_string(),
        }
    }

    /// Before an iteration of `hat` starts (`now_ms` in Unix milliseconds, `elapsed`
    /// the session's time): whether the backend it would run on is limited, and then how long
    /// to wait for it. With `failover` that is only when every backend of the hat is
    /// limited (the wait is for the one free first). A wait that would run past
    /// `max_runtime_seconds` is not started: the loop stops there instead (its verdict
    /// says until when it was limited).
    pub fn rate_limit_wait(&mut self, hat: &str, now_ms: u64, elapsed: Duration) -> BackendWait {
        if self.state.end.is_some() {
            return BackendWait::Free;
        }
        let now = now_ms / 1000;
        let slot = self.pick_backend(hat, now).fallback;
        let Some(limit) = self.limit(hat, slot, now) else {
            return BackendWait::Free;
        };
        let until = limit.until;
        let plan = RateLimitWait {
            // To the millisecond: the limit's end is whole seconds, now is not.
            wait: Duration::from_millis(limit.until.saturating_mul(1000).saturating_sub(now_ms)),
            resets_at: limit.resets_at,
            message: limit.message.clone(),
        };
        let used = Duration::from_millis(self.runtime_base_ms) + elapsed;
        let left = self.rules.event_loop.max_runtime.saturating_sub(used);
        if plan.wait >= left {
            self.set_runtime(elapsed);
            // The verdict says until when this backend, the one the loop stopped for, is
            // limited (the streak's last limit may have been another's).
            let streak = (self.state.rate_limit).get_or_insert_with(RateLimitStreak::default);
            streak.resets_at = plan.resets_at;
            streak.retry_at = Some(until);
            plan.message.clone_into(&mut streak.message);
            self.state.end = Some(StopReason::MaxRuntime {
                limit_secs: self.rules.event_loop.max_runtime.as_secs(),
            });
            return BackendWait::PastRuntime;
        }
        BackendWait::Wait(plan)
    }
}

#[cfg(test)]
#[path = "rate_limit_tests.rs"]
mod tests;
