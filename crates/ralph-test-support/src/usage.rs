//! Deterministic token usage, the formula of the record's pi mock, so a test can compute the
//! tokens and the cost an agent must report: the first turn of a conversation writes the prompt
//! cache, later turns read it and grow the input.

use serde::{Deserialize, Serialize};

use crate::turn::UsageOverride;

/// Uncached input tokens of turn 0; turn k has this plus `k ×` [`INPUT_GROWTH_PER_TURN`].
pub const FIRST_TURN_INPUT: u64 = 1000;
/// Input growth per turn.
pub const INPUT_GROWTH_PER_TURN: u64 = 200;
/// Cache-write tokens of turn 0 (later turns write none).
pub const FIRST_TURN_CACHE_WRITE: u64 = 500;
/// Cache-read tokens of every turn after turn 0 (turn 0 reads none).
pub const LATER_TURN_CACHE_READ: u64 = 4000;
/// Output tokens are the answer's characters divided by this (at least one token).
pub const CHARS_PER_OUTPUT_TOKEN: u64 = 4;
/// Characters a tool call adds to the output on top of its JSON arguments.
pub const CHARS_PER_TOOL_CALL: u64 = 20;

/// Token counts of one answer, in the four buckets every wire can express.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Uncached input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write: u64,
}

impl Usage {
    /// The usage of turn `turn_index` whose answer has `output_chars` characters (thinking,
    /// text, and for each tool call its arguments' JSON plus [`CHARS_PER_TOOL_CALL`]).
    pub fn deterministic(turn_index: usize, output_chars: u64) -> Self {
        let turn = turn_index as u64;
        let first = turn == 0;
        Self {
            input: FIRST_TURN_INPUT + INPUT_GROWTH_PER_TURN * turn,
            output: (output_chars / CHARS_PER_OUTPUT_TOKEN).max(1),
            cache_read: if first { 0 } else { LATER_TURN_CACHE_READ },
            cache_write: if first { FIRST_TURN_CACHE_WRITE } else { 0 },
        }
    }

    /// This usage with the fields `overrides` sets replaced.
    pub fn with_overrides(self, overrides: &UsageOverride) -> Self {
        Self {
            input: overrides.input.unwrap_or(self.input),
            output: overrides.output.unwrap_or(self.output),
            cache_read: overrides.cache_read.unwrap_or(self.cache_read),
            cache_write: overrides.cache_write.unwrap_or(self.cache_write),
        }
    }

    /// All input tokens: uncached, cache reads and cache writes (OpenAI's `prompt_tokens`).
    pub fn prompt_total(&self) -> u64 {
        self.input + self.cache_read + self.cache_write
    }
}
