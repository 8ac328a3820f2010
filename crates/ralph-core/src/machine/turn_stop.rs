//! Why ralph itself stops an agent in the middle of its run: asked after every model call,
//! the machine says whether the run has to end there, and the caller stops the agent
//! through its supervisor and tells [`classify`](super::classify) why.

use ralph_stream::SessionSummary;

use super::Machine;

/// This many model calls in a row that said nothing and used no tokens
/// ([`SessionSummary::empty_calls_in_a_row`]) stop the agent. A real model may send one
/// empty reply, rarely two; an agent that takes a web page (a wrong base URL, a captive
/// portal) for an empty answer and asks again makes about four a second, for free and
/// forever, until the iteration's timeout. Ten ends such a run in a few seconds, and is far
/// more than any genuine run shows (the real captures have at most one).
pub const MAX_EMPTY_CALLS_IN_A_ROW: u32 = 10;

/// Why ralph stopped an agent mid-run, if it did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StoppedBy {
    /// ralph let the agent run to its end (or its deadline, or the user's stop).
    #[default]
    Nothing,
    /// The run's cost crossed `max_cost_usd` at this call.
    CostLimit,
    /// [`MAX_EMPTY_CALLS_IN_A_ROW`] model calls in a row answered nothing.
    EmptyCalls,
}

impl Machine {
    /// Whether the agent has to be stopped now, at the end of one of its model calls, and
    /// why: the cost budget first (see [`Machine::crosses_budget`]; calls the agent has not
    /// priced yet count at ralph's estimate, [`SessionSummary::cost_for_budget`]), then a run of empty
    /// calls. `None` lets it go on.
    pub fn stop_at_call(&self, summary: &SessionSummary) -> Option<StoppedBy> {
        if self.crosses_budget(summary.cost_for_budget()) {
            Some(StoppedBy::CostLimit)
        } else if summary.empty_calls_in_a_row() >= MAX_EMPTY_CALLS_IN_A_ROW {
            Some(StoppedBy::EmptyCalls)
        } else {
            None
        }
    }
}

#[cfg(test)]
#[path = "turn_stop_tests.rs"]
mod tests;
