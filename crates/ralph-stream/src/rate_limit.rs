//! Telling a provider's rate or usage limit from other failures, in what each agent
//! writes: pi and Codex put the HTTP status at the start of an error message (`429 …`),
//! Gemini CLI says `RESOURCE_EXHAUSTED`, Claude Code sends a `rate_limit_event` whose
//! status is `rejected` (with the reset time) and ends a usage-limited run with
//! `Claude AI usage limit reached|<unix time>`; its failed request's HTTP status comes in
//! `api_error_status` (read as [`with_status`] says). A limit is not the agent's fault and
//! passes with time, so the loop treats it apart from a failure.

use serde::Serialize;

use crate::format::StreamFormat;

/// A run that ended on a rate or usage limit.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RateLimited {
    /// When the limit resets, in Unix seconds, when the agent said.
    pub resets_at: Option<u64>,
    /// The message that named the limit.
    pub message: String,
}

/// Words that name a rate or usage limit in providers' and agents' error messages
/// (compared in lower case).
const LIMIT_WORDS: [&str; 8] = [
    "rate limit",
    "rate_limit",
    "ratelimit",
    "too many requests",
    "quota",
    "resource_exhausted",
    "resource exhausted",
    "usage limit",
];

/// Whether `message` reports a rate or usage limit: one of `LIMIT_WORDS`, HTTP status
/// 429 at the start (`429 …`) or after `HTTP`, `status`, `code` or `(`, or an overloaded
/// or unavailable provider ([`names_overload`]).
pub fn names_limit(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    LIMIT_WORDS.iter().any(|w| lower.contains(w))
        || names_status(&lower, "429")
        || names_overload(message)
}

/// Whether `message` says the provider is overloaded or unavailable: Anthropic's
/// `overloaded_error` (HTTP 529), or HTTP 503, which OpenAI and Google send for an
/// overloaded model (Google's body says `"status":"UNAVAILABLE"`) and proxies for a
/// service that is down for a while. Neither is the caller's limit: it has no reset time
/// and may last for hours, so the loop waits for it only so many times (see ralph-core's
/// `OVERLOAD_WAITS`) instead of counting every one as a failure at once.
pub fn names_overload(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    OVERLOAD_WORDS.iter().any(|w| lower.contains(w))
        || OVERLOAD_STATUSES
            .iter()
            .any(|code| names_status(&lower, code))
}

/// Words that name an overloaded or unavailable provider (compared in lower case).
const OVERLOAD_WORDS: [&str; 3] = ["overloaded", "service unavailable", "\"unavailable\""];

/// The HTTP statuses of an overloaded or unavailable provider.
const OVERLOAD_STATUSES: [&str; 2] = ["529", "503"];

/// What may come before an HTTP status in a message (lower case): `HTTP 503`,
/// `status: 503`, `(503)`, Claude Code's `API Error: 503`, and the JSON of an error body
/// (`"code":503`).
const BEFORE_STATUS: [&str; 10] = [
    "http ",
    "api error: ",
    "status ",
    "status: ",
    "code ",
    "code: ",
    "(",
    "\"code\":",
    "\"code\": ",
    "\"status\":",
];

/// Whether the lower-cased `message` gives HTTP status `code` at its start (`529 …`) or
/// after one of [`BEFORE_STATUS`], as a number of its own (`5290` is not `529`).
fn names_status(lower: &str, code: &str) -> bool {
    let ends_there = |rest: &str| !rest.starts_with(|c: char| c.is_ascii_digit());
    let trimmed = lower.trim_start();
    trimmed == code
        || trimmed
            .strip_prefix(code)
            .is_some_and(|rest| rest.starts_with(' '))
        || BEFORE_STATUS.iter().any(|before| {
            let pattern = format!("{before}{code}");
            lower
                .match_indices(&pattern)
                .any(|(at, _)| ends_there(&lower[at + pattern.len()..]))
        })
}

/// `message` with the HTTP status an agent gave beside it (Claude Code's
/// `api_error_status`) put in front (`HTTP 503: …`), so that the status, not only the
/// words of the body, tells a limit or an overload from another failure. A message that
/// names the status already is kept as it is.
pub(crate) fn with_status(status: u64, message: &str) -> Option<String> {
    let code = status.to_string();
    (!names_status(&message.to_ascii_lowercase(), &code)).then(|| format!("HTTP {code}: {message}"))
}

/// The limit a Gemini CLI run's exit code gives, when its stream named none: in
/// stream-json mode Gemini CLI 0.61.0 exits with the failed request's HTTP status, which
/// the system cuts to its low byte (503 → 247), while its `result` may say only
/// `[API Error: Service temporarily unavailable]` (a proxy's 503 with a plain body).
/// Its own exit codes (41–54, 130) and `1` are not the low byte of 429, 503 or 529.
/// `last_error` is what the stream said, kept in the message. Other agents' exit
/// codes carry no status: `None`.
pub fn limit_in_exit_code(
    format: StreamFormat,
    code: i32,
    last_error: Option<&str>,
) -> Option<RateLimited> {
    if format != StreamFormat::Gemini {
        return None;
    }
    let status = EXIT_LIMIT_STATUSES
        .into_iter()
        .find(|status| i32::from(*status % 256) == code)?;
    let message = match last_error {
        Some(error) => format!("HTTP {status} (Gemini CLI's exit code {code}): {error}"),
        None => format!("HTTP {status} (Gemini CLI's exit code {code})"),
    };
    Some(RateLimited {
        resets_at: None,
        message,
    })
}

/// The HTTP statuses of a limit or an overload, as an exit code may carry them.
const EXIT_LIMIT_STATUSES: [u16; 3] = [429, 503, 529];

/// The reset time in Claude Code's usage-limit message (`…usage limit reached|1735689600`).
pub fn reset_in_message(message: &str) -> Option<u64> {
    let (_, tail) = message.rsplit_once('|')?;
    let secs: u64 = tail.trim().parse().ok()?;
    // A plausible Unix time (after 2020), not some other number after a bar.
    (secs > 1_577_836_800).then_some(secs)
}

#[cfg(test)]
#[path = "rate_limit_tests.rs"]
mod tests;
