//! The completion rules: which iteration completes the run, and the notes on a promise
//! that did not.

use std::collections::VecDeque;

use pretty_assertions::assert_eq;

use crate::event::Event;
use crate::machine::test_support::*;
use crate::machine::*;

#[test]
fn the_promise_as_the_last_emitted_event_completes() {
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    let record = m.finish(it, ok(&[ev("notes.updated"), ev(PROMISE)]), S);
    assert_eq!(record.completion, Some(CompletionSignal::Event));
    assert_eq!(stop(&mut m), completed(CompletionSignal::Event));
}

#[test]
fn a_promise_followed_by_another_event_does_not_complete_and_is_dropped() {
    let mut m = Machine::new(three_hats());
    let it = run(&mut m);
    let record = m.finish(it, ok(&[ev(PROMISE), ev("plan.ready")]), S);
    assert_eq!(record.completion, None);
    assert_eq!(
        m.take_notices(),
        vec![Notice::PromiseNotLast {
            promise: PROMISE.into()
        }]
    );
    assert_eq!(m.state().pending, VecDeque::from([ev("plan.ready")]));
    assert_eq!(run(&mut m).hat, "builder");

    // Nor does a final answer ending with the promise: the work was handed on.
    let mut m = Machine::new(three_hats());
    let it = run(&mut m);
    let mut report = ok(&[ev(PROMISE), ev("plan.ready")]);
    report.final_text = Some("Done.\n\nLOOP_COMPLETE\n".into());
    assert_eq!(m.finish(it, report, S).completion, None);
    assert_eq!(m.state().pending, VecDeque::from([ev("plan.ready")]));
}

#[test]
fn the_final_answer_completes_only_when_its_last_line_is_the_promise_of_a_successful_run() {
    let outcome_for = |outcome: IterationOutcome, text: &str| {
        let mut m = Machine::new(solo());
        let it = run(&mut m);
        let mut r = report(outcome, &[]);
        r.final_text = Some(text.into());
        m.finish(it, r, S).completion
    };
    let failed = IterationOutcome::Failed { reason: "x".into() };
    assert_eq!(
        [
            outcome_for(IterationOutcome::Succeeded, "All done.\n\nLOOP_COMPLETE\n"),
            outcome_for(
                IterationOutcome::Succeeded,
                "All done.\r\n  LOOP_COMPLETE  \r\n"
            ),
            outcome_for(IterationOutcome::Succeeded, "All done. LOOP_COMPLETE"),
            outcome_for(IterationOutcome::Succeeded, "\"LOOP_COMPLETE\""),
            outcome_for(IterationOutcome::Succeeded, "`LOOP_COMPLETE`"),
            outcome_for(
                IterationOutcome::Succeeded,
                "LOOP_COMPLETE\nbut the tests still fail, so not yet."
            ),
            outcome_for(
                IterationOutcome::Succeeded,
                "I will not print LOOP_COMPLETE yet."
            ),
            outcome_for(failed, "LOOP_COMPLETE"),
            outcome_for(IterationOutcome::StoppedAtCostLimit, "LOOP_COMPLETE"),
            outcome_for(IterationOutcome::Interrupted, "LOOP_COMPLETE"),
        ],
        [
            Some(CompletionSignal::FinalText),
            Some(CompletionSignal::FinalText),
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
        ]
    );
}

#[test]
fn a_promise_last_in_a_limited_attempt_is_said_not_to_count_and_never_that_others_followed() {
    let stopped = [
        IterationOutcome::RateLimited {
            message: "usage limit".into(),
            resets_at: None,
        },
        IterationOutcome::Interrupted,
    ];
    for outcome in stopped {
        let mut m = Machine::new(solo());
        let it = run(&mut m);
        let record = m.finish(it, report(outcome.clone(), &[ev(PROMISE)]), S);
        assert_eq!(record.completion, None, "{outcome}");
        let notes: Vec<Notice> = (m.take_notices().into_iter())
            .filter(|n| {
                matches!(
                    n,
                    Notice::PromiseNotLast { .. } | Notice::PromiseRateLimited { .. }
                )
            })
            .collect();
        // Only the limited attempt's says why the promise did not count: an interrupted
        // run stops, and its reason says why.
        let expected = match outcome {
            IterationOutcome::RateLimited { .. } => vec![Notice::PromiseRateLimited {
                promise: PROMISE.into(),
            }],
            _ => vec![],
        };
        assert_eq!(notes, expected, "{outcome}");
    }
}

#[test]
fn a_final_answer_naming_the_promise_off_its_last_line_says_why_it_did_not_complete() {
    let notices_for = |outcome: IterationOutcome, emitted: &[Event], text: &str| {
        let mut m = Machine::new(solo());
        let it = run(&mut m);
        let mut r = report(outcome, emitted);
        r.final_text = Some(text.into());
        m.finish(it, r, S);
        // Only this notice: a failed run also has its events requeued.
        let notices: Vec<Notice> = m
            .take_notices()
            .into_iter()
            .filter(|n| matches!(n, Notice::PromiseNotAlone { .. }))
            .collect();
        notices
    };
    let not_alone = vec![Notice::PromiseNotAlone {
        promise: PROMISE.into(),
    }];
    let ok = IterationOutcome::Succeeded;
    assert_eq!(
        notices_for(ok.clone(), &[], "All done. LOOP_COMPLETE"),
        not_alone
    );
    assert_eq!(
        notices_for(ok.clone(), &[], "LOOP_COMPLETE\nbut the tests still fail."),
        not_alone
    );
    // Completed, or nothing that looks like an attempt: nothing to explain.
    assert_eq!(
        notices_for(ok.clone(), &[], "All done.\n\nLOOP_COMPLETE\n"),
        []
    );
    assert_eq!(notices_for(ok.clone(), &[], "All done."), []);
    assert_eq!(
        notices_for(
            ok.clone(),
            &[ev(PROMISE)],
            "Emitted LOOP_COMPLETE, all done."
        ),
        []
    );
    // Emitted, then other events: `promise_not_last` explains that; the answer naming
    // the promise (a text agent's output holds `ralph emit`'s own confirmation) is no
    // second reason.
    assert_eq!(
        notices_for(
            ok,
            &[ev(PROMISE), ev("more.work")],
            "event `LOOP_COMPLETE` published\nevent `more.work` published"
        ),
        []
    );
    // A failed run never completes by its answer: the failure is the reason, not the line.
    let failed = IterationOutcome::Failed { reason: "x".into() };
    assert_eq!(notices_for(failed, &[], "All done. LOOP_COMPLETE"), []);
}

