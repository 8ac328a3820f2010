//! `on_rate_limit: failover`: which of a hat's backends (its primary, then each of its
//! `fallback` in order) runs the next attempt. A backend that hit a limit is left alone
//! until its reset time (plus [`RESET_SLACK`](super::RESET_SLACK)) or, when the agent
//! gave none, the backoff has passed; the first backend not limited runs, so the loop
//! returns to the primary as soon as its limit is over. Limits are kept per hat: the same
//! program with other arguments (another provider) may well not be limited.

use serde::{Deserialize, Serialize};

use super::{Machine, count};
use crate::config::RateLimitPolicy;

/// One backend of a hat limited until some time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackendLimit {
    pub hat: String,
    /// 0 the hat's primary backend, `n` the `n`th of its `fallback`.
    pub fallback: u32,
    /// Unix seconds: no attempt on it before.
    pub until: u64,
    /// The reset time the agent gave, if it gave one.
    pub resets_at: Option<u64>,
    /// What named the limit (said again when an attempt waits for it).
    #[serde(default)]
    pub message: String,
}

/// The backend an attempt runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackendPick {
    /// 0 the hat's primary backend, `n` the `n`th of its `fallback`.
    pub fallback: u32,
    /// The backend the hat's previous attempt ran on, when this one runs on another
    /// (the loop failed over, or came back).
    pub switched_from: Option<u32>,
}

impl Machine {
    /// How many backends `hat`'s `fallback` names (its own, else `cli`'s).
    pub fn fallbacks(&self, hat: &str) -> u32 {
        self.rules
            .hat(hat)
            .and_then(|h| h.fallbacks)
            .unwrap_or_else(|| count(self.rules.rate_limits.fallback.len()))
    }

    /// The backend the next attempt of `hat` runs on at `now` (Unix seconds): the first
    /// of its primary and `fallback` that is not limited; the one free soonest when all
    /// are (the loop waits for that first, see
    /// [`Machine::rate_limit_wait`]); always the primary unless its policy is `failover`.
    pub fn pick_backend(&self, hat: &str, now: u64) -> BackendPick {
        let fallback = if self.rate_limit_policy(hat) == RateLimitPolicy::Failover {
            (0..=self.fallbacks(hat))
                .find(|&slot| self.limit(hat, slot, now).is_none())
                .or_else(|| self.every_backend_limited(hat, now).map(|l| l.fallback))
                .unwrap_or(0)
        } else {
            0
        };
        let last = self.state.backends.get(hat).copied().unwrap_or(0);
        BackendPick {
            fallback,
            switched_from: (fallback != last).then_some(last),
        }
    }

    /// When every backend of `hat` is limited at `now`: the limit that ends first.
    fn every_backend_limited(&self, hat: &str, now: u64) -> Option<&BackendLimit> {
        let mut soonest: Option<&BackendLimit> = None;
        for slot in 0..=self.fallbacks(hat) {
            let limit = self.limit(hat, slot, now)?;
            if soonest.is_none_or(|s| limit.until < s.until) {
                soonest = Some(limit);
            }
        }
        soonest
    }

    pub(super) fn limit(&self, hat: &str, slot: u32, now: u64) -> Option<&BackendLimit> {
        self.state
            .backend_limits
            .iter()
            .find(|l| l.hat == hat && l.fallback == slot && l.until > now)
    }

    /// Records that an attempt of `hat` ran on backend `slot` and, with `limited`, hit
    /// a limit there (its `hat` and `fallback` are these); limits that are over are
    /// forgotten.
    pub(super) fn backend_ran(
        &mut self,
        hat: &str,
        slot: u32,
        now: u64,
        limited: Option<BackendLimit>,
    ) {
        let s = &mut self.state;
        s.backend_limits
            .retain(|l| l.until > now && !(l.hat == hat && l.fallback == slot));
        if let Some(limit) = limited {
            s.backend_limits.push(limit);
        }
        if slot > s.backends.get(hat).copied().unwrap_or(0) {
            s.rate_limit_tally.failovers = s.rate_limit_tally.failovers.saturating_add(1);
        }
        if slot > 0 || s.backends.contains_key(hat) {
            s.backends.insert(hat.to_owned(), slot);
        }
    }
}

#[cfg(test)]
#[path = "failover_tests.rs"]
mod tests;
