use super::*;

fn state(iterations: u32, cost_usd: f64, unpriced_iterations: u32) -> LoopState {
    LoopState {
        iterations,
        spend: ralph_core::machine::Spend {
            cost_usd,
            unpriced_iterations,
            ..Default::default()
        },
        ..LoopState::default()
    }
}

#[test]
fn a_cost_no_agent_reported_is_unknown_and_a_partly_reported_one_a_lower_bound() {
    let cases = [
        (state(0, 0.0, 0), (Some(0.0), true), "$0.0000"),
        (state(2, 0.0123, 0), (Some(0.0123), true), "$0.0123"),
        (
            state(3, 0.0123, 1),
            (Some(0.0123), false),
            "at least $0.0123",
        ),
        (state(2, 0.0, 2), (None, false), "unknown"),
        // One iteration after two limited attempts, none priced but one that reported
        // $0.007 before its limit: a lower bound.
        (state(1, 0.007, 2), (Some(0.007), false), "at least $0.0070"),
    ];
    for (state, want, cell) in cases {
        let got = cost(&state);
        assert_eq!(
            (got, cost_cell(got.0, got.1, false).as_str()),
            (want, cell),
            "{state:?}"
        );
    }
}

#[test]
fn a_cost_that_includes_an_estimate_is_marked() {
    assert_eq!(
        [
            cost_cell(Some(0.0123), true, true),
            cost_cell(Some(0.0123), false, true),
            cost_cell(None, false, true),
        ],
        ["~$0.0123", "at least ~$0.0123", "unknown"]
    );
}
