//! Provider limits: waited out without counting, backoff, runtime, and `fail`.

use pretty_assertions::assert_eq;

use super::super::test_support::*;
use super::super::*;
use crate::config::{RateLimitConfig, RateLimitPolicy};
use ralph_stream::CostKind;

fn limited(resets_at: Option<u64>) -> IterationReport {
    report(
        IterationOutcome::RateLimited {
            message: "429 rate limit".into(),
            resets_at,
        },
        &[],
    )
}

#[test]
fn a_limited_iteration_is_not_counted_and_runs_again_after_the_wait() {
    let mut m = Machine::new(limits(solo(), |l| l.max_iterations = 2));
    let first = run(&mut m);
    m.finish(first.clone(), limited(None), S);
    assert_eq!(m.state().iterations, 0);
    assert_eq!(m.state().consecutive_failures, 0);
    // The attempt ended at 3 s (Unix time, in these reports).
    assert_eq!(
        m.rate_limit_wait(DEFAULT_HAT, 3_000, S),
        BackendWait::Wait(RateLimitWait {
            wait: 60 * S,
            resets_at: None,
            message: "429 rate limit".into(),
        })
    );
    let again = run(&mut m);
    assert_eq!((again.number, again.events.clone()), (1, first.events));
    assert_eq!(m.state().activations[DEFAULT_HAT], 1);
    // A second limit in a row doubles the wait; a reset time given is waited for.
    m.finish(again, limited(None), S);
    assert_eq!(wait_for(&mut m, DEFAULT_HAT, 3), Some(120 * S));
    let third = run(&mut m);
    m.finish(third, limited(Some(1_100)), S);
    assert_eq!(
        wait_for(&mut m, DEFAULT_HAT, 1_000),
        Some(100 * S + RESET_SLACK)
    );
    // Once an iteration gets through, the streak is over.
    let fourth = run(&mut m);
    m.finish(fourth, ok(&[]), S);
    assert_eq!(
        (m.state().rate_limit.clone(), m.state().iterations),
        (None, 1)
    );
    assert_eq!(
        m.rate_limit_wait(DEFAULT_HAT, 1_000_000, S),
        BackendWait::Free
    );
}

#[test]
fn a_wait_past_the_runtime_limit_ends_the_loop_saying_until_when() {
    let mut m = Machine::new(limits(solo(), |l| l.max_runtime = 30 * S));
    let it = run(&mut m);
    m.finish(it, limited(Some(1_795_680_000)), S);
    assert_eq!(
        m.rate_limit_wait(DEFAULT_HAT, 1_795_676_000_000, S),
        BackendWait::PastRuntime
    );
    let reason = stop(&mut m);
    assert_eq!(reason, StopReason::MaxRuntime { limit_secs: 30 });
    assert!(
        verdict(&reason, m.state()).ends_with("; rate limited until 2026-11-26 08:00 UTC"),
        "{}",
        verdict(&reason, m.state())
    );
}

#[test]
fn with_fail_a_limit_is_a_failed_iteration() {
    let mut m = failing_on_limits_stopping_after(2);
    for _ in 0..2 {
        let it = run(&mut m);
        m.finish(it, limited(None), S);
        assert_eq!(m.rate_limit_wait(DEFAULT_HAT, 0, S), BackendWait::Free);
    }
    assert_eq!(m.state().iterations, 2);
    // The hat's table counts them as the stop does.
    assert_eq!(m.state().hats[DEFAULT_HAT].failures, 2);
    assert_eq!(
        stop(&mut m),
        StopReason::ConsecutiveFailures { failures: 2 }
    );
}

#[test]
fn a_limited_run_never_completes() {
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    let report = IterationReport {
        final_text: Some(PROMISE.into()),
        ..report(
            IterationOutcome::RateLimited {
                message: "429".into(),
                resets_at: None,
            },
            &[ev(PROMISE)],
        )
    };
    let record = m.finish(it, report, S);
    assert_eq!(record.completion, None);
}

