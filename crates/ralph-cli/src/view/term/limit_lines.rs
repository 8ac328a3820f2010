//! The live views' lines (the text view's and the TUI's) about provider limits: the wait before an iteration runs again,
//! and a hat's attempt moving to another of its backends (`on_rate_limit: failover`).

use super::figures::duration_ms;

/// `⏸ rate limited: waiting 1m 00s (the limit resets …), then iteration 3 again`.
pub(crate) fn wait(iteration: u32, wait_secs: u64, resets_at: Option<u64>) -> String {
    let until = resets_at
        .map(|at| {
            format!(
                " (the limit resets {})",
                ralph_core::time_text::utc_minute_secs(at)
            )
        })
        .unwrap_or_default();
    format!(
        "⏸ rate limited: waiting {}{until}, then iteration {iteration} again",
        duration_ms(wait_secs.saturating_mul(1000))
    )
}

/// A switch of backend: onto a later one of the hat's backends when the one before is
/// limited, back onto an earlier one once its limit is over.
pub(crate) fn failover(
    iteration: u32,
    from: &str,
    from_fallback: u32,
    to: &str,
    to_fallback: u32,
) -> String {
    let which = |name: &str, n: u32| match n {
        0 => name.to_owned(),
        n => format!("{name} (fallback {n})"),
    };
    let (from, to) = (which(from, from_fallback), which(to, to_fallback));
    if to_fallback > from_fallback {
        format!("↪ rate limited on {from}: iteration {iteration} runs on {to}")
    } else {
        format!("↩ the limit of {to} is over: iteration {iteration} runs on it again, after {from}")
    }
}

#[cfg(test)]
#[path = "limit_lines_tests.rs"]
mod tests;
