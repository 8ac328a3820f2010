//! Routing: which hat runs with which events, and what a hat's result publishes.

use ralph_stream::CostKind;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::steer::IterationSteering;

use super::test_support::*;
use super::*;
use crate::topic::TASK_START;

#[test]
fn solo_run_gives_the_start_event_then_resume_events_to_the_default_hat() {
    let mut m = Machine::new(solo());
    let first = run(&mut m);
    assert_eq!(
        first,
        Iteration {
            number: 1,
            hat: DEFAULT_HAT.into(),
            events: vec![ev(TASK_START)]
        }
    );
    m.finish(first, ok(&[]), S);
    assert_eq!(
        run(&mut m),
        Iteration {
            number: 2,
            hat: DEFAULT_HAT.into(),
            events: vec![ev(TASK_RESUME)]
        }
    );
}

#[test]
fn events_route_to_the_hat_that_triggers_on_them_in_order() {
    let mut m = Machine::new(three_hats());
    let trace = vec![
        step(&mut m, ok(&[ev("plan.ready")])),
        step(&mut m, ok(&[ev("build.review")])),
        step(&mut m, ok(&[ev("review.rejected")])),
        step(&mut m, ok(&[ev("build.done")])),
    ];
    let s = |v: &[&str]| v.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        trace,
        vec![
            ("planner".into(), s(&["work.start"])),
            ("builder".into(), s(&["plan.ready"])),
            ("reviewer".into(), s(&["build.review"])),
            ("builder".into(), s(&["review.rejected"])),
        ]
    );
    assert_eq!(run(&mut m).hat, "planner");
}

#[test]
fn a_hat_gets_all_its_pending_events_at_once_and_others_keep_their_order() {
    let mut m = Machine::new(three_hats());
    step(
        &mut m,
        ok(&[
            Event::with_text("plan.ready", "step 1"),
            ev("build.review"),
            Event::with_text("plan.ready", "step 2"),
        ]),
    );
    let it = run(&mut m);
    assert_eq!(
        (it.hat.as_str(), it.events.clone()),
        (
            "builder",
            vec![
                Event::with_text("plan.ready", "step 1"),
                Event::with_text("plan.ready", "step 2")
            ]
        )
    );
    assert_eq!(m.state().pending, VecDeque::from([ev("build.review")]));
}

#[test]
fn events_no_hat_triggers_on_go_to_the_default_hat() {
    let mut m = Machine::new(three_hats());
    step(&mut m, ok(&[ev("human.question"), ev("plan.ready")]));
    let it = run(&mut m);
    assert_eq!(
        (it.hat, it.events),
        (DEFAULT_HAT.to_owned(), vec![ev("human.question")])
    );
}

#[test]
fn a_failed_iteration_that_emitted_nothing_gets_its_events_again() {
    let mut m = Machine::new(three_hats());
    step(&mut m, ok(&[Event::with_text("plan.ready", "step 1")]));
    let (hat, _) = step(&mut m, failed(&[]));
    assert_eq!(hat, "builder");
    assert_eq!(
        m.take_notices(),
        vec![Notice::EventsRequeued {
            hat: "builder".into(),
            topics: vec!["plan.ready".into()]
        }]
    );
    let again = run(&mut m);
    assert_eq!(
        (again.hat, again.events),
        (
            "builder".to_owned(),
            vec![Event::with_text("plan.ready", "step 1")]
        )
    );
}

#[test]
fn default_publishes_fills_in_only_for_a_successful_hat_that_emitted_nothing() {
    let mut rules = three_hats();
    rules.hats[1].default_publishes = Some("build.review".into());
    let mut m = Machine::new(rules);
    step(&mut m, ok(&[ev("plan.ready")]));
    let it = run(&mut m);
    let record = m.finish(it, ok(&[]), S);
    assert_eq!(record.default_published, Some("build.review".into()));
    assert_eq!(run(&mut m).hat, "reviewer");

    let mut rules = three_hats();
    rules.hats[1].default_publishes = Some("build.review".into());
    let mut m = Machine::new(rules);
    step(&mut m, ok(&[ev("plan.ready")]));
    let it = run(&mut m);
    assert_eq!(m.finish(it, failed(&[]), S).default_published, None);
    assert_eq!(run(&mut m).hat, "builder");
}