#[test]
fn a_limited_attempt_run_again_is_not_one_of_its_hats_iterations_but_its_cost_counts() {
    let mut m = Machine::new(solo());
    let first = run(&mut m);
    m.finish(first, limited(None), S);
    let again = run(&mut m);
    m.finish(again, ok(&[]), S);
    let hat = &m.state().hats[DEFAULT_HAT];
    // Both attempts' cost (0.5 each), one iteration, as the run counts it.
    assert_eq!(
        (hat.iterations, hat.spend.cost_usd, m.state().iterations),
        (1, 1.0, 1)
    );
    // With `fail` the limited attempt is an iteration of its hat like any.
    let mut m = failing_on_limits();
    let it = run(&mut m);
    m.finish(it, limited(None), S);
    assert_eq!(m.state().hats[DEFAULT_HAT].iterations, 1);
}

#[test]
fn a_limited_attempt_gets_its_events_again_without_a_hand_over_notice() {
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    m.take_notices();
    m.finish(it, limited(None), S);
    assert_eq!(m.take_notices(), []);
    // Its events are still queued for the next attempt.
    assert_eq!(run(&mut m).events, [ev(crate::topic::TASK_START)]);
}

#[test]
fn the_waits_are_counted_with_the_time_waited() {
    let mut m = Machine::new(solo());
    assert!(m.state().rate_limit_tally.is_empty());
    m.waited(60 * S);
    m.waited(S / 2);
    assert_eq!(
        m.state().rate_limit_tally,
        RateLimitTally {
            waits: 2,
            waited_ms: 60_500,
            failovers: 0
        }
    );
}

#[test]
fn the_state_counts_the_attempts_of_the_next_iteration_that_run_again() {
    let run_again = |m: &Machine| m.state().rate_limit.as_ref().map(|l| l.run_again);
    let mut m = Machine::new(solo());
    assert_eq!(m.attempt(), 1);
    for n in 1..=2 {
        let it = run(&mut m);
        assert_eq!((it.number, m.attempt()), (1, n));
        m.finish(it, limited(None), S);
        assert_eq!(run_again(&m), Some(n));
    }
    let it = run(&mut m);
    assert_eq!((it.number, m.attempt()), (1, 3));
    m.finish(it, ok(&[]), S);
    assert_eq!(run_again(&m), None);
    let it = run(&mut m);
    assert_eq!((it.number, m.attempt()), (2, 1));
    // With `fail` the limited attempt is counted: none runs again.
    let mut m = failing_on_limits();
    let it = run(&mut m);
    m.finish(it, limited(None), S);
    assert_eq!(run_again(&m), Some(0));
    let it = run(&mut m);
    assert_eq!((it.number, m.attempt()), (2, 1));
}

#[test]
fn a_limit_before_any_turn_spent_nothing_rather_than_an_unknown_cost() {
    let mut m = Machine::new(limits(solo(), |l| l.max_cost_usd = Some(10.0)));
    let mut refused = limited(None);
    refused.usage = Usage {
        cost_kind: ralph_stream::CostKind::Unknown,
        ..Usage::default()
    };
    let it = run(&mut m);
    m.finish(it, refused, S);
    let again = run(&mut m);
    m.finish(again, ok(&[]), S);
    // The hat's one iteration was priced: its cost is known, and no budget warning.
    assert_eq!(
        (
            m.state().spend.unpriced_iterations,
            m.state().hats[DEFAULT_HAT].spend.unpriced_iterations
        ),
        (0, 0)
    );
    assert!(
        !m.take_notices()
            .iter()
            .any(|n| matches!(n, Notice::CostUnknown { .. }))
    );
}

/// One hat whose rate limits count as failed iterations (`on_rate_limit: fail`).
fn failing_on_limits() -> Machine {
    Machine::new(failing_rules(solo()))
}

/// [`failing_on_limits`], stopping after `failures` failed iterations in a row.
fn failing_on_limits_stopping_after(failures: u32) -> Machine {
    Machine::new(failing_rules(limits(solo(), |l| {
        l.max_consecutive_failures = failures;
    })))
}

/// `rules` with rate limits counted as failed iterations.
fn failing_rules(rules: Rules) -> Rules {
    Rules {
        rate_limits: RateLimitConfig {
            policy: RateLimitPolicy::Fail,
            wait: S,
            fallback: Vec::new(),
        },
        ..rules
    }
}

/// A limited attempt that emitted `emitted` first, ended at 3 s (Unix time).
fn limited_after(emitted: &[Event], resets_at: Option<u64>) -> IterationReport {
    IterationReport {
        inbox: lines(emitted),
        ..limited(resets_at)
    }
}

