//! What a run, or one of its hats, spent: the cost and tokens counted, and how many
//! iterations they could not fully count. The run and each hat add up the same figures
//! the same way, so they share this type.

use std::ops::AddAssign;

use serde::{Deserialize, Serialize};

use super::state::is_zero;
use super::usage::Usage;
use ralph_stream::{CostKind, Tokens};

/// Cost and tokens, with how far they can be trusted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spend {
    /// The known cost; a lower bound when `unpriced_iterations` is not zero.
    pub cost_usd: f64,
    /// Iterations whose agent did not report (all of) its cost.
    pub unpriced_iterations: u32,
    /// Of `unpriced_iterations`, the attempts that a provider's limit ended and that ran
    /// again: not iterations, so the summary calls them attempts.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unpriced_attempts: u32,
    /// Of `unpriced_iterations`, those whose agent reported part of their cost (pi or
    /// OpenCode stopped in a model call: the calls that ended were priced, the one in
    /// flight nowhere), which `cost_usd` holds: the others reported none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub partly_priced_iterations: u32,
    /// Iterations (and attempts) whose cost is ralph's estimate from their tokens (Codex,
    /// Gemini CLI, a Claude Code stopped before its `result`): `cost_usd` then includes
    /// estimates, and every view of it says so.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub estimated_iterations: u32,
    /// The tokens counted; a lower bound when `uncounted_iterations` is not zero.
    pub tokens: Tokens,
    /// Iterations whose agent reported no token counts (Copilot), or whose count was cut.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub uncounted_iterations: u32,
}

impl Spend {
    /// What one iteration (or attempt) spent. `spent_nothing` says it was stopped
    /// before the model answered, with nothing counted: its cost is then none, not
    /// unknown. `runs_again` marks an attempt a provider's limit ended.
    pub(super) fn of(usage: &Usage, spent_nothing: bool, runs_again: bool) -> Spend {
        let unpriced = usage.cost_kind == CostKind::Unknown && !spent_nothing;
        // A reported 0 that ralph takes for unknown (pi's, with tokens) priced nothing.
        let partly = unpriced && usage.cost_usd.is_some_and(|usd| usd > 0.0);
        Spend {
            cost_usd: usage.cost_usd.unwrap_or(0.0),
            unpriced_iterations: u32::from(unpriced),
            unpriced_attempts: u32::from(unpriced && runs_again),
            partly_priced_iterations: u32::from(partly),
            // A total that adds an estimate to reported costs is an estimate too.
            estimated_iterations: u32::from(usage.cost_kind == CostKind::Estimated),
            tokens: usage.tokens,
            uncounted_iterations: u32::from(!usage.tokens_known && !spent_nothing),
        }
    }

    /// Whether every iteration's cost is counted in `cost_usd`.
    pub fn cost_complete(&self) -> bool {
        self.unpriced_iterations == 0
    }

    /// Whether `cost_usd` includes ralph's estimates.
    pub fn cost_estimated(&self) -> bool {
        self.estimated_iterations > 0
    }

    /// Whether every iteration's tokens are counted in `tokens`.
    pub fn tokens_complete(&self) -> bool {
        self.uncounted_iterations == 0
    }
}

impl AddAssign for Spend {
    fn add_assign(&mut self, other: Spend) {
        self.cost_usd += other.cost_usd;
        self.unpriced_iterations = self
            .unpriced_iterations
            .saturating_add(other.unpriced_iterations);
        self.unpriced_attempts = self
            .unpriced_attempts
            .saturating_add(other.unpriced_attempts);
        self.partly_priced_iterations = self
            .partly_priced_iterations
            .saturating_add(other.partly_priced_iterations);
        self.estimated_iterations = self
            .estimated_iterations
            .saturating_add(other.estimated_iterations);
        self.tokens += other.tokens;
        self.uncounted_iterations = self
            .uncounted_iterations
            .saturating_add(other.uncounted_iterations);
    }
}

#[cfg(test)]
#[path = "spend_tests.rs"]
mod tests;