#[test]
fn a_default_publishes_that_is_the_promise_completes_the_loop_never_routed() {
    let with_default = |required: &[&str]| {
        let mut rules = three_hats();
        rules.hats[2].default_publishes = Some(PROMISE.into());
        rules.event_loop.required_events = required.iter().map(|t| (*t).to_owned()).collect();
        let mut m = Machine::new(rules);
        step(&mut m, ok(&[ev("plan.ready")]));
        step(&mut m, ok(&[ev("build.review")]));
        m
    };
    let mut m = with_default(&[]);
    let it = run(&mut m);
    assert_eq!(it.hat, "reviewer");
    let record = m.finish(it, ok(&[]), S);
    assert_eq!(
        (record.completion, record.default_published.as_deref()),
        (Some(CompletionSignal::DefaultPublishes), Some(PROMISE))
    );
    assert_eq!(
        m.take_notices(),
        vec![Notice::DefaultPublished {
            hat: "reviewer".into(),
            topic: PROMISE.into()
        }]
    );
    assert_eq!(
        m.state().end,
        Some(StopReason::Completed {
            promise: PROMISE.into(),
            signal: CompletionSignal::DefaultPublishes
        })
    );
    assert!(m.state().pending.is_empty(), "never routed as an event");

    // Held to the same rules as an emitted promise: the required events first.
    let mut m = with_default(&["tests.pass"]);
    let it = run(&mut m);
    assert_eq!(m.finish(it, ok(&[]), S).completion, None);
    assert_eq!(m.state().end, None);
    assert_eq!(run(&mut m).events[0].topic, TASK_RESUME);

    // A hat that failed, or handed over, did not finish.
    let mut m = with_default(&[]);
    let it = run(&mut m);
    assert_eq!(m.finish(it, failed(&[]), S).completion, None);
    let mut m = with_default(&[]);
    let it = run(&mut m);
    assert_eq!(
        m.finish(it, ok(&[ev("review.rejected")]), S).completion,
        None
    );
    assert_eq!(run(&mut m).hat, "builder");
}

#[test]
fn a_hat_at_max_activations_is_replaced_by_its_exhausted_event() {
    let mut rules = three_hats();
    rules.hats[1].max_activations = Some(1);
    rules.hats[2].triggers.push("builder.exhausted".into());
    let mut m = Machine::new(rules);
    step(&mut m, ok(&[ev("plan.ready")]));
    step(&mut m, ok(&[ev("review.rejected")]));
    let it = run(&mut m);
    assert_eq!(it.hat, "reviewer");
    assert_eq!(
        it.events,
        vec![Event::with_text(
            "builder.exhausted",
            "hat `builder` reached max_activations (1); dropped: review.rejected"
        )]
    );
    assert_eq!(
        m.take_notices(),
        vec![Notice::HatExhausted {
            hat: "builder".into(),
            max_activations: 1,
            dropped: vec!["review.rejected".into()],
            payloads: vec![None],
        }]
    );
}

#[test]
fn an_interrupted_iteration_does_not_use_up_one_of_the_hats_activations() {
    let mut rules = three_hats();
    rules.hats[1].max_activations = Some(1);
    let mut m = Machine::new(rules);
    step(&mut m, ok(&[ev("plan.ready")]));
    let it = run(&mut m);
    assert_eq!(it.hat, "builder");
    m.finish(it, report(IterationOutcome::Interrupted, &[]), S);
    // What `--continue` does next: the builder again, with its event, not exhausted.
    let mut resumed = Machine::resume(m.rules.clone(), {
        let mut state = m.state().clone();
        state.end = None;
        state
    })
    .unwrap();
    let again = run(&mut resumed);
    assert_eq!(
        (again.hat.as_str(), again.events.clone()),
        ("builder", vec![ev("plan.ready")])
    );
}

