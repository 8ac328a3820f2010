//! What an iteration used: tokens and cost, in a form that can be saved and read back
//! (the stream crate's types are write-only).

use std::ops::AddAssign;

use ralph_stream::SessionSummary;
use serde::{Deserialize, Serialize};

/// Token counts of an iteration, a hat or a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenCounts {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

impl TokenCounts {
    pub fn total(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write
    }
}

impl AddAssign for TokenCounts {
    fn add_assign(&mut self, other: TokenCounts) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
    }
}

impl From<ralph_stream::Tokens> for TokenCounts {
    fn from(t: ralph_stream::Tokens) -> TokenCounts {
        TokenCounts {
            input: t.input,
            output: t.output,
            cache_read: t.cache_read,
            cache_write: t.cache_write,
        }
    }
}

/// What a cost figure is worth (see `ralph_stream::CostKind`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CostKind {
    /// The agent reported it.
    Reported,
    /// Computed from a price list.
    Estimated,
    /// Not known, or only partly: the figure (if any) is a lower bound.
    #[default]
    Unknown,
}

impl From<ralph_stream::CostKind> for CostKind {
    fn from(kind: ralph_stream::CostKind) -> CostKind {
        match kind {
            ralph_stream::CostKind::Reported => CostKind::Reported,
            ralph_stream::CostKind::Estimated => CostKind::Estimated,
            ralph_stream::CostKind::Unknown => CostKind::Unknown,
        }
    }
}

/// The usage of one iteration, as the agent reported it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// `None` when no cost is known at all.
    pub cost_usd: Option<f64>,
    pub cost_kind: CostKind,
    pub tokens: TokenCounts,
    /// Successful model turns.
    pub turns: u32,
    pub model: Option<String>,
}

impl Usage {
    pub fn from_summary(summary: &SessionSummary) -> Usage {
        Usage {
            cost_usd: summary.cost_usd,
            cost_kind: summary.cost_kind.into(),
            tokens: summary.tokens.into(),
            turns: summary.turns,
            model: summary.model.clone(),
        }
    }
}
