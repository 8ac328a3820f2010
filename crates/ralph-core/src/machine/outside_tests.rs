//! Events from outside the iteration's agent (a person's `ralph emit` in another terminal,
//! a gate, a hook, a script): routed as any event, never credited to the running hat.

use pretty_assertions::assert_eq;

use super::test_support::*;
use super::*;
use crate::inbox::InboxLine;

/// The token of a process other than the iteration's agent (a gate, say).
const OTHER_RUN: &str = "4242-100-8";

/// `report` with `outside` appended to its inbox as lines sent by `sender`.
fn with_outside(
    mut report: IterationReport,
    outside: &[Event],
    sender: Option<&str>,
) -> IterationReport {
    report.inbox.extend(lines_from(outside, sender));
    report
}

/// planner ← work.start; builder ← plan.ready (default_publishes build.done);
/// fixer ← hotfix.needed.
fn workflow() -> Rules {
    let mut builder = hat("builder", &["plan.ready"]);
    builder.default_publishes = Some("build.done".into());
    Rules {
        event_loop: LoopConfig {
            starting_event: "plan.ready".into(),
            ..solo().event_loop
        },
        hats: vec![builder, hat("fixer", &["hotfix.needed"])],
        ..solo()
    }
}

#[test]
fn an_outside_event_is_routed_but_is_not_the_hats_hand_over() {
    for sender in [None, Some(OTHER_RUN)] {
        let mut m = Machine::new(workflow());
        let it = run(&mut m);
        assert_eq!(it.hat, "builder");
        // The builder's agent emitted nothing; a person (no token) or a gate (another
        // token) published `hotfix.needed` meanwhile.
        let steer = Event::with_text("hotfix.needed", "the login page is down");
        let record = m.finish(
            it,
            with_outside(ok(&[]), std::slice::from_ref(&steer), sender),
            S,
        );
        assert_eq!(record.events, vec![], "{sender:?}");
        assert_eq!(record.outside, vec![steer.clone()]);
        // The hat handed nothing over itself: its default is published for it.
        assert_eq!(record.default_published.as_deref(), Some("build.done"));
        assert_eq!(
            m.take_notices(),
            vec![Notice::DefaultPublished {
                hat: "builder".into(),
                topic: "build.done".into()
            }]
        );
        // The person's event still steers the loop: it reaches the hat that triggers on it.
        let pending: Vec<&str> = m.state().pending.iter().map(|e| e.topic.as_str()).collect();
        assert_eq!(pending, ["build.done", "hotfix.needed"]);
        assert_eq!(
            step(&mut m, ok(&[])),
            (DEFAULT_HAT.to_owned(), vec!["build.done".to_owned()])
        );
        let fixer = run(&mut m);
        assert_eq!((fixer.hat.as_str(), fixer.events), ("fixer", vec![steer]));
    }
}

#[test]
fn a_failed_hat_gets_its_events_again_whatever_came_from_outside() {
    let mut m = Machine::new(workflow());
    let it = run(&mut m);
    let given = it.events.clone();
    let report = with_outside(failed(&[]), &[ev("hotfix.needed")], None);
    m.finish(it, report, S);
    let pending: Vec<Event> = m.state().pending.iter().cloned().collect();
    assert_eq!(pending, [given, vec![ev("hotfix.needed")]].concat());
}

#[test]
fn an_outside_promise_does_not_complete_the_run() {
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    let report = with_outside(ok(&[]), &[ev(PROMISE)], None);
    let record = m.finish(it, report, S);
    assert_eq!(record.completion, None);
    assert_eq!(record.outside, vec![ev(PROMISE)]);
    assert_eq!(
        m.take_notices(),
        vec![Notice::PromiseFromOutside {
            promise: PROMISE.into()
        }]
    );
    // Not routed either (no hat takes the promise as work), and the run goes on.
    assert!(m.state().pending.is_empty());
    assert_eq!(run(&mut m).number, 2);
}

#[test]
fn the_agents_own_promise_completes_even_when_an_outside_event_follows_it() {
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    let report = with_outside(ok(&[ev(PROMISE)]), &[ev("note.later")], None);
    let record = m.finish(it, report, S);
    assert_eq!(record.completion, Some(CompletionSignal::Event));
    assert_eq!(stop(&mut m), completed(CompletionSignal::Event));
}

#[test]
fn without_an_agent_every_event_is_from_outside() {
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    let mut report = ok(&[ev(PROMISE)]);
    // The agent could not be started: nothing in the inbox is its.
    report.agent_run = None;
    let record = m.finish(it, report, S);
    assert_eq!((record.events, record.completion), (vec![], None));
    assert_eq!(record.outside, vec![ev(PROMISE)]);
}

#[test]
fn an_outside_event_counts_as_published_for_required_events() {
    let rules = limits(solo(), |l| l.required_events = vec!["review.done".into()]);
    let mut m = Machine::new(rules);
    let it = run(&mut m);
    m.finish(it, with_outside(ok(&[]), &[ev("review.done")], None), S);
    assert_eq!(m.missing_required(), Vec::<String>::new());
}

#[test]
fn gates_check_the_agents_events_only() {
    let rules = Rules {
        gates: vec![GateRule {
            name: "tests".into(),
            command: "check".into(),
            before: vec!["hotfix.needed".into()],
        }],
        ..workflow()
    };
    let mut m = Machine::new(rules);
    let it = run(&mut m);
    let report = with_outside(ok(&[]), &[ev("hotfix.needed")], None);
    assert!(m.gate_plan(&it, &report).next_gate(&[]).is_none());
    let report = ok(&[ev("hotfix.needed")]);
    assert!(m.gate_plan(&it, &report).next_gate(&[]).is_some());
}

#[test]
fn an_outside_line_does_not_break_the_invalid_line_streak_rule() {
    // Invalid lines are counted whoever wrote them; a valid one, from anyone, ends the
    // streak as before.
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    let mut report = ok(&[]);
    report.inbox = lines_from(&[ev("x")], None);
    report.inbox.insert(
        0,
        InboxLine::Invalid {
            error: crate::event::InvalidLine::NoTopic,
            excerpt: "{}".into(),
        },
    );
    let record = m.finish(it, report, S);
    assert_eq!(record.invalid_lines, 1);
    assert_eq!(m.state().consecutive_invalid_lines, 0);
}
