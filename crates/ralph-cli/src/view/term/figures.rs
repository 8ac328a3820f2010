//! Numbers as people read them in ralph's terminal output: costs that say how sure they
//! are, run times, counts with their nouns.

use std::time::Duration;

use ralph_core::machine::format_duration;
use ralph_core::run_event::Totals;
use ralph_core::run_event::format_usd;
use ralph_core::summary::ESTIMATES_NOTE;
use ralph_core::summary::thousands;
use ralph_stream::CostKind;

/// What an iteration's header adds for its attempt: nothing for the first (0 is a record
/// that names none), ` · attempt N` for one after a rate limit.
pub(crate) fn attempt_part(attempt: u32) -> String {
    match attempt {
        0 | 1 => String::new(),
        n => format!(" · attempt {n}"),
    }
}

/// An iteration's cost: `$0.0102`, `~$0.0102 (estimated)`, `at least $0.0102 (partly
/// unknown)` or `cost unknown`.
pub(crate) fn iteration_cost(cost_usd: Option<f64>, kind: CostKind) -> String {
    match (cost_usd, kind) {
        (None, _) => "cost unknown".to_owned(),
        (Some(c), CostKind::Reported) => format_usd(c),
        (Some(c), CostKind::Estimated) => format!("~{} (estimated)", format_usd(c)),
        (Some(c), CostKind::Unknown) => format!("at least {} (partly unknown)", format_usd(c)),
    }
}

/// A run's cost so far: exact, or a lower bound when some iteration reported none; an
/// estimate (`~`) when some iteration's cost is ralph's.
pub(crate) fn total_cost(totals: &Totals) -> String {
    let usd = format_usd(totals.cost_usd);
    match (totals.cost_complete, totals.cost_estimated) {
        (true, false) => usd,
        (true, true) => format!("~{usd} ({ESTIMATES_NOTE})"),
        (false, _) if totals.cost_usd == 0.0 => "cost unknown".to_owned(),
        (false, false) => format!("at least {usd} (some costs unknown)"),
        (false, true) => format!("at least ~{usd} (some costs unknown; {ESTIMATES_NOTE})"),
    }
}

/// A duration in milliseconds, for people.
pub(crate) fn duration_ms(ms: u64) -> String {
    format_duration(Duration::from_millis(ms))
}

/// A run time as a clock: `0:07`, `4:12`, `1:04:12`.
pub(crate) fn clock(ms: u64) -> String {
    let secs = ms / 1000;
    let (h, m, s) = (secs / 3600, (secs % 3600) / 60, secs % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// `1 turn`, `2 turns`, `12,345 tokens`.
pub(crate) fn count(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{} {many}", thousands(n))
    }
}

#[cfg(test)]
#[path = "figures_tests.rs"]
mod tests;
