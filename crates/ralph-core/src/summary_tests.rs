use std::collections::BTreeMap;

use super::*;
use crate::event::Event;
use crate::machine::{CompletionSignal, HatTotals, RateLimitTally};
use crate::run_event::round_usd;

#[test]
fn numbers_get_thousands_separators() {
    let shown: Vec<_> = [0, 999, 1000, 1_234_567].map(thousands).to_vec();
    assert_eq!(shown, vec!["0", "999", "1,000", "1,234,567"]);
}

#[test]
fn a_summary_says_why_the_run_stopped_and_what_each_hat_did() {
    let tokens = Tokens {
        input: 12_000,
        output: 800,
        cache_read: 4000,
        cache_write: 200,
    };
    let state = LoopState {
        iterations: 3,
        runtime_ms: 133_000,
        spend: Spend {
            cost_usd: 0.0423,
            tokens,
            ..Spend::default()
        },
        pending: [Event::with_text("review.rejected", "tests fail\nsee log")].into(),
        hats: BTreeMap::from([
            (
                "planner".to_owned(),
                HatTotals {
                    iterations: 1,
                    failures: 0,
                    duration_ms: 12_000,
                    spend: Spend {
                        cost_usd: 0.01,
                        tokens,
                        ..Spend::default()
                    },
                },
            ),
            (
                "builder".to_owned(),
                HatTotals {
                    iterations: 2,
                    failures: 1,
                    duration_ms: 121_000,
                    spend: Spend {
                        cost_usd: 0.0323,
                        unpriced_iterations: 1,
                        tokens,
                        ..Spend::default()
                    },
                },
            ),
        ]),
        ..LoopState::default()
    };
    let reason = StopReason::Completed {
        promise: "LOOP_COMPLETE".into(),
        signal: CompletionSignal::Event,
    };
    let text = render_summary(&SummaryInput {
        run_id: "20261126T101500Z",
        objective: "Add a flag.\n\nDetails:\n- one\n- two\n",
        reason: &reason,
        state: &state,
        max_iterations: 100,
        hats: &[
            ("planner", "Planner"),
            ("builder", "Builder"),
            ("reviewer", "Reviewer"),
        ],
        steering: SteerTally::default(),
    });
    assert_eq!(
            text,
            "# ralph run 20261126T101500Z

**Stopped:** completed: the agent emitted LOOP_COMPLETE

| | |
|---|---|
| Iterations | 3 of 100 |
| Time | 2m 13s |
| Cost | $0.0423 |
| Tokens | 17,000 (input 12,000, output 800, cache read 4,000, cache write 200) |

## Task

> Add a flag.
> Details:
> - one
> …

## Hats

| Hat | Iterations | Failed | Time | Cost | Tokens |
|---|---:|---:|---:|---:|---:|
| Planner | 1 | 0 | 12.0s | $0.0100 | 17,000 |
| Builder | 2 | 1 | 2m 01s | at least $0.0323 (1 iteration reported no cost) | 17,000 |
| Reviewer | 0 | 0 | - | - | - |

## Left in the queue

The task was declared complete while these events still waited for a hat; no iteration handled them.

- `review.rejected`: tests fail

Every iteration is recorded in `history.jsonl` next to this file. The task is complete; `ralph run` starts a new run.
"
        );
    // Stopped by a limit, the same run lists what is left and how to go on.
    let text = limited_summary(&state);
    assert!(
        text.ends_with(
            "## Pending events\n\n- `review.rejected`: tests fail\n\nEvery iteration is recorded \
             in `history.jsonl` next to this file; `ralph run --continue` resumes the run.\n"
        ),
        "{text}"
    );
}

