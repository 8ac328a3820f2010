//! What the calls an agent reported without a cost probably cost.
//!
//! Claude Code prices a session only in its last line (`result`), so while it runs, and
//! when it is stopped before that line (Ctrl-C, an idle timeout, the cost budget), its
//! calls have tokens and a model but no cost. ralph knows each call's tokens and, for the
//! models in its [`PriceTable`](crate::PriceTable), their list price: this is that
//! estimate. It is the session's cost, marked estimated, until the agent's own total
//! replaces it; and a cost budget counts it, so that such an agent does not run its whole
//! iteration past the limit ([`SessionSummary::cost_for_budget`](crate::SessionSummary::cost_for_budget)).

use crate::event::Usage;
use crate::pricing::Pricing;

/// Prices the calls that came without a cost, and keeps the estimate of those that no
/// cost shown covers: calls after a session's last reported total, which that total does
/// not price and the summary does not show (it shows the agent's totals, not the turns).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Unpriced {
    /// The prices to estimate with; without them nothing is estimated.
    pricing: Option<Pricing>,
    /// This session's calls since its agent last reported a priced total.
    session_usd: f64,
    /// What the sessions before this one estimated that their totals did not cover.
    earlier_usd: f64,
}

impl Unpriced {
    pub(crate) fn new(pricing: Pricing) -> Self {
        Unpriced {
            pricing: Some(pricing),
            ..Unpriced::default()
        }
    }

    /// What a model call reported without a cost probably cost: its tokens at the list
    /// price of its model, or of `session_model` when the call names none. `None` when
    /// it has a cost, no tokens, or a model without a price: that is never guessed at.
    /// The estimate is counted until the agent prices its session.
    pub(crate) fn price_call(
        &mut self,
        usage: &Usage<'_>,
        session_model: Option<&str>,
    ) -> Option<f64> {
        let pricing = self.pricing.as_ref()?;
        if usage.cost_usd.is_some() || usage.tokens.total() == 0 {
            return None;
        }
        let model = usage.model.clone().or(session_model.map(Into::into));
        let cost = pricing.estimate(usage.tokens, model).cost_usd?;
        self.session_usd += cost;
        Some(cost)
    }

    /// The agent reported its session's priced totals: they price the calls so far.
    pub(crate) fn totals_reported(&mut self) {
        self.session_usd = 0.0;
    }

    /// Another session begins. `shown` says whether the session that ended shows its
    /// estimate already (it reported no total, so its cost is the sum of its calls):
    /// otherwise what it estimated after its last total still counts for a budget.
    pub(crate) fn next_session(&mut self, shown: bool) {
        if !shown {
            self.earlier_usd += self.session_usd;
        }
        self.session_usd = 0.0;
    }

    /// The estimate of the unpriced calls that the cost shown does not include;
    /// `shown` as in [`Unpriced::next_session`], for the current session.
    pub(crate) fn uncovered_usd(&self, shown: bool) -> f64 {
        if shown {
            self.earlier_usd
        } else {
            self.earlier_usd + self.session_usd
        }
    }
}
