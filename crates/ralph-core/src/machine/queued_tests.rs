//! The queue by hat: what a completion leaves unhandled, and what the coordinator is shown.

use pretty_assertions::assert_eq;

use super::*;
use crate::event::Event;
use crate::machine::test_support::*;
use crate::machine::{CompletionSignal, IterationOutcome};

fn queued(hat: &str, topic: &str, count: usize) -> QueuedEvents {
    QueuedEvents {
        hat: hat.into(),
        topic: topic.into(),
        count,
    }
}

fn pending_notes(m: &mut Machine) -> Vec<Notice> {
    (m.take_notices().into_iter())
        .filter(|n| matches!(n, Notice::EventsPendingAtCompletion { .. }))
        .collect()
}

#[test]
fn a_run_that_completes_over_a_queue_still_completes_and_says_what_no_hat_will_handle() {
    let mut m = Machine::new(three_hats());
    let it = run(&mut m);
    assert_eq!(it.hat, "planner");
    let emitted = [
        ev("plan.ready"),
        ev("build.review"),
        ev("nobody.listens"),
        ev("build.review"),
        ev(PROMISE),
    ];
    m.finish(it, ok(&emitted), S);
    assert_eq!(stop(&mut m), completed(CompletionSignal::Event));
    assert_eq!(
        pending_notes(&mut m),
        vec![Notice::EventsPendingAtCompletion {
            pending: vec![
                queued("builder", "plan.ready", 1),
                queued("reviewer", "build.review", 2),
                queued(DEFAULT_HAT, "nobody.listens", 1),
            ],
            count: 4,
        }]
    );
}

#[test]
fn a_completion_over_an_empty_queue_or_a_refused_one_says_nothing_of_the_queue() {
    let mut m = Machine::new(three_hats());
    step(&mut m, ok(&[ev(PROMISE)]));
    assert_eq!(stop(&mut m), completed(CompletionSignal::Event));
    assert_eq!(pending_notes(&mut m), []);
    // Not completed: the queue goes on to its hats.
    let mut m = Machine::new(three_hats());
    let failed = IterationOutcome::Failed { reason: "x".into() };
    step(&mut m, report(failed, &[ev("plan.ready"), ev(PROMISE)]));
    assert_eq!(pending_notes(&mut m), []);
}

#[test]
fn the_notice_names_the_first_groups_and_counts_every_event() {
    let mut m = Machine::new(three_hats());
    let topics: Vec<String> = (0..QUEUED_GROUPS_SHOWN + 5)
        .map(|i| format!("extra.t{i}"))
        .collect();
    let mut emitted: Vec<Event> = topics.iter().map(|t| ev(t)).collect();
    emitted.push(ev("extra.t0"));
    emitted.push(ev(PROMISE));
    step(&mut m, ok(&emitted));
    let [Notice::EventsPendingAtCompletion { pending, count }] = &pending_notes(&mut m)[..] else {
        panic!("no notice of the queue");
    };
    assert_eq!(*count, QUEUED_GROUPS_SHOWN + 6);
    assert_eq!(pending.len(), QUEUED_GROUPS_SHOWN);
    assert_eq!(pending[0], queued(DEFAULT_HAT, "extra.t0", 2));
    let words = Notice::EventsPendingAtCompletion {
        pending: pending.clone(),
        count: *count,
    }
    .to_string();
    assert!(
        words.starts_with(&format!(
            "the run completed with {} events still queued, which no iteration will handle: \
             `extra.t0` ×2 for hat `ralph`, `extra.t1` for hat `ralph`",
            QUEUED_GROUPS_SHOWN + 6
        )),
        "{words}"
    );
    assert!(words.ends_with(", and 5 more"), "{words}");
}

#[test]
fn the_queue_by_hat_is_what_waits_after_the_next_hat_took_its_events() {
    let mut m = Machine::new(three_hats());
    step(
        &mut m,
        ok(&[ev("build.review"), ev("plan.ready"), ev("build.review")]),
    );
    let it = run(&mut m);
    assert_eq!(it.hat, "reviewer");
    assert_eq!(m.queued_by_hat(), vec![queued("builder", "plan.ready", 1)]);
}
