//! What the calls an agent reported without a cost probably cost, for a cost budget.
//!
//! Claude Code prices a session only in its last line (`result`), so while it runs, and
//! when it is stopped before that line, its calls have tokens and a model but no cost. A
//! budget checked against the reported cost alone would let such an agent run its whole
//! iteration past the limit. ralph knows each call's tokens and, for the models in its
//! [`PriceTable`](crate::PriceTable), their list price: this is that estimate. It only
//! decides when to stop ([`SessionSummary::cost_for_budget`](crate::SessionSummary::cost_for_budget));
//! the cost ralph reports is still the agent's own, which replaces the estimate when it
//! comes.

use crate::event::Usage;
use crate::pricing::Pricing;

/// The estimated cost of the calls that came without one.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Unpriced {
    /// The prices to estimate with; without them nothing is estimated.
    pricing: Option<Pricing>,
    /// This session's calls since its agent last reported its totals (which price them).
    session_usd: f64,
    /// The sessions before this one (see `SessionSummary::begin_session`).
    earlier_usd: f64,
}

impl Unpriced {
    pub(crate) fn new(pricing: Pricing) -> Self {
        Unpriced {
            pricing: Some(pricing),
            ..Unpriced::default()
        }
    }

    /// A model call's usage: without a cost, its tokens are priced by its model, or by
    /// `session_model` when the call names none. A model without a price adds nothing:
    /// it is never guessed at.
    pub(crate) fn note_call(&mut self, usage: &Usage<'_>, session_model: Option<&str>) {
        let Some(pricing) = &self.pricing else {
            return;
        };
        if usage.cost_usd.is_some() || usage.tokens.total() == 0 {
            return;
        }
        let model = usage.model.clone().or(session_model.map(Into::into));
        if let Some(cost) = pricing.estimate(usage.tokens, model).cost_usd {
            self.session_usd += cost;
        }
    }

    /// The agent reported its session's totals: they price the calls so far.
    pub(crate) fn totals_reported(&mut self) {
        self.session_usd = 0.0;
    }

    /// Another session begins: what this one estimated stays counted.
    pub(crate) fn next_session(&mut self) {
        self.earlier_usd += self.session_usd;
        self.session_usd = 0.0;
    }

    /// The estimate of every unpriced call that no reported total covers.
    pub(crate) fn usd(&self) -> f64 {
        self.earlier_usd + self.session_usd
    }
}