#[test]
fn a_hat_that_failed_its_last_activation_is_not_said_to_get_its_events_again() {
    let mut rules = three_hats();
    rules.hats[1].max_activations = Some(1);
    let mut m = Machine::new(rules);
    step(&mut m, ok(&[ev("plan.ready")]));
    m.take_notices();
    let it = run(&mut m);
    assert_eq!(it.hat, "builder");
    m.finish(it, failed(&[]), S);
    assert!(
        !m.take_notices()
            .iter()
            .any(|n| matches!(n, Notice::EventsRequeued { .. })),
        "the builder is spent"
    );
    // Where the events go instead is said when they get there.
    run(&mut m);
    assert!(
        m.take_notices()
            .iter()
            .any(|n| matches!(n, Notice::HatExhausted { .. }))
    );
}

/// Two hats used up from the start, each triggering on the other's `.exhausted`.
fn exhausting_each_other() -> Machine {
    let mut rules = Rules {
        hats: vec![
            hat("a", &["go.a", "b.exhausted"]),
            hat("b", &["go.b", "a.exhausted"]),
        ],
        ..solo()
    };
    rules.hats[0].max_activations = Some(0);
    rules.hats[1].max_activations = Some(0);
    Machine::new(rules)
}

#[test]
fn exhausted_hats_triggering_on_each_other_end_at_the_default_hat() {
    let mut m = exhausting_each_other();
    step(&mut m, ok(&[ev("go.a")]));
    let it = run(&mut m);
    assert_eq!(it.hat, DEFAULT_HAT);
    assert_eq!(it.events.len(), 1);
    assert!(it.events[0].topic.ends_with(EXHAUSTED_SUFFIX));
}

#[test]
fn an_interrupted_iteration_stops_the_loop_and_keeps_its_events_for_continue() {
    let mut m = Machine::new(three_hats());
    let it = run(&mut m);
    m.take_notices();
    m.finish(it, report(IterationOutcome::Interrupted, &[]), S);
    assert_eq!(stop(&mut m), StopReason::Interrupted);
    assert_eq!(m.state().pending, VecDeque::from([ev("work.start")]));
    assert_eq!(m.state().iterations, 1);
    // The user stopped it: that is not the hat failing to hand over, and the run's
    // end already says how to resume it.
    assert!(
        !m.take_notices()
            .iter()
            .any(|n| matches!(n, Notice::EventsRequeued { .. })),
        "an interrupted hat is not said to get its events again"
    );
}

#[test]
fn finish_records_the_iteration_and_the_totals() {
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    let payload = Event {
        topic: "notes".into(),
        payload: Some(json!({"n": 1})),
        to: None,
    };
    let record = m.finish(it, ok(std::slice::from_ref(&payload)), S);
    assert_eq!(
        record,
        IterationRecord {
            iteration: 1,
            hat: DEFAULT_HAT.into(),
            backend: "pi".into(),
            fallback: None,
            model: Some("m".into()),
            outcome: IterationOutcome::Succeeded,
            started_at_ms: 1000,
            duration_ms: 2000,
            cost_usd: Some(0.5),
            cost_kind: CostKind::Reported,
            tokens: report_tokens(),
            tokens_known: true,
            turns: 2,
            consumed: vec![ev(TASK_START)],
            events: vec![payload.clone()],
            from_tags: 0,
            outside: vec![],
            invalid_lines: 0,
            default_published: None,
            completion: None,
            gates: vec![],
            verified: vec![],
            withheld: vec![],
            steering: IterationSteering::default(),
        }
    );
    let tokens = report_tokens();
    assert_eq!(
        m.state(),
        &LoopState {
            iterations: 1,
            runtime_ms: 1000,
            spend: Spend {
                cost_usd: 0.5,
                tokens,
                ..Spend::default()
            },
            consecutive_failures: 0,
            consecutive_invalid_lines: 0,
            pending: VecDeque::from([payload.clone()]),
            seen_topics: BTreeSet::from(["notes".to_owned()]),
            activations: BTreeMap::from([(DEFAULT_HAT.to_owned(), 1)]),
            last_published: Some(Repeat {
                event: payload,
                count: 1
            }),
            hats: BTreeMap::from([(
                DEFAULT_HAT.to_owned(),
                HatTotals {
                    iterations: 1,
                    failures: 0,
                    duration_ms: 2000,
                    spend: Spend {
                        cost_usd: 0.5,
                        tokens,
                        ..Spend::default()
                    },
                }
            )]),
            cost_notice_given: false,
            tag_notice_given: false,
            end: None,
            last_failure: None,
            refusal: None,
            rate_limit: None,
            backend_limits: vec![],
            rate_limit_tally: RateLimitTally::default(),
            backends: BTreeMap::new(),
            gates: BTreeMap::new(),
        }
    );
}