#[test]
fn a_promise_from_an_iteration_that_did_not_succeed_never_completes_and_says_why() {
    let failed = IterationOutcome::Failed {
        reason: "exit code 1 (last error: 401 Unauthorized)".into(),
    };
    let cut = [
        (failed, "failed"),
        (
            IterationOutcome::StoppedAtCostLimit,
            "stopped_at_cost_limit",
        ),
        (
            IterationOutcome::StoppedAtRuntimeLimit,
            "stopped_at_runtime_limit",
        ),
    ];
    for (outcome, name) in cut {
        let dropped = [Notice::PromiseFailed {
            promise: PROMISE.into(),
            outcome: name.into(),
        }];
        // Emitted last, or alone on the last line of the answer before the failing call.
        let mut by_answer = report(outcome.clone(), &[]);
        by_answer.final_text = Some("All done.\nLOOP_COMPLETE".into());
        for r in [report(outcome.clone(), &[ev(PROMISE)]), by_answer] {
            let mut m = Machine::new(solo());
            let it = run(&mut m);
            let start = it.events.clone();
            let record = m.finish(it, r, S);
            assert_eq!(record.completion, None, "{outcome}");
            let notices = m.take_notices();
            let promise_notes: Vec<&Notice> = (notices.iter())
                .filter(|n| {
                    matches!(
                        n,
                        Notice::PromiseFailed { .. } | Notice::PromiseNotAlone { .. }
                    )
                })
                .collect();
            assert_eq!(
                promise_notes,
                dropped.iter().collect::<Vec<_>>(),
                "{outcome}"
            );
            // The loop goes on where nothing else stops it: the hat gets its events again,
            // and may say it is done again.
            if name == "failed" {
                let Next::Run(again) = m.next(2 * S) else {
                    panic!("a failed iteration's promise stopped the loop");
                };
                assert_eq!(again.events, start);
            }
        }
    }
    // The user's stop says why by itself: no note.
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    let record = m.finish(it, report(IterationOutcome::Interrupted, &[ev(PROMISE)]), S);
    assert_eq!(record.completion, None);
    assert!(
        !(m.take_notices().iter()).any(|n| matches!(n, Notice::PromiseFailed { .. })),
        "interrupted"
    );
}

#[test]
fn a_promise_from_a_failed_iteration_then_from_a_clean_one_completes_the_run() {
    let mut m = Machine::new(solo());
    let failed = IterationOutcome::Failed { reason: "x".into() };
    step(&mut m, report(failed, &[ev(PROMISE)]));
    step(&mut m, ok(&[ev(PROMISE)]));
    assert_eq!(stop(&mut m), completed(CompletionSignal::Event));
}

#[test]
fn an_answer_cut_at_the_output_limit_does_not_complete_and_says_why() {
    let cut_report = |text: &str| {
        let mut r = ok(&[]);
        r.final_text = Some(text.into());
        r.final_cut_at_length = true;
        r
    };
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    let record = m.finish(it, cut_report("Half of the answer\nLOOP_COMPLETE"), S);
    assert_eq!(record.completion, None);
    assert_eq!(record.outcome, IterationOutcome::Succeeded);
    assert_eq!(
        m.take_notices(),
        vec![Notice::PromiseCutAtLength {
            promise: PROMISE.into()
        }]
    );
    // The loop goes on, and a whole answer that says it again completes the run.
    let mut whole = ok(&[]);
    whole.final_text = Some("All of the answer\nLOOP_COMPLETE".into());
    step(&mut m, whole);
    assert_eq!(stop(&mut m), completed(CompletionSignal::FinalText));

    // A cut answer that names the promise elsewhere gets the usual note; one that does not
    // name it gets none; an emitted promise still completes (the agent ran it on purpose).
    let notes = |r: IterationReport| {
        let mut m = Machine::new(solo());
        let it = run(&mut m);
        let completion = m.finish(it, r, S).completion;
        (completion, m.take_notices())
    };
    assert_eq!(
        notes(cut_report("LOOP_COMPLETE is what I will say when")),
        (
            None,
            vec![Notice::PromiseNotAlone {
                promise: PROMISE.into()
            }]
        )
    );
    assert_eq!(notes(cut_report("Half of the answer")), (None, vec![]));
    let mut emitted = cut_report("Half of the answer\nLOOP_COMPLETE");
    emitted.inbox = lines(&[ev(PROMISE)]);
    assert_eq!(notes(emitted), (Some(CompletionSignal::Event), vec![]));
}