#[test]
fn a_limited_attempt_that_handed_over_ends_its_iteration_and_only_its_backend_waits() {
    let mut m = Machine::new(three_hats());
    let planner = run(&mut m);
    m.finish(planner, limited_after(&[ev("plan.ready")], Some(500)), S);
    // Its work is done and handed over: one iteration of the planner, its cost counted.
    let hat = &m.state().hats["planner"];
    assert_eq!(
        (m.state().iterations, hat.iterations, hat.spend.cost_usd),
        (1, 1, 0.5)
    );
    // The builder's backend is not limited: it starts at once, a new iteration.
    assert_eq!(m.rate_limit_wait("builder", 3_000, S), BackendWait::Free);
    let builder = run(&mut m);
    assert_eq!(
        (builder.hat.as_str(), builder.number, m.attempt()),
        ("builder", 2, 1)
    );
    m.finish(builder, ok(&[ev("build.done")]), S);
    // The planner's backend is still limited: its next iteration waits for the reset.
    assert_eq!(wait_for(&mut m, "planner", 3), Some(497 * S + RESET_SLACK));
    assert_eq!(run(&mut m).number, 3);
}

#[test]
fn attempts_that_hand_over_before_their_limit_count_toward_max_iterations() {
    let mut m = Machine::new(limits(solo(), |l| l.max_iterations = 2));
    for n in 1..=2 {
        let it = run(&mut m);
        assert_eq!((it.number, m.attempt()), (n, 1));
        m.finish(it, limited_after(&[ev("progress")], Some(0)), S);
    }
    assert_eq!(stop(&mut m), StopReason::MaxIterations { limit: 2 });
}

#[test]
fn a_limited_attempt_that_only_emitted_the_promise_runs_again() {
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    m.finish(it, limited_after(&[ev(PROMISE)], None), S);
    assert_eq!((m.state().iterations, m.attempt()), (0, 2));
}

#[test]
fn a_reset_time_that_keeps_being_past_backs_off_like_limits_without_one() {
    let mut m = Machine::new(solo());
    // The attempt ends at 3 s; the agent says its limit reset at 0 each time.
    let mut waits = Vec::new();
    for _ in 0..4 {
        let it = run(&mut m);
        m.finish(it, limited(Some(0)), S);
        waits.push(wait_for(&mut m, DEFAULT_HAT, 3));
    }
    // The first trusts the reset time (plus the slack); then the backoff: 60 s, doubling.
    assert_eq!(
        waits,
        [
            Some(RESET_SLACK),
            Some(60 * S),
            Some(120 * S),
            Some(240 * S)
        ]
    );
    // A reset time later than the backoff is still waited for.
    let it = run(&mut m);
    m.finish(it, limited(Some(1_000)), S);
    assert_eq!(
        wait_for(&mut m, DEFAULT_HAT, 3),
        Some(997 * S + RESET_SLACK)
    );
}

#[test]
fn a_wait_not_started_says_when_the_next_attempt_was_due_when_that_is_not_the_reset() {
    let ended_at = |resets: &[Option<u64>]| {
        let mut m = Machine::new(limits(solo(), |l| l.max_runtime = 30 * S));
        let mut last = BackendWait::Free;
        for &resets_at in resets {
            let it = run(&mut m);
            m.finish(it, limited(resets_at), S);
            // The attempt ends at 3 s.
            last = m.rate_limit_wait(DEFAULT_HAT, 3_000, S);
        }
        assert_eq!(last, BackendWait::PastRuntime);
        verdict(&stop(&mut m), m.state())
    };
    // No reset time: the backoff's end is the only time known.
    assert!(
        ended_at(&[None])
            .ends_with("; still rate limited (the next attempt was due at 1970-01-01 00:01 UTC)"),
        "{}",
        ended_at(&[None])
    );
    // A reset time already past twice in a row: the backoff outlasts it.
    assert!(
        ended_at(&[Some(0), Some(0)]).ends_with(
            "; rate limited until 1970-01-01 00:00 UTC (the next attempt was due at 1970-01-01 \
             00:01 UTC)"
        ),
        "{}",
        ended_at(&[Some(0), Some(0)])
    );
}

fn limited_by(message: &str, resets_at: Option<u64>) -> IterationReport {
    report(
        IterationOutcome::RateLimited {
            message: message.into(),
            resets_at,
        },
        &[],
    )
}

const OVERLOADED: &str = "529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}";