#[test]
fn an_exact_trigger_beats_a_segment_pattern_which_beats_a_lone_star() {
    let rules = Rules {
        hats: vec![
            hat("catchall", &["*"]),
            hat("builder", &["build.*"]),
            hat("finisher", &["build.done"]),
        ],
        ..limits(solo(), |l| l.starting_event = "work.start".into())
    };
    let routed = |topic: &str| rules.route(topic).map(|h| h.id.as_str());
    assert_eq!(
        [
            routed("build.done"),
            routed("build.failed"),
            routed("build.failed.twice"),
            routed("review.ok"),
            // ralph's own start and resume stay with its coordinator.
            routed(TASK_START),
            routed(TASK_RESUME),
        ],
        [
            Some("finisher"),
            Some("builder"),
            Some("catchall"),
            Some("catchall"),
            None,
            None
        ]
    );
    // ralph's answer to a hat's refused event goes back to that hat, not to a pattern.
    let refused = Event {
        to: Some("finisher".into()),
        ..ev("gate.failed")
    };
    assert_eq!(
        rules.route_event(&refused).map(|h| h.id.as_str()),
        Some("finisher")
    );

    let mut m = Machine::new(rules);
    let trace = [
        step(&mut m, ok(&[ev("build.started")])),
        step(&mut m, ok(&[ev("build.done")])),
    ];
    assert_eq!(trace[0].0, "catchall", "work.start: only `*` takes it");
    assert_eq!(trace[1].0, "builder");
    assert_eq!(run(&mut m).hat, "finisher");
}

/// The coordinator hands the same work to an exhausted hat again and again.
fn handing_over_to_an_exhausted_hat() -> Machine {
    let mut rules = Rules {
        hats: vec![hat("b", &["x.one"])],
        ..solo()
    };
    rules.hats[0].max_activations = Some(1);
    let mut m = Machine::new(rules);
    let again = Event::with_text("x.one", "try b again");
    assert_eq!(
        step(&mut m, ok(std::slice::from_ref(&again))).0,
        DEFAULT_HAT
    );
    assert_eq!(m.exhausted_hats(), Vec::<String>::new());
    assert_eq!(step(&mut m, ok(&[])).0, "b");
    // Used up as soon as it ran its last time, before anything is handed to it again.
    assert_eq!(m.exhausted_hats(), ["b"]);
    m
}

