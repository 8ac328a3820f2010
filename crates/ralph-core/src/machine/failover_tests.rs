//! `on_rate_limit: failover`: the next attempt runs on the next backend that is not
//! limited, the primary again once its limit is over, and a wait when all are limited.

use pretty_assertions::assert_eq;

use super::super::test_support::*;
use super::super::*;
use crate::config::{HatBackend, RateLimitPolicy};
use ralph_types::BackendKind;

/// `cli.fallback` with `n` backends, and `on_rate_limit: failover`.
fn failover(mut rules: Rules, n: usize) -> Rules {
    rules.rate_limits.policy = RateLimitPolicy::Failover;
    rules.rate_limits.fallback = vec![
        HatBackend::Builtin {
            kind: BackendKind::Claude,
            command: None,
            args: vec![],
        };
        n
    ];
    rules
}

/// A report of an attempt on backend `fallback` that ended at `end` (Unix seconds).
fn attempt(outcome: IterationOutcome, fallback: u32, end: u64) -> IterationReport {
    IterationReport {
        fallback,
        started_at_ms: (end - 2) * 1000,
        ..report(outcome, &[])
    }
}

fn limited(resets_at: Option<u64>, fallback: u32, end: u64) -> IterationReport {
    let outcome = IterationOutcome::RateLimited {
        message: "429".into(),
        resets_at,
    };
    attempt(outcome, fallback, end)
}

fn pick(fallback: u32, switched_from: Option<u32>) -> BackendPick {
    BackendPick {
        fallback,
        switched_from,
    }
}

#[test]
fn a_limit_fails_over_at_once_and_the_primary_comes_back_after_its_backoff() {
    let mut m = Machine::new(failover(solo(), 1));
    assert_eq!(m.pick_backend(DEFAULT_HAT, 1_000), pick(0, None));
    let it = run(&mut m);
    m.finish(it, limited(None, 0, 1_000), S);
    // No wait: the fallback is free. The attempt is not counted.
    assert_eq!(
        m.rate_limit_wait(DEFAULT_HAT, 1_000_000, S),
        BackendWait::Free
    );
    assert_eq!(m.state().iterations, 0);
    assert_eq!(m.pick_backend(DEFAULT_HAT, 1_000), pick(1, Some(0)));
    let again = run(&mut m);
    assert_eq!(again.number, 1);
    let record = m.finish(again, attempt(IterationOutcome::Succeeded, 1, 1_010), S);
    assert_eq!(
        (
            record.fallback,
            m.state().iterations,
            m.state().activations[DEFAULT_HAT]
        ),
        (Some(1), 1, 1)
    );
    // The primary's backoff (60 s from 1000) is not over at 1030: the fallback stays.
    assert_eq!(m.pick_backend(DEFAULT_HAT, 1_030), pick(1, None));
    let third = run(&mut m);
    m.finish(third, attempt(IterationOutcome::Succeeded, 1, 1_040), S);
    // Over at 1060: back to the primary, said as a switch.
    assert_eq!(m.pick_backend(DEFAULT_HAT, 1_060), pick(0, Some(1)));
    let fourth = run(&mut m);
    let record = m.finish(fourth, attempt(IterationOutcome::Succeeded, 0, 1_070), S);
    assert_eq!(record.fallback, None);
    assert_eq!(m.pick_backend(DEFAULT_HAT, 1_080), pick(0, None));
    assert!(m.state().backend_limits.is_empty());
    // One failover for the summary: coming back to the primary is not one.
    assert_eq!(
        m.state().rate_limit_tally,
        RateLimitTally {
            waits: 0,
            waited_ms: 0,
            failovers: 1
        }
    );
}

#[test]
fn a_reset_time_given_is_when_the_primary_comes_back() {
    let mut m = Machine::new(failover(solo(), 1));
    let it = run(&mut m);
    m.finish(it, limited(Some(1_500), 0, 1_000), S);
    assert_eq!(m.pick_backend(DEFAULT_HAT, 1_501), pick(1, Some(0)));
    let slack = RESET_SLACK.as_secs();
    assert_eq!(m.pick_backend(DEFAULT_HAT, 1_500 + slack), pick(0, None));
}

#[test]
fn a_reset_time_at_the_end_of_time_keeps_the_backend_limited() {
    // The agent's number: `u64::MAX` plus the slack once wrapped to a time long past,
    // so the limited backend ran again at once, thousands of times a minute.
    let mut m = Machine::new(failover(solo(), 1));
    let it = run(&mut m);
    m.finish(it, limited(Some(u64::MAX), 0, 1_000), S);
    assert_eq!(m.pick_backend(DEFAULT_HAT, 1_001), pick(1, Some(0)));
    assert_eq!(m.pick_backend(DEFAULT_HAT, 1_000_000_000).fallback, 1);
}

#[test]
fn a_reset_time_already_past_still_rests_the_backend_for_the_slack() {
    let mut m = Machine::new(failover(solo(), 1));
    let it = run(&mut m);
    m.finish(it, limited(Some(900), 0, 1_000), S);
    assert_eq!(m.pick_backend(DEFAULT_HAT, 1_000).fallback, 1);
    let slack = RESET_SLACK.as_secs();
    assert_eq!(m.pick_backend(DEFAULT_HAT, 1_000 + slack).fallback, 0);
}

