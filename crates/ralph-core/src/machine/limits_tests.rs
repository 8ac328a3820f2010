//! Completion refused for required events, every limit, and continuing a run (the
//! completion rules themselves: `completion_tests.rs`).

use ralph_stream::{CostKind, Tokens};

use pretty_assertions::assert_eq;

use super::test_support::*;
use super::*;
use crate::event::InvalidLine;
use crate::inbox::InboxLine;

#[test]
fn completion_is_refused_until_the_required_events_were_published() {
    let rules = limits(solo(), |l| {
        l.required_events = vec!["review.approved".into(), "tests.passed".into()]
    });
    let mut m = Machine::new(rules);
    step(&mut m, ok(&[ev("tests.passed")]));
    let it = run(&mut m);
    let record = m.finish(it, ok(&[ev(PROMISE)]), S);
    assert_eq!(record.completion, None);
    assert_eq!(
        m.take_notices(),
        vec![Notice::CompletionRefused {
            missing: vec!["review.approved".into()]
        }]
    );
    let it = run(&mut m);
    assert_eq!(
        it.events,
        vec![Event::with_text(
            TASK_RESUME,
            "LOOP_COMPLETE was refused: these events must be emitted first: review.approved"
        )]
    );
    m.finish(it, ok(&[ev("review.approved"), ev(PROMISE)]), S);
    assert_eq!(stop(&mut m), completed(CompletionSignal::Event));
}

#[test]
fn completion_in_the_last_allowed_iteration_is_completion_not_a_limit() {
    let mut m = Machine::new(limits(solo(), |l| {
        l.max_iterations = 2;
        l.max_cost_usd = Some(1.0);
    }));
    step(&mut m, ok(&[]));
    // This iteration is the last allowed one, and it also spends the budget.
    step(&mut m, ok(&[ev(PROMISE)]));
    assert_eq!(stop(&mut m), completed(CompletionSignal::Event));
    assert_eq!(stop(&mut m).class(), EndClass::Completed);
}

#[test]
fn the_iteration_limit_stops_the_loop_after_the_last_iteration() {
    let mut m = Machine::new(limits(solo(), |l| l.max_iterations = 2));
    step(&mut m, ok(&[ev("a")]));
    step(&mut m, ok(&[ev("b")]));
    assert_eq!(stop(&mut m), StopReason::MaxIterations { limit: 2 });
    assert_eq!(m.state().iterations, 2);
}

#[test]
fn runtime_limit_bounds_the_iteration_and_is_reported_as_the_runtime_limit() {
    let mut m = Machine::new(limits(solo(), |l| l.max_runtime = 100 * S));
    assert_eq!(
        m.iteration_wall(60 * S, 10 * S),
        WallPlan {
            wall: 60 * S,
            cut_to_runtime: false
        }
    );
    assert_eq!(
        m.iteration_wall(60 * S, 70 * S),
        WallPlan {
            wall: 30 * S,
            cut_to_runtime: true
        }
    );
    let it = run(&mut m);
    m.finish(
        it,
        report(IterationOutcome::StoppedAtRuntimeLimit, &[]),
        100 * S,
    );
    assert_eq!(stop(&mut m), StopReason::MaxRuntime { limit_secs: 100 });
}

#[test]
fn runtime_used_up_between_iterations_stops_before_the_next_one() {
    let mut m = Machine::new(limits(solo(), |l| l.max_runtime = 100 * S));
    let it = run(&mut m);
    m.finish(it, ok(&[ev("a")]), 50 * S);
    assert!(matches!(m.next(60 * S), Next::Run(_)));
    let mut m = Machine::new(limits(solo(), |l| l.max_runtime = 100 * S));
    assert_eq!(
        m.next(100 * S),
        Next::Stop(StopReason::MaxRuntime { limit_secs: 100 })
    );
}

#[test]
fn the_budget_is_crossed_mid_iteration_and_stops_the_loop() {
    let mut m = Machine::new(limits(solo(), |l| l.max_cost_usd = Some(1.2)));
    step(&mut m, ok(&[ev("a")])); // spends 0.5
    assert_eq!(
        [
            m.crosses_budget(None),
            m.crosses_budget(Some(0.69)),
            m.crosses_budget(Some(0.7)),
        ],
        [false, false, true]
    );
    let it = run(&mut m);
    let mut r = report(IterationOutcome::StoppedAtCostLimit, &[]);
    r.usage.cost_usd = Some(0.7);
    m.finish(it, r, S);
    assert_eq!(stop(&mut m), StopReason::MaxCost { limit_usd: 1.2 });
    assert!((m.state().spend.cost_usd - 1.2).abs() < 1e-9);
}

#[test]
fn a_budget_reached_at_the_end_of_an_iteration_stops_the_loop() {
    let mut m = Machine::new(limits(solo(), |l| l.max_cost_usd = Some(1.0)));
    step(&mut m, ok(&[ev("a")]));
    step(&mut m, ok(&[ev("b")]));
    assert_eq!(stop(&mut m), StopReason::MaxCost { limit_usd: 1.0 });
}

