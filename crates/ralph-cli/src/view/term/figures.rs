//! Numbers as people read them in ralph's terminal output: costs that say how sure they
//! are, run times, counts with their nouns.

use std::time::Duration;

use ralph_core::machine::format_duration;
use ralph_core::run_event::Totals;
use ralph_core::summary::thousands;
use ralph_stream::CostKind;

/// An iteration's cost: `$0.0102`, `~$0.0102 (estimated)`, `at least $0.0102 (partly
/// unknown)` or `cost unknown`.
pub(crate) fn iteration_cost(cost_usd: Option<f64>, kind: CostKind) -> String {
    match (cost_usd, kind) {
        (None, _) => "cost unknown".to_owned(),
        (Some(c), CostKind::Reported) => format!("${c:.4}"),
        (Some(c), CostKind::Estimated) => format!("~${c:.4} (estimated)"),
        (Some(c), CostKind::Unknown) => format!("at least ${c:.4} (partly unknown)"),
    }
}

/// A run's cost so far: exact, or a lower bound when some iteration reported none.
pub(crate) fn total_cost(totals: &Totals) -> String {
    if totals.cost_complete {
        format!("${:.4}", totals.cost_usd)
    } else if totals.cost_usd == 0.0 {
        "cost unknown".to_owned()
    } else {
        format!("at least ${:.4} (some costs unknown)", totals.cost_usd)
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
mod tests {
    use ralph_stream::Tokens;

    use super::*;

    #[test]
    fn costs_say_how_sure_they_are() {
        let shown = [
            iteration_cost(Some(0.010215), CostKind::Reported),
            iteration_cost(Some(0.5), CostKind::Estimated),
            iteration_cost(Some(0.5), CostKind::Unknown),
            iteration_cost(None, CostKind::Unknown),
        ];
        assert_eq!(
            shown,
            [
                "$0.0102",
                "~$0.5000 (estimated)",
                "at least $0.5000 (partly unknown)",
                "cost unknown"
            ]
        );
        let totals = |cost_usd, cost_complete| Totals {
            iterations: 2,
            elapsed_ms: 0,
            cost_usd,
            cost_complete,
            tokens: Tokens::default(),
        };
        assert_eq!(
            [
                total_cost(&totals(1.25, true)),
                total_cost(&totals(1.25, false)),
                total_cost(&totals(0.0, false)),
            ],
            [
                "$1.2500",
                "at least $1.2500 (some costs unknown)",
                "cost unknown"
            ]
        );
    }

    #[test]
    fn clocks_and_counts_read_naturally() {
        assert_eq!(
            [0, 7_900, 252_000, 3_852_000].map(clock),
            ["0:00", "0:07", "4:12", "1:04:12"]
        );
        assert_eq!(
            [
                count(1, "turn", "turns"),
                count(2, "turn", "turns"),
                count(12_345, "token", "tokens")
            ],
            ["1 turn", "2 turns", "12,345 tokens"]
        );
    }
}
