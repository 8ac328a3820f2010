use pretty_assertions::assert_eq;

use super::super::test_support::*;
use super::*;
use crate::machine::{CompletionSignal, EndClass, Next};

fn blocked() -> StopReason {
    StopReason::HookBlocked {
        hook: "guard".into(),
        phase: "pre.iteration.start".into(),
        why: "exit code 1".into(),
    }
}

#[test]
fn a_blocking_hook_stops_the_next_iteration_as_a_failure() {
    let mut m = Machine::new(solo());
    let reason = m.block_for_hook("guard", "pre.iteration.start", "exit code 1", S);
    assert_eq!(reason, blocked());
    assert_eq!(reason.class(), EndClass::Failed);
    assert!(matches!(m.next(S), Next::Stop(r) if r == blocked()));
    assert!(reason.to_string().contains("`guard` (pre.iteration.start)"));
}

#[test]
fn a_blocked_completion_is_no_completion_but_a_limit_stays_the_cause() {
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    m.finish(it, ok(&[ev(PROMISE)]), S);
    assert_eq!(stop(&mut m), completed(CompletionSignal::Event));
    assert_eq!(
        m.block_for_hook("guard", "pre.iteration.start", "exit code 1", S),
        blocked()
    );

    let mut m = Machine::new(limits(solo(), |l| l.max_iterations = 1));
    let it = run(&mut m);
    m.finish(it, ok(&[]), S);
    let limit = stop(&mut m);
    assert_eq!(m.block_for_hook("guard", "x", "y", S), limit);
}

#[test]
fn an_iteration_given_back_runs_again_with_the_same_events() {
    let mut m = Machine::new(three_hats());
    let first = run(&mut m);
    let again = {
        m.give_back(first.clone());
        run(&mut m)
    };
    assert_eq!(again, first);
    assert_eq!(m.state().activations.get(&first.hat), Some(&1));
}
