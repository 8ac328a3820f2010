//! The rate-limit headers real providers send with a 429, for an HTTP fault with
//! `limit_reset: SECS`: the limit resets that many seconds after the response.
//!
//! - Anthropic Messages: `anthropic-ratelimit-requests-{limit,remaining,reset}` (RFC 3339)
//!   as the API sends them, and the `anthropic-ratelimit-unified-*` headers of a Claude
//!   subscription's usage limit (`status: rejected`, `reset` in Unix seconds), from which
//!   Claude Code reports its `rate_limit_event`;
//! - OpenAI Chat Completions and Responses: `x-ratelimit-{limit,remaining,reset}-requests`
//!   (the reset as a duration, `12s`);
//! - Gemini: none (the Gemini API says `RESOURCE_EXHAUSTED` in the body only).

use crate::conversation::Wire;
use std::time::{Duration, UNIX_EPOCH};

/// The requests per minute the headers claim (any number: every one is used up).
const REQUESTS_LIMIT: u32 = 50;

/// The headers for a limit that resets `reset_in_s` seconds after `now` (Unix seconds).
pub(crate) fn limit_headers(wire: Wire, now: u64, reset_in_s: u64) -> Vec<(&'static str, String)> {
    let reset = now + reset_in_s;
    match wire {
        Wire::AnthropicMessages => vec![
            (
                "anthropic-ratelimit-requests-limit",
                REQUESTS_LIMIT.to_string(),
            ),
            ("anthropic-ratelimit-requests-remaining", "0".to_owned()),
            ("anthropic-ratelimit-requests-reset", rfc3339(reset)),
            ("anthropic-ratelimit-unified-status", "rejected".to_owned()),
            ("anthropic-ratelimit-unified-reset", reset.to_string()),
            (
                "anthropic-ratelimit-unified-representative-claim",
                "five_hour".to_owned(),
            ),
        ],
        Wire::ChatCompletions | Wire::Responses => vec![
            ("x-ratelimit-limit-requests", REQUESTS_LIMIT.to_string()),
            ("x-ratelimit-remaining-requests", "0".to_owned()),
            ("x-ratelimit-reset-requests", format!("{reset_in_s}s")),
        ],
        Wire::Gemini => Vec::new(),
    }
}

/// `secs` (Unix seconds) as `2026-11-26T08:00:00Z`.
pub(crate) fn rfc3339(secs: u64) -> String {
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(secs)).to_string()
}

#[cfg(test)]
#[path = "limit_headers_tests.rs"]
mod tests;
