//! Generators of large, realistic agent streams for benchmarks and stress tests.
//!
//! `pi_stream` writes pi's snapshot shape: every `message_update` repeats the whole
//! message so far twice (`assistantMessageEvent.partial` and `message`), so a turn with
//! N deltas costs O(N²) bytes, exactly as pi up to the 0.8x releases does.
//! `claude_stream` writes Claude Code's stream-json: one `assistant` line per content
//! block and large tool results carried twice (`content` and `tool_use_result`).
//! Text mixes ASCII with 2-, 3- and 4-byte UTF-8 characters, quotes, backslashes and
//! newlines, so multi-byte characters and escapes land at arbitrary offsets. Output is
//! deterministic for a given spec; [`Expect`] says what a correct parser must report.
//!
//! `codex_stream`, `gemini_stream`, `opencode_stream` and `copilot_stream` write those
//! agents' JSON lines as their real captures show them (`tests/fixtures/<agent>`): heavy
//! tool outputs (OpenCode and Copilot carry each one twice), Gemini's and Copilot's
//! small text deltas, Copilot's envelope and its dozens of no-op events per tool call.

//! One generator per file; the helpers they share are in `text.rs`.

mod claude;
mod codex;
mod copilot;
mod gemini;
mod loop_spec;
mod opencode;
mod pi;
mod text;

pub use claude::{ClaudeSpec, claude_stream};
pub use codex::codex_stream;
pub use copilot::copilot_stream;
pub use gemini::gemini_stream;
pub use loop_spec::LoopSpec;
pub use opencode::opencode_stream;
pub use pi::{PiSpec, pi_stream};

/// What a correct parser must find in a generated stream.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Expect {
    /// Every text delta, concatenated in order.
    pub text: String,
    pub text_deltas: usize,
    /// The last assistant message's text (it ends with a `LOOP_COMPLETE` line).
    pub final_text: String,
    /// The cost the agent reports; 0 when it reports none (see `reports`).
    pub cost_usd: f64,
    pub turns: u32,
    pub tool_calls: u32,
    /// Session tokens, normalized as ralph counts them (input without cached tokens).
    pub tokens: TokenCounts,
    pub reports: Reports,
    /// The model that did the work (Codex streams never name it).
    pub model: String,
}

/// Token counts of a generated stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TokenCounts {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

/// What an agent's stream says about usage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reports {
    /// Tokens and a cost in dollars (pi, Claude Code, OpenCode).
    #[default]
    CostAndTokens,
    /// Tokens only: the cost must be estimated from a price list (Codex, Gemini CLI).
    TokensOnly,
    /// Neither (Copilot).
    Nothing,
}

/// A generated stream and its ground truth.
#[derive(Clone, Debug)]
pub struct Generated {
    pub bytes: Vec<u8>,
    pub expect: Expect,
}

/// The promise every generated stream ends its final answer with.
pub const PROMISE: &str = "LOOP_COMPLETE";
