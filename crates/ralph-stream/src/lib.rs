//! Pure stream parsing: the bytes an agent CLI writes become normalized agent events.
//!
//! How it works: a [`LineFramer`] splits arbitrary chunks on the `\n` byte (never
//! copying a complete line that lies inside one chunk; a JSON line is read before its
//! newline is looked for, since JSON holds no raw newline), a per-agent parser reads each
//! line with a small lazy JSON cursor that reads keys as a JSON parser does (decoded,
//! the last duplicate winning) but decodes only the values it needs, and hands borrowed
//! [`AgentEvent`]s to a callback. A [`SessionSummary`] folds those
//! events into what the loop needs (final text, cost, tokens, success). Agents that
//! count tokens but never price them (Codex, Gemini CLI) get an estimated cost from a
//! [`PriceTable`] of list prices that the config can override ([`Pricing`]). Nothing here
//! does I/O, spawns processes or allocates per line on the hot path.
//!
//! ```
//! use ralph_stream::{SessionSummary, StreamDecoder, StreamFormat};
//!
//! let mut decoder = StreamDecoder::new(Some(StreamFormat::Pi));
//! let mut summary = SessionSummary::default();
//! decoder.feed(b"{\"type\":\"agent_start\"}\n", |event| summary.observe(event));
//! decoder.finish(|event| summary.observe(event));
//! assert_eq!(decoder.lines(), 1);
//! ```

mod bounded;
mod claude;
mod codex;
mod copilot;
mod decoder;
mod event;
mod event_examples;
mod format;
mod framer;
mod gemini;
mod json;
mod opencode;
mod parser;
mod pi;
mod pricing;
mod rate_limit;
mod sniff;
mod summary;
mod text;
mod unpriced;

pub use bounded::MAX_ERROR_BYTES;
pub use decoder::DETECT_MAX_LINES;
pub use decoder::StreamDecoder;
pub use event::AgentEvent;
pub use event::CostKind;
pub use event::Phase;
pub use event::Stop;
pub use event::Tokens;
pub use event::Usage;
pub use format::StreamFormat;
pub use format::UnknownFormat;
pub use framer::DEFAULT_MAX_LINE_BYTES;
pub use framer::Frame;
pub use framer::LineFramer;
pub use pricing::ModelPrice;
pub use pricing::PriceTable;
pub use pricing::Pricing;
pub use pricing::TOKENS_PER_PRICE_UNIT;
pub use rate_limit::{
    RateLimited, limit_in_exit_code, names_limit, names_overload, reset_in_message,
};
pub use summary::SessionSummary;
pub use text::TEXT_TAIL_BYTES;

/// Decodes a whole captured stream and summarizes it: the core of `ralph inspect`.
/// Returns the format (detected when `format` is `None`), the summary and the number of
/// lines.
pub fn summarize(
    bytes: &[u8],
    format: Option<StreamFormat>,
) -> (Option<StreamFormat>, SessionSummary, u64) {
    summarize_with(bytes, format, Pricing::default())
}

/// Like [`summarize`], pricing token-only usage with `pricing`.
pub fn summarize_with(
    bytes: &[u8],
    format: Option<StreamFormat>,
    pricing: Pricing,
) -> (Option<StreamFormat>, SessionSummary, u64) {
    let mut decoder = StreamDecoder::new(format).with_pricing(pricing);
    let mut summary = SessionSummary::default();
    decoder.feed(bytes, |event| summary.observe(event));
    decoder.finish(|event| summary.observe(event));
    (decoder.format(), summary, decoder.lines())
}