#[test]
fn steering_is_counted_in_the_table_only_when_there_was_some() {
    let state = LoopState::default();
    let input = |steering| interrupted_summary(&state, steering);
    assert!(!input(SteerTally::default()).contains("Steering"));
    let text = input(SteerTally {
        received: 4,
        mid_turn: 1,
        in_prompt: 2,
        pending: 1,
    });
    assert!(
        text.contains(
            "| Steering | 4 messages: 1 delivered mid-turn, 2 in prompts, 1 still queued |\n"
        ),
        "{text}"
    );
}

#[test]
fn the_waits_for_provider_limits_and_failovers_are_counted_only_when_there_were_some() {
    let summary = |tally: RateLimitTally| {
        let state = LoopState {
            rate_limit_tally: tally,
            ..LoopState::default()
        };
        interrupted_summary(&state, SteerTally::default())
    };
    assert!(!summary(RateLimitTally::default()).contains("Rate limits"));
    let cases = [
        ((1, 30_000, 0), "| Rate limits | 1 wait of 30.0s |\n"),
        (
            (3, 252_000, 2),
            "| Rate limits | 3 waits, 4m 12s in all; 2 failovers |\n",
        ),
        ((0, 0, 1), "| Rate limits | 1 failover |\n"),
    ];
    for ((waits, waited_ms, failovers), line) in cases {
        let text = summary(RateLimitTally {
            waits,
            waited_ms,
            failovers,
        });
        assert!(text.contains(line), "{text}");
    }
}

/// The summary of a hatless run stopped in `state` by its iteration limit.
fn limited_summary(state: &LoopState) -> String {
    render_summary(&SummaryInput {
        run_id: "20261126T101500Z",
        objective: "Add a flag.",
        reason: &StopReason::MaxIterations { limit: 3 },
        state,
        max_iterations: 3,
        hats: &[],
        steering: SteerTally::default(),
    })
}

/// The summary of a hatless run of task `t` interrupted in `state`.
fn interrupted_summary(state: &LoopState, steering: SteerTally) -> String {
    render_summary(&SummaryInput {
        run_id: "r",
        objective: "t",
        reason: &StopReason::Interrupted,
        state,
        max_iterations: 3,
        hats: &[],
        steering,
    })
}

#[test]
fn a_cost_counts_the_iterations_that_reported_none_in_words() {
    // (cost, unpriced, of them attempts, iterations): what the summary says.
    let cases = [
        ((0.5, 0, 0, 3), "$0.5000"),
        (
            (0.5, 1, 0, 3),
            "at least $0.5000 (1 iteration reported no cost)",
        ),
        (
            (0.5, 2, 0, 3),
            "at least $0.5000 (2 iterations reported no cost)",
        ),
        ((0.0, 3, 0, 3), "unknown (the agent reported no cost)"),
        // Limited attempts count among the unpriced, not among the iterations: a cost
        // one of them reported is still a lower bound, not "unknown".
        (
            (0.007, 2, 0, 1),
            "at least $0.0070 (2 attempts reported no cost)",
        ),
        ((0.0, 2, 0, 1), "unknown (the agent reported no cost)"),
        // Two iterations that reported a cost and two limited attempts that did not:
        // the note says attempts, as the hat's row does.
        (
            (0.08, 2, 2, 2),
            "at least $0.0800 (2 attempts reported no cost)",
        ),
        (
            (0.08, 1, 1, 2),
            "at least $0.0800 (1 attempt reported no cost)",
        ),
    ];
    for ((usd, unpriced, attempts, iterations), said) in cases {
        let spend = Spend {
            cost_usd: usd,
            unpriced_iterations: unpriced,
            unpriced_attempts: attempts,
            ..Spend::default()
        };
        assert_eq!(spent(&spend, iterations), said);
    }
}

