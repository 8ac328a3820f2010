//! A stop asked for by the user, against the end the run reached by itself.

use pretty_assertions::assert_eq;

use super::test_support::*;
use super::*;

#[test]
fn interrupting_between_iterations_ends_the_run() {
    let mut m = Machine::new(solo());
    assert_eq!(m.interrupt(S), StopReason::Interrupted);
    assert_eq!(stop(&mut m), StopReason::Interrupted);
}

/// Ctrl-C in the last iteration's gate: the iteration reached `max_iterations`, but
/// the person stopped the run first.
#[test]
fn a_stop_during_the_iteration_beats_the_limit_it_reached() {
    let mut m = Machine::new(limits(solo(), |l| l.max_iterations = 1));
    step(&mut m, ok(&[]));
    assert_eq!(
        m.interrupt_over_limit(S),
        StopReason::Interrupted,
        "a limit gave way"
    );
    assert_eq!(stop(&mut m), StopReason::Interrupted);

    // Once the end stands (its `post.` hooks run), a stop does not change it.
    let mut m = Machine::new(limits(solo(), |l| l.max_iterations = 1));
    step(&mut m, ok(&[]));
    assert_eq!(m.interrupt(S), StopReason::MaxIterations { limit: 1 });
}

#[test]
fn a_stop_during_the_iteration_leaves_a_completion_or_a_failure_it_reached() {
    let mut m = Machine::new(limits(solo(), |l| l.max_iterations = 1));
    step(&mut m, ok(&[ev(PROMISE)]));
    let done = completed(CompletionSignal::Event);
    assert_eq!(m.interrupt_over_limit(S), done);
    assert_eq!(stop(&mut m), done);

    let mut m = Machine::new(limits(solo(), |l| l.max_consecutive_failures = 1));
    step(&mut m, failed(&[]));
    let failures = StopReason::ConsecutiveFailures { failures: 1 };
    assert_eq!(m.interrupt_over_limit(S), failures);
}

#[test]
fn a_continued_run_counts_the_time_a_killed_ralph_ran_past_its_last_save() {
    let rules = || limits(solo(), |l| l.max_runtime = 10 * S);
    let mut m = Machine::new(rules());
    step(&mut m, ok(&[]));
    let saved = m.state().clone();
    assert_eq!(saved.runtime_ms, 1_000);
    // The killed ralph ran its next iteration until 9.5 s into the run.
    let mut m = Machine::resume(rules(), saved.clone()).unwrap();
    m.count_run_until_kill(9_500);
    assert_eq!(m.state().runtime_ms, 9_500);
    // This session's time adds to it: one second more is past the limit.
    assert_eq!(m.runtime_ms_at(S), 10_500);
    assert_eq!(stop(&mut m), StopReason::MaxRuntime { limit_secs: 10 });
    // A record that shows less than was saved (written before ralph said the run's time)
    // takes nothing off.
    let mut m = Machine::resume(rules(), saved).unwrap();
    m.count_run_until_kill(300);
    assert_eq!(m.state().runtime_ms, 1_000);
}