#[test]
fn unknown_cost_under_a_budget_is_reported_once_and_counted() {
    let mut m = Machine::new(limits(solo(), |l| l.max_cost_usd = Some(10.0)));
    let unpriced = || {
        let mut r = ok(&[]);
        r.usage.cost_usd = None;
        r.usage.cost_kind = CostKind::Unknown;
        r.backend = "copilot".into();
        r
    };
    step(&mut m, unpriced());
    step(&mut m, unpriced());
    assert_eq!(
        m.take_notices(),
        vec![Notice::CostUnknown {
            backend: "copilot".into()
        }]
    );
    assert_eq!(
        (
            m.state().spend.unpriced_iterations,
            m.state().spend.cost_usd
        ),
        (2, 0.0)
    );
}

#[test]
fn iterations_whose_agent_counted_no_tokens_are_counted_per_run_and_hat() {
    let mut m = Machine::new(solo());
    let uncounted = || {
        let mut r = ok(&[]);
        r.usage.tokens = Tokens::default();
        r.usage.tokens_known = false;
        r.backend = "copilot".into();
        r
    };
    step(&mut m, uncounted());
    step(&mut m, ok(&[]));
    let hat = &m.state().hats[DEFAULT_HAT];
    assert_eq!(
        (
            m.state().spend.uncounted_iterations,
            hat.spend.uncounted_iterations
        ),
        (1, 1)
    );
    assert!(!crate::run_event::Totals::of(m.state()).tokens_complete);
}

#[test]
fn an_iteration_interrupted_before_any_turn_has_no_unknown_cost() {
    // Interrupted with no cost reported, before any turn or after one: only the second
    // leaves the cost unknown.
    let unpriced_after = |turns: u32, tokens: Tokens, answered: bool| {
        let mut m = Machine::new(limits(solo(), |l| l.max_cost_usd = Some(10.0)));
        let mut r = report(IterationOutcome::Interrupted, &[]);
        r.usage.cost_usd = None;
        r.usage.cost_kind = CostKind::Unknown;
        r.usage.turns = turns;
        r.usage.tokens = tokens;
        r.usage.answered = answered;
        step(&mut m, r);
        let warned = m
            .take_notices()
            .iter()
            .any(|n| matches!(n, Notice::CostUnknown { .. }));
        (m.state().spend.unpriced_iterations, warned)
    };
    // Ctrl-C while pi was still starting: no turn, no tokens.
    assert_eq!(unpriced_after(0, Tokens::default(), false), (0, false));
    let used = report(IterationOutcome::Interrupted, &[]).usage;
    assert_eq!(unpriced_after(used.turns, used.tokens, true), (1, true));
    // Claude Code stopped after its model answered: usage comes only with its final
    // `result`, so none was reported, but the calls were billed.
    assert_eq!(unpriced_after(0, Tokens::default(), true), (1, true));
}

#[test]
fn consecutive_failures_stop_the_loop_and_a_success_resets_the_streak() {
    let mut m = Machine::new(solo()); // three failures allowed in a row
    step(&mut m, failed(&[]));
    step(&mut m, failed(&[]));
    step(&mut m, ok(&[ev("a")]));
    step(&mut m, failed(&[]));
    step(&mut m, failed(&[]));
    assert_eq!(m.state().consecutive_failures, 2);
    step(&mut m, failed(&[]));
    assert_eq!(
        stop(&mut m),
        StopReason::ConsecutiveFailures { failures: 3 }
    );
    assert_eq!(stop(&mut m).class(), EndClass::Failed);
}

#[test]
fn the_same_event_three_times_in_a_row_is_a_stale_loop() {
    let mut m = Machine::new(solo());
    let same = Event::with_text("build.done", "nothing changed");
    step(&mut m, ok(std::slice::from_ref(&same)));
    step(&mut m, ok(std::slice::from_ref(&same)));
    assert!(matches!(m.next(S), Next::Run(_)));
    let mut m = Machine::new(solo());
    for _ in 0..STALE_REPEATS {
        step(&mut m, ok(std::slice::from_ref(&same)));
    }
    assert_eq!(
        stop(&mut m),
        StopReason::StaleLoop {
            topic: "build.done".into(),
            repeats: STALE_REPEATS
        }
    );
}

#[test]
fn the_same_topic_with_new_payloads_is_progress_not_a_stale_loop() {
    let mut m = Machine::new(solo());
    for i in 0..5 {
        step(
            &mut m,
            ok(&[Event::with_text("task.done", format!("task {i}"))]),
        );
    }
    assert!(matches!(m.next(S), Next::Run(_)));
}

