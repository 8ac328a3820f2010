//! What an iteration used: tokens and cost, as saved in the history and the run state.

use ralph_stream::CostKind;
use ralph_stream::SessionSummary;
use ralph_stream::Tokens;
use serde::{Deserialize, Serialize};

/// The usage of one iteration, as the agent reported it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// `None` when no cost is known at all.
    pub cost_usd: Option<f64>,
    pub cost_kind: CostKind,
    pub tokens: Tokens,
    /// Whether the agent reported token counts (Copilot does not: its `tokens` are zero
    /// because nobody counted them). A record from before this field: known.
    #[serde(default = "known")]
    pub tokens_known: bool,
    /// Successful model turns.
    pub turns: u32,
    pub model: Option<String>,
    /// The model answered at least once (text, a message, a tool call), whether or not a
    /// turn's usage was reported: Claude Code reports usage only in its final `result`,
    /// so an attempt stopped before it shows no turns and no tokens, yet it was billed.
    #[serde(default)]
    pub answered: bool,
}

/// What a record that does not say means: counted, as every record was before Copilot.
pub(crate) fn known() -> bool {
    true
}

impl Usage {
    pub fn from_summary(summary: &SessionSummary) -> Usage {
        Usage {
            cost_usd: summary.cost_usd,
            cost_kind: summary.cost_kind,
            tokens: summary.tokens,
            tokens_known: summary.tokens_known,
            turns: summary.turns,
            model: summary.model.clone(),
            answered: summary.answered,
        }
    }
}
