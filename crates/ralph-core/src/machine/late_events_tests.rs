use pretty_assertions::assert_eq;

use super::super::test_support::*;
use super::super::*;

#[test]
fn events_read_after_a_stop_that_can_be_continued_are_queued_for_it() {
    let rules = || limits(solo(), |l| l.max_iterations = 1);
    let mut m = Machine::new(rules());
    step(&mut m, ok(&[ev("build.done")]));
    assert_eq!(stop(&mut m), StopReason::MaxIterations { limit: 1 });
    m.take_notices();
    // A gate of that iteration emitted after its events were read, the promise too.
    m.read_after_end(lines(&[ev("hotfix.needed"), ev(PROMISE)]));
    assert_eq!(
        m.take_notices(),
        vec![
            Notice::PromiseFromOutside {
                promise: PROMISE.into()
            },
            Notice::EventsAfterEnd {
                topics: vec!["hotfix.needed".into(), PROMISE.into()],
                count: 2,
                kept: true,
            },
        ]
    );
    // The run still ends as it did; continued, the event is routed.
    assert_eq!(stop(&mut m), StopReason::MaxIterations { limit: 1 });
    let more = limits(solo(), |l| l.max_iterations = 2);
    let mut m = Machine::resume(more, m.state().clone()).unwrap();
    let topics: Vec<String> = run(&mut m).events.into_iter().map(|e| e.topic).collect();
    assert_eq!(topics, ["build.done", "hotfix.needed"]);
}

#[test]
fn events_read_after_a_completion_are_named_and_left() {
    let mut m = Machine::new(solo());
    step(&mut m, ok(&[ev(PROMISE)]));
    assert_eq!(stop(&mut m), completed(CompletionSignal::Event));
    m.take_notices();
    let late: Vec<Event> = (0..12).map(|n| ev(&format!("late.{n}"))).collect();
    m.read_after_end(lines(&late));
    let notices = m.take_notices();
    let [
        Notice::EventsAfterEnd {
            topics,
            count: 12,
            kept: false,
        },
    ] = notices.as_slice()
    else {
        panic!("{notices:?}");
    };
    assert_eq!(topics.len(), super::LATE_TOPICS_SHOWN);
    assert_eq!(topics[0], "late.0");
    assert!(m.state().pending.is_empty(), "{:?}", m.state().pending);
    assert!(
        notices[0].to_string().contains("and 2 more were published"),
        "{}",
        notices[0]
    );
}

#[test]
fn nothing_read_after_the_end_says_nothing() {
    let mut m = Machine::new(limits(solo(), |l| l.max_iterations = 1));
    step(&mut m, ok(&[]));
    stop(&mut m);
    m.take_notices();
    m.read_after_end(Vec::new());
    assert_eq!(m.take_notices(), vec![]);
}