#[test]
fn invalid_inbox_lines_are_reported_and_end_the_loop_only_when_they_repeat() {
    let bad = || InboxLine::Invalid {
        error: InvalidLine::NoTopic,
        excerpt: "{}".into(),
    };
    let mut m = Machine::new(solo());
    let mut r = ok(&[]);
    r.inbox = vec![bad(), bad(), lines(&[ev("a")]).remove(0), bad()];
    step(&mut m, r);
    assert_eq!(m.state().consecutive_invalid_lines, 1);
    assert_eq!(m.take_notices().len(), 3);
    let mut r = ok(&[]);
    r.inbox = vec![bad(), bad()];
    step(&mut m, r);
    assert_eq!(stop(&mut m), StopReason::InvalidEvents { lines: 3 });
}

#[test]
fn continue_resumes_counters_cost_and_pending_events() {
    let mut m = Machine::new(limits(three_hats(), |l| l.max_iterations = 2));
    step(&mut m, ok(&[ev("plan.ready")]));
    step(&mut m, failed(&[]));
    assert_eq!(stop(&mut m), StopReason::MaxIterations { limit: 2 });
    let saved: LoopState =
        serde_json::from_str(&serde_json::to_string(m.state()).unwrap()).unwrap();
    assert_eq!(&saved, m.state());

    // Same limit: the run is still at it.
    let mut same = Machine::resume(
        limits(three_hats(), |l| l.max_iterations = 2),
        saved.clone(),
    )
    .unwrap();
    assert_eq!(stop(&mut same), StopReason::MaxIterations { limit: 2 });

    let mut more = Machine::resume(limits(three_hats(), |l| l.max_iterations = 4), saved).unwrap();
    let it = run(&mut more);
    assert_eq!(
        (it.number, it.hat.as_str(), it.events.clone()),
        (3, "builder", vec![ev("plan.ready")])
    );
    assert_eq!(more.state().consecutive_failures, 0);
    assert!((more.state().spend.cost_usd - 1.0).abs() < 1e-9);
    assert_eq!(more.state().runtime_ms, 2000);
}

#[test]
fn continue_refuses_a_completed_run() {
    let mut m = Machine::new(solo());
    step(&mut m, ok(&[ev(PROMISE)]));
    assert_eq!(
        Machine::resume(solo(), m.state().clone()).err(),
        Some(ResumeError::AlreadyCompleted {
            reason: "completed: the agent emitted LOOP_COMPLETE".into()
        })
    );
}

#[test]
fn a_saved_state_with_counters_at_their_limit_resumes_without_overflowing() {
    // `state.json` is a file in the workspace: its counters can be anything.
    let mut m = Machine::new(solo());
    step(&mut m, failed(&[]));
    let mut saved = m.state().clone();
    saved.spend.unpriced_iterations = u32::MAX;
    saved.consecutive_invalid_lines = u32::MAX;
    for hat in saved.hats.values_mut() {
        hat.iterations = u32::MAX;
        hat.failures = u32::MAX;
        hat.spend.unpriced_iterations = u32::MAX;
        hat.duration_ms = u64::MAX;
    }
    for count in saved.activations.values_mut() {
        *count = u32::MAX;
    }
    let mut more = Machine::resume(
        limits(solo(), |l| l.max_consecutive_failures = u32::MAX),
        saved,
    )
    .unwrap();
    let it = run(&mut more);
    let mut unpriced = failed(&[]);
    unpriced.usage.cost_kind = CostKind::Unknown;
    more.finish(it, unpriced, S);
    assert_eq!(more.state().spend.unpriced_iterations, u32::MAX);
    assert!(more.state().hats.values().all(|h| h.iterations == u32::MAX));
}

#[test]
fn the_iteration_a_killed_ralph_was_in_ends_interrupted_and_the_run_goes_on() {
    let mut m = Machine::new(solo());
    step(&mut m, report(IterationOutcome::Interrupted, &[ev("a")]));
    assert_eq!(m.state().end, Some(StopReason::Interrupted));
    m.go_on_after_kill();
    assert_eq!(m.state().end, None);
    assert_eq!(run(&mut m).events, vec![ev("a")]);
    // Any other end stands.
    let mut m = Machine::new(limits(solo(), |l| l.max_iterations = 1));
    step(&mut m, ok(&[ev("a")]));
    m.go_on_after_kill();
    assert_eq!(stop(&mut m), StopReason::MaxIterations { limit: 1 });
}

#[test]
fn failures_in_a_row_end_saying_why_the_last_one_failed() {
    let mut m = Machine::new(limits(solo(), |l| l.max_consecutive_failures = 2));
    for reason in [
        "exited with code 1",
        "No API key found for anthropic.\n\nUse /login",
    ] {
        let it = run(&mut m);
        let failed = IterationOutcome::Failed {
            reason: reason.into(),
        };
        m.finish(it, report(failed, &[]), S);
    }
    let reason = stop(&mut m);
    assert_eq!(
        verdict(&reason, m.state()),
        "2 iterations in a row failed (the last: No API key found for anthropic. Use /login)"
    );
}