#[test]
fn an_overload_is_waited_for_so_many_times_then_each_counts_as_a_failure() {
    let mut m = Machine::new(limits(solo(), |l| l.max_consecutive_failures = 2));
    // Waited for, backing off as for any limit, and not counted.
    let mut waits = Vec::new();
    for _ in 0..OVERLOAD_WAITS {
        let it = run(&mut m);
        m.finish(it, limited_by(OVERLOADED, None), S);
        waits.push(wait_for(&mut m, DEFAULT_HAT, 3));
    }
    assert_eq!(waits, [Some(60 * S), Some(120 * S), Some(240 * S)]);
    assert_eq!(
        (m.state().iterations, m.state().consecutive_failures),
        (0, 0)
    );
    // The next overload in a row fails: counted, its events back in the queue, and its
    // backend rests only the first backoff.
    let it = run(&mut m);
    assert_eq!(it.number, 1);
    m.finish(it, limited_by(OVERLOADED, None), S);
    assert_eq!(
        (m.state().iterations, m.state().consecutive_failures),
        (1, 1)
    );
    assert_eq!(wait_for(&mut m, DEFAULT_HAT, 3), Some(60 * S));
    let it = run(&mut m);
    assert_eq!(it.number, 2);
    m.finish(it, limited_by(OVERLOADED, None), S);
    let reason = stop(&mut m);
    assert_eq!(reason, StopReason::ConsecutiveFailures { failures: 2 });
    let said = verdict(&reason, m.state());
    assert!(
        said.contains(&format!(
            "; overloaded 5 times in a row: past the first {OVERLOAD_WAITS}, each overload \
             counts as a failure"
        )),
        "{said}"
    );
}

#[test]
fn rate_limits_are_waited_for_however_many_come_in_a_row() {
    let mut m = Machine::new(limits(solo(), |l| l.max_consecutive_failures = 1));
    // A 429, and an overload that says when it ends, are limits that pass; a 429 between
    // overloads starts their count again.
    let reports = [
        limited_by(OVERLOADED, None),
        limited_by(OVERLOADED, None),
        limited_by(OVERLOADED, None),
        limited(None),
        limited_by(OVERLOADED, None),
        limited_by("API Error: 529 Overloaded", Some(10)),
        limited(Some(10)),
        limited(None),
        limited_by(OVERLOADED, None),
        limited_by(OVERLOADED, None),
        limited_by(OVERLOADED, None),
    ];
    for report in reports {
        let it = run(&mut m);
        m.finish(it, report, S);
    }
    assert_eq!(
        (m.state().iterations, m.state().consecutive_failures),
        (0, 0)
    );
    assert_eq!(m.state().rate_limit.as_ref().map(|s| s.overloads), Some(3));
    assert!(matches!(m.next(S), Next::Run(_)));
}

#[test]
fn with_fail_an_overload_fails_at_once_and_says_only_its_message() {
    let mut m = failing_on_limits_stopping_after(1);
    let it = run(&mut m);
    m.finish(it, limited_by(OVERLOADED, None), S);
    let reason = stop(&mut m);
    assert_eq!(
        verdict(&reason, m.state()),
        format!("1 iteration failed (rate limited: {OVERLOADED})")
    );
}

#[test]
fn a_limited_attempt_that_reported_no_cost_is_counted_as_an_attempt() {
    // The limited attempt's model answered (billed) without a cost; the iteration that
    // ran again reported its own. The run's cost note and the hat's then say attempts.
    let mut m = Machine::new(solo());
    let mut attempt = limited(None);
    attempt.usage.cost_usd = None;
    attempt.usage.cost_kind = CostKind::Unknown;
    attempt.usage.answered = true;
    let first = run(&mut m);
    m.finish(first, attempt, S);
    let again = run(&mut m);
    m.finish(again, ok(&[]), S);
    let s = m.state();
    let hat = &s.hats[DEFAULT_HAT];
    assert_eq!(
        (
            s.iterations,
            s.spend.unpriced_iterations,
            s.spend.unpriced_attempts
        ),
        (1, 1, 1)
    );
    let run_cost = crate::summary::spent(&s.spend, s.iterations);
    assert_eq!(run_cost, crate::summary::spent(&hat.spend, hat.iterations));
    assert!(
        run_cost.ends_with("(1 attempt reported no cost)"),
        "{run_cost}"
    );
}
