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
    let totals = |cost_usd, cost_complete, cost_estimated| Totals {
        iterations: 2,
        elapsed_ms: 0,
        cost_usd,
        cost_complete,
        cost_estimated,
        tokens_complete: true,
        tokens: Tokens::default(),
    };
    assert_eq!(
        [
            total_cost(&totals(1.25, true, false)),
            total_cost(&totals(1.25, false, false)),
            total_cost(&totals(0.0, false, false)),
            // A total with an estimate in it is one.
            total_cost(&totals(1.25, true, true)),
            total_cost(&totals(1.25, false, true)),
        ],
        [
            "$1.2500",
            "at least $1.2500 (some costs unknown)",
            "cost unknown",
            "~$1.2500 (includes estimates)",
            "at least ~$1.2500 (some costs unknown; includes estimates)",
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

#[test]
fn only_an_attempt_after_the_first_is_named() {
    assert_eq!(
        [0, 1, 2, 12].map(attempt_part),
        ["", "", " · attempt 2", " · attempt 12"].map(String::from)
    );
}
