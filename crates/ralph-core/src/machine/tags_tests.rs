//! Events read from ralph-orchestrator's `<event>` tags in the agent's answer: the hat's
//! own, after those it emitted, under the same rules.

use pretty_assertions::assert_eq;

use super::super::test_support::*;
use super::super::*;
use crate::event_tag::read_tags;

/// a ← work.start (default_publishes a.idle); b ← x.done.
fn two_hats() -> Rules {
    let mut a = hat("a", &["work.start"]);
    a.default_publishes = Some("a.idle".into());
    Rules {
        event_loop: LoopConfig {
            starting_event: "work.start".into(),
            ..solo().event_loop
        },
        hats: vec![a, hat("b", &["x.done"])],
        ..solo()
    }
}

/// A successful report whose agent emitted `emitted` and answered `answer`.
fn answered(emitted: &[Event], answer: &str) -> IterationReport {
    IterationReport {
        tags: read_tags(answer),
        final_text: Some(answer.to_owned()),
        ..ok(emitted)
    }
}

#[test]
fn a_tag_in_the_answer_hands_over_to_the_hat_that_triggers_on_it() {
    let mut m = Machine::new(two_hats());
    let it = run(&mut m);
    assert_eq!(it.hat, "a");
    let answer = "Done with A.\n<event topic=\"x.done\">legacy payload</event>";
    let record = m.finish(it, answered(&[], answer), S);
    assert_eq!(
        record.events,
        [Event::with_text("x.done", "legacy payload")]
    );
    assert_eq!(record.from_tags, 1);
    // A hand-over: the hat's default topic is not published for it.
    assert_eq!(record.default_published, None);
    assert_eq!(
        m.take_notices(),
        [Notice::LegacyEventTag {
            topic: "x.done".into()
        }]
    );
    let next = run(&mut m);
    assert_eq!(
        (next.hat.as_str(), next.events.as_slice()),
        (
            "b",
            [Event::with_text("x.done", "legacy payload")].as_slice()
        )
    );
    // Said once per run: the next tag publishes without a word.
    let record = m.finish(
        next,
        answered(&[], "<event topic='x.done'>again</event>"),
        S,
    );
    assert_eq!(record.from_tags, 1);
    assert_eq!(m.take_notices(), []);
}

#[test]
fn tags_come_after_the_events_the_agent_emitted() {
    let mut m = Machine::new(two_hats());
    let it = run(&mut m);
    let answer = "<event topic=\"x.done\">from a tag</event>";
    let record = m.finish(it, answered(&[ev("a.note")], answer), S);
    assert_eq!(
        record.events,
        [ev("a.note"), Event::with_text("x.done", "from a tag")]
    );
    assert_eq!(record.from_tags, 1);
}

#[test]
fn a_promise_in_a_tag_completes_only_as_the_last_event() {
    let mut m = Machine::new(two_hats());
    let it = run(&mut m);
    let answer = format!("All done.\n<event topic=\"{PROMISE}\"></event>");
    let record = m.finish(it, answered(&[ev("a.note")], &answer), S);
    assert_eq!(record.completion, Some(CompletionSignal::Event));
    assert_eq!(stop(&mut m), completed(CompletionSignal::Event));

    // Emitted with `ralph emit`, the promise is followed by the tag's event: not last.
    let mut m = Machine::new(two_hats());
    let it = run(&mut m);
    let answer = "<event topic=\"x.done\">more</event>";
    let record = m.finish(it, answered(&[ev(PROMISE)], answer), S);
    assert_eq!(record.completion, None);
    assert!(m.take_notices().contains(&Notice::PromiseNotLast {
        promise: PROMISE.into()
    }));
    assert_eq!(run(&mut m).hat, "b");
}

#[test]
fn a_refused_tag_is_said_and_publishes_nothing() {
    let mut m = Machine::new(two_hats());
    let it = run(&mut m);
    let answer = "<event topic=\"x done\">a space in the topic</event>";
    let record = m.finish(it, answered(&[], answer), S);
    assert_eq!(
        (record.events.as_slice(), record.from_tags),
        ([].as_slice(), 0)
    );
    // Nothing handed over: the hat's default topic goes out for it.
    assert_eq!(record.default_published.as_deref(), Some("a.idle"));
    let notices = m.take_notices();
    assert_eq!(
        notices[0],
        Notice::EventTagIgnored {
            topic: "x done".into(),
            reason: "` ` is not allowed in a topic (use letters, digits, `_`, `-` and `.`)".into()
        }
    );
}

#[test]
fn gates_check_an_event_read_from_a_tag() {
    let rules = Rules {
        gates: vec![GateRule {
            name: "tests".into(),
            command: "check".into(),
            before: vec!["x.done".into()],
        }],
        ..two_hats()
    };
    let m = Machine::new(rules);
    let it = Iteration {
        number: 1,
        hat: "a".into(),
        events: vec![ev("work.start")],
    };
    let report = answered(&[], "<event topic=\"x.done\">ok</event>");
    let plan = m.gate_plan(&it, &report);
    assert_eq!(plan.next_gate(&[]), Some(("tests", "x.done")));
}

#[test]
fn a_rate_limited_attempt_that_handed_over_by_a_tag_is_not_run_again() {
    let mut m = Machine::new(two_hats());
    let it = run(&mut m);
    let report = IterationReport {
        outcome: IterationOutcome::RateLimited {
            message: "429".into(),
            resets_at: None,
        },
        ..answered(&[], "<event topic=\"x.done\">half</event>")
    };
    m.finish(it, report, S);
    assert_eq!(m.attempt(), 1);
    assert_eq!(run(&mut m).hat, "b");
}

#[test]
fn a_tag_taken_for_the_prompt_printed_back_is_said_and_publishes_nothing() {
    let mut m = Machine::new(two_hats());
    let it = run(&mut m);
    let prompt = "End your answer with <event topic=\"x.done\">what you did</event>";
    let report = IterationReport {
        tags: crate::event_tag::read_tags_past_prompt(prompt, prompt),
        final_text: Some(prompt.to_owned()),
        ..ok(&[])
    };
    let record = m.finish(it, report, S);
    assert_eq!((record.events.len(), record.from_tags), (0, 0));
    assert_eq!(record.default_published.as_deref(), Some("a.idle"));
    let notices = m.take_notices();
    assert!(
        matches!(
            &notices[0],
            Notice::EventTagIgnored { topic, reason }
                if topic == "x.done" && reason.starts_with("the prompt ralph sent holds the same tag")
        ),
        "{notices:?}"
    );
}
