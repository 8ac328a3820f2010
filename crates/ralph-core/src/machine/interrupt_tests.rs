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