#[test]
fn when_every_backend_is_limited_the_loop_waits_for_the_first_free() {
    let mut m = Machine::new(failover(solo(), 2));
    let it = run(&mut m);
    m.finish(it, limited(Some(1_300), 0, 1_000), S);
    assert_eq!(m.pick_backend(DEFAULT_HAT, 1_000).fallback, 1);
    let it = run(&mut m);
    m.finish(it, limited(Some(1_200), 1, 1_010), S);
    assert_eq!(
        m.rate_limit_wait(DEFAULT_HAT, 1_010_000, S),
        BackendWait::Free
    );
    assert_eq!(m.pick_backend(DEFAULT_HAT, 1_010).fallback, 2);
    let it = run(&mut m);
    // No reset time for the last one: the backoff of a third limit in a row (240 s).
    m.finish(it, limited(None, 2, 1_020), S);
    let slack = RESET_SLACK.as_secs();
    assert_eq!(
        m.rate_limit_wait(DEFAULT_HAT, 1_020_000, S),
        BackendWait::Wait(RateLimitWait {
            wait: S * u32::try_from(1_200 + slack - 1_020).unwrap(),
            resets_at: Some(1_200),
            message: "429".into(),
        })
    );
    // After that wait, fallback 1 is free again, the primary still not.
    assert_eq!(m.pick_backend(DEFAULT_HAT, 1_200 + slack), pick(1, Some(2)));
    assert_eq!(m.state().iterations, 0);
}

#[test]
fn a_wait_for_the_first_free_backend_stops_at_the_runtime_limit() {
    let mut m = Machine::new(limits(failover(solo(), 0), |l| l.max_runtime = 30 * S));
    let it = run(&mut m);
    m.finish(it, limited(Some(1_795_680_000), 0, 1_795_676_000), S);
    assert_eq!(
        m.rate_limit_wait(DEFAULT_HAT, 1_795_676_000_000, S),
        BackendWait::PastRuntime
    );
    let reason = stop(&mut m);
    assert_eq!(reason, StopReason::MaxRuntime { limit_secs: 30 });
    assert!(verdict(&reason, m.state()).ends_with("; rate limited until 2026-11-26 08:00 UTC"));
}

#[test]
fn a_hats_own_policy_and_fallback_override_clis() {
    let mut rules = three_hats();
    rules.hats[0].on_rate_limit = Some(RateLimitPolicy::Failover);
    rules.hats[0].fallbacks = Some(1);
    rules.hats[1].on_rate_limit = Some(RateLimitPolicy::Fail);
    let mut m = Machine::new(failover(rules, 3));
    assert_eq!((m.fallbacks("planner"), m.fallbacks("builder")), (1, 3));
    let planner = run(&mut m);
    m.finish(planner, limited(None, 0, 1_000), S);
    assert_eq!(m.pick_backend("planner", 1_000), pick(1, Some(0)));
    let planner = run(&mut m);
    m.finish(planner, limited(None, 1, 1_000), S);
    // Both of the planner's backends are limited: it waits for the primary's backoff
    // (60 s; the fallback's, a second limit in a row, is 120 s).
    assert_eq!(wait_for(&mut m, "planner", 1_000), Some(60 * S));
    let planner = run(&mut m);
    m.finish(
        planner,
        IterationReport {
            inbox: lines(&[ev("plan.ready")]),
            ..attempt(IterationOutcome::Succeeded, 0, 1_070)
        },
        S,
    );
    // The builder fails on a limit, and never fails over.
    let builder = run(&mut m);
    assert_eq!(builder.hat, "builder");
    m.finish(builder, limited(None, 0, 1_080), S);
    assert_eq!(
        m.rate_limit_wait("builder", 1_080_000, S),
        BackendWait::Free
    );
    assert_eq!(m.pick_backend("builder", 1_080), pick(0, None));
    assert_eq!(
        (m.state().iterations, m.state().consecutive_failures),
        (2, 1)
    );
}

#[test]
fn with_wait_the_primary_always_runs() {
    let mut m = Machine::new(Rules {
        rate_limits: crate::config::RateLimitConfig {
            policy: RateLimitPolicy::Wait,
            ..failover(solo(), 2).rate_limits
        },
        ..solo()
    });
    let it = run(&mut m);
    m.finish(it, limited(None, 0, 1_000), S);
    assert_eq!(m.pick_backend(DEFAULT_HAT, 1_000), pick(0, None));
    // The primary is limited all the same: the iteration waits for it.
    assert_eq!(wait_for(&mut m, DEFAULT_HAT, 1_000), Some(60 * S));
}

#[test]
fn a_limited_attempt_that_handed_over_is_counted_and_the_next_hat_runs_on_its_primary() {
    let mut m = Machine::new(failover(three_hats(), 1));
    let planner = run(&mut m);
    let handed = IterationReport {
        inbox: lines(&[ev("plan.ready")]),
        ..limited(None, 0, 1_000)
    };
    m.finish(planner, handed, S);
    assert_eq!((m.state().iterations, m.attempt()), (1, 1));
    // The builder's primary is not limited: no wait, no failover.
    assert_eq!(
        m.rate_limit_wait("builder", 1_000_000, S),
        BackendWait::Free
    );
    assert_eq!(m.pick_backend("builder", 1_000), pick(0, None));
    let builder = run(&mut m);
    assert_eq!((builder.hat.as_str(), builder.number), ("builder", 2));
    m.finish(builder, attempt(IterationOutcome::Succeeded, 0, 1_010), S);
    // The planner's primary is: its next iteration fails over.
    assert_eq!(m.pick_backend("planner", 1_010), pick(1, Some(0)));
}
