//! The live views' lines (the text view's and the TUI's) about provider limits: the wait before an iteration runs again,
//! and a hat's attempt moving to another of its backends (`on_rate_limit: failover`).

use std::time::Duration;

use super::figures::duration_ms;

/// Seconds in a day: a wait's end on another day than today's is said with its date.
const DAY_SECS: u64 = 86_400;

/// `⏸ rate limited: waiting 1m 00s (the limit resets …), then iteration 3 (builder)`.
pub(crate) fn wait(
    iteration: u32,
    hat: Option<&str>,
    wait_secs: u64,
    resets_at: Option<u64>,
) -> String {
    let until = resets_at
        .map(|at| {
            format!(
                " (the limit resets {})",
                ralph_core::time_text::utc_minute_secs(at)
            )
        })
        .unwrap_or_default();
    // The iteration may be one that has not run yet (the limit was another hat's
    // earlier iteration's, on the backend this one runs on): say whose it is, not "again".
    let hat = hat.map(|h| format!(" ({h})")).unwrap_or_default();
    format!(
        "⏸ rate limited: waiting {}{until}, then iteration {iteration}{hat}",
        duration_ms(wait_secs.saturating_mul(1000))
    )
}

/// `⏸ rate limited on pi: retrying in 4m 12s (at 10:42 UTC)`: the live views' status
/// line while the loop waits for `backend`'s limit. `left` is shown in whole seconds,
/// rounded up, so the line never says 0s while the wait goes on; once it is up (the wait
/// announced in whole seconds may last a fraction more) the line says `retrying now`.
/// `at` (the wait's end) and `now` are Unix seconds; `at` gets its date when it is not
/// today.
pub(crate) fn countdown(backend: &str, left: Duration, at: u64, now: u64) -> String {
    let secs = left.as_secs() + u64::from(left.subsec_nanos() > 0);
    let (h, m, s) = (secs / 3600, (secs % 3600) / 60, secs % 60);
    let left = match (h, m) {
        (0, 0) if s == 0 => return format!("⏸ rate limited on {backend}: retrying now"),
        (0, 0) => format!("{s}s"),
        (0, m) => format!("{m}m {s:02}s"),
        (h, m) => format!("{h}h {m:02}m {s:02}s"),
    };
    let at = if at / DAY_SECS == now / DAY_SECS {
        let of_day = at % DAY_SECS;
        format!("{:02}:{:02} UTC", of_day / 3600, (of_day % 3600) / 60)
    } else {
        ralph_core::time_text::utc_minute_secs(at)
    };
    format!("⏸ rate limited on {backend}: retrying in {left} (at {at})")
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
