//! How a number of tokens reads when an agent may not have counted them: Copilot reports
//! no token counts, so its zero means "nobody counted", and a total over its iterations
//! is only a lower bound. Shown like a cost nobody reported: unknown, or at least.

use crate::summary::thousands;

/// A number of tokens, as far as the agents counted them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenCount {
    /// Every part was counted.
    Counted(u64),
    /// Some part was not counted: at least this many.
    AtLeast(u64),
    /// Nothing was counted.
    Unknown,
}

impl TokenCount {
    /// `total` tokens, `complete` when every agent behind them counted its own (an
    /// iteration's `tokens_known`, a run's `tokens_complete`).
    pub fn of(total: u64, complete: bool) -> TokenCount {
        match (complete, total) {
            (true, _) => TokenCount::Counted(total),
            (false, 0) => TokenCount::Unknown,
            (false, _) => TokenCount::AtLeast(total),
        }
    }

    /// `12,345 tokens`, `1 token`, `at least 12,345 tokens`, `tokens unknown`.
    pub fn words(self) -> String {
        match self {
            TokenCount::Counted(1) => "1 token".to_owned(),
            TokenCount::Counted(n) => format!("{} tokens", thousands(n)),
            TokenCount::AtLeast(n) => format!("at least {} tokens", thousands(n)),
            TokenCount::Unknown => "tokens unknown".to_owned(),
        }
    }

    /// A table cell, the number written by `number`: `12345`, `≥12345`, `unknown`.
    pub fn cell(self, number: fn(u64) -> String) -> String {
        match self {
            TokenCount::Counted(n) => number(n),
            TokenCount::AtLeast(n) => format!("≥{}", number(n)),
            TokenCount::Unknown => "unknown".to_owned(),
        }
    }
}

#[cfg(test)]
#[path = "token_count_tests.rs"]
mod tests;