#[test]
fn an_exhausted_hat_is_named_and_its_dropped_payload_reaches_the_coordinator() {
    let exhausted_notes = |m: &mut Machine| -> Vec<Notice> {
        (m.take_notices().into_iter())
            .filter(|n| matches!(n, Notice::HatExhausted { .. }))
            .collect()
    };
    let mut m = handing_over_to_an_exhausted_hat();
    m.take_notices();
    step(
        &mut m,
        ok(&[Event::with_text("x.one", "try b\n  again"), ev("x.one")]),
    );
    let it = run(&mut m);
    assert_eq!(it.hat, DEFAULT_HAT);
    assert_eq!(
        it.events,
        [Event::with_text(
            "b.exhausted",
            "hat `b` reached max_activations (1); dropped: x.one (try b again), x.one"
        )]
    );
    // The notice quotes the same, for the person watching the run.
    let note = Notice::HatExhausted {
        hat: "b".into(),
        max_activations: 1,
        dropped: vec!["x.one".into(), "x.one".into()],
        payloads: vec![Some("try b again".into()), None],
    };
    assert_eq!(exhausted_notes(&mut m), std::slice::from_ref(&note));
    assert!(
        note.to_string()
            .ends_with("(dropped: x.one (try b again), x.one)"),
        "{note}"
    );
    // A long payload is cut at its start.
    let long = "word ".repeat(100);
    m.finish(it, ok(&[Event::with_text("x.one", long.clone())]), S);
    let payload = run(&mut m).events[0].payload_text().expect("a payload");
    let kept = long.trim_end().chars().take(200).collect::<String>();
    assert_eq!(
        payload,
        format!("hat `b` reached max_activations (1); dropped: x.one ({kept}…)")
    );
    let [Notice::HatExhausted { payloads, .. }] = &exhausted_notes(&mut m)[..] else {
        panic!("no hat_exhausted notice");
    };
    assert_eq!(payloads, &[Some(format!("{kept}…"))]);
}

#[test]
fn an_exhausted_catch_all_hat_reports_the_real_dropped_topic_not_its_own_exhausted_event() {
    let mut rules = Rules {
        hats: vec![hat("w", &["*"])],
        ..solo()
    };
    rules.hats[0].max_activations = Some(1);
    let mut m = Machine::new(rules);
    // task.start is the coordinator's; the hand-over uses w up.
    assert_eq!(step(&mut m, ok(&[ev("w.go")])).0, DEFAULT_HAT);
    assert_eq!(step(&mut m, ok(&[])).0, "w");
    m.take_notices();
    step(
        &mut m,
        ok(&[Event::with_text("fix.bug", "the parser drops a key")]),
    );
    // `*` takes `w.exhausted` too; it goes to the coordinator as it is.
    let it = run(&mut m);
    assert_eq!(it.hat, DEFAULT_HAT);
    assert_eq!(
        it.events,
        [Event::with_text(
            "w.exhausted",
            "hat `w` reached max_activations (1); dropped: fix.bug (the parser drops a key)"
        )]
    );
    let dropped: Vec<Vec<String>> = (m.take_notices().into_iter())
        .filter_map(|n| match n {
            Notice::HatExhausted { dropped, .. } => Some(dropped),
            _ => None,
        })
        .collect();
    assert_eq!(dropped, [vec!["fix.bug".to_owned()]]);
}

#[test]
fn exhausted_hats_triggering_on_each_other_pass_the_first_word_on_unwrapped() {
    let mut m = exhausting_each_other();
    step(&mut m, ok(&[Event::with_text("go.a", "start")]));
    assert_eq!(
        run(&mut m).events,
        [Event::with_text(
            "a.exhausted",
            "hat `a` reached max_activations (0); dropped: go.a (start)"
        )]
    );
}

#[test]
fn the_agent_repeating_a_hand_over_to_an_exhausted_hat_is_a_stale_loop() {
    let mut m = handing_over_to_an_exhausted_hat();
    let again = Event::with_text("x.one", "try b again");
    // The first repeat was the hand-over that used b up; ralph's `b.exhausted` comes
    // between the others and does not reset the count.
    for _ in 1..STALE_REPEATS {
        assert_eq!(
            step(&mut m, ok(std::slice::from_ref(&again))).0,
            DEFAULT_HAT
        );
    }
    assert_eq!(
        stop(&mut m),
        StopReason::StaleLoop {
            topic: "x.one".into(),
            repeats: STALE_REPEATS
        }
    );
}