#[test]
fn a_cost_tells_iterations_that_reported_none_from_those_that_reported_a_part() {
    // (cost, unpriced, of them partly priced, iterations): what the summary says.
    let cases = [
        (
            (0.5, 1, 1, 3),
            "at least $0.5000 (1 iteration reported only part of its cost)",
        ),
        (
            (0.5, 2, 2, 3),
            "at least $0.5000 (2 iterations reported only part of their cost)",
        ),
        (
            (0.5, 3, 1, 3),
            "at least $0.5000 (2 iterations reported no cost; 1 iteration reported only \
             part of its cost)",
        ),
        // All of them partly priced: the parts are a lower bound, not "unknown".
        (
            (0.5, 3, 3, 3),
            "at least $0.5000 (3 iterations reported only part of their cost)",
        ),
    ];
    for ((usd, unpriced, partly, iterations), said) in cases {
        let spend = Spend {
            cost_usd: usd,
            unpriced_iterations: unpriced,
            partly_priced_iterations: partly,
            ..Spend::default()
        };
        assert_eq!(spent(&spend, iterations), said);
    }
}

#[test]
fn a_run_cost_that_includes_an_estimate_says_so() {
    // Codex's estimate beside pi's reported cost: the sum is an estimate.
    let mut state = LoopState {
        iterations: 2,
        spend: Spend {
            cost_usd: 0.0381,
            estimated_iterations: 1,
            ..Spend::default()
        },
        ..LoopState::default()
    };
    state.hats.insert(
        DEFAULT_HAT.to_owned(),
        HatTotals {
            iterations: 2,
            spend: Spend {
                cost_usd: 0.0381,
                estimated_iterations: 1,
                ..Spend::default()
            },
            ..HatTotals::default()
        },
    );
    let text = limited_summary(&state);
    assert!(
        text.contains("| Cost | ~$0.0381 (includes estimates) |"),
        "{text}"
    );
    assert!(text.contains("| ~$0.0381 (includes estimates) |"), "{text}");
    // With a cost nobody reported too, it is a lower bound of an estimate.
    state.spend.unpriced_iterations = 1;
    state.iterations = 3;
    assert!(
        limited_summary(&state).contains(
            "| Cost | at least ~$0.0381 (1 iteration reported no cost; includes estimates) |"
        ),
        "{}",
        limited_summary(&state)
    );
}

#[test]
fn a_long_queue_is_listed_in_part_each_payload_cut_short() {
    let mut state = LoopState::default();
    for i in 0..PENDING_SHOWN + 5 {
        state
            .pending
            .push_back(Event::with_text(format!("t{i}"), "x".repeat(65_000)));
    }
    let text = limited_summary(&state);
    assert!(text.len() < 10_000, "{} bytes", text.len());
    let shown = format!("- `t0`: {}…\n", "x".repeat(PAYLOAD_SHOWN_CHARS));
    assert!(text.contains(&shown), "{text}");
    assert!(!text.contains("`t20`"), "{text}");
    assert!(text.contains("- and 5 more ("), "{text}");
}

#[test]
fn tokens_no_agent_counted_are_unknown_and_a_partial_count_says_at_least() {
    let mut state = LoopState {
        iterations: 2,
        spend: Spend {
            uncounted_iterations: 2,
            ..Spend::default()
        },
        ..LoopState::default()
    };
    assert!(limited_summary(&state).contains("| Tokens | unknown |"));
    state.spend.uncounted_iterations = 1;
    state.spend.tokens.input = 1_500;
    assert!(
        limited_summary(&state).contains(
            "| Tokens | at least 1,500 (input 1,500, output 0, cache read 0, cache write 0) |"
        ),
        "{}",
        limited_summary(&state)
    );
}

#[test]
fn a_cost_shows_as_the_run_files_store_it() {
    // 0.012 + 0.01095 is 0.022949999… in memory and 0.02295 in the run's files: every
    // view rounds it as the files do, so summary.md and `ralph runs` say the same.
    let cost = |cost_usd| {
        let spend = Spend {
            cost_usd,
            ..Spend::default()
        };
        spent(&spend, 2)
    };
    assert_eq!(cost(0.012 + 0.01095), "$0.0230");
    assert_eq!(cost(round_usd(0.012 + 0.01095)), "$0.0230");
}
