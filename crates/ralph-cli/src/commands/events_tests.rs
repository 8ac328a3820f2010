use super::*;

#[test]
fn topic_patterns_match_with_stars() {
    let cases = [
        ("build.done", "build.done", true),
        ("build.done", "build.done.x", false),
        ("build.*", "build.done", true),
        ("build.*", "review.done", false),
        ("*.done", "build.done", true),
        ("*", "anything", true),
        ("a*b*c", "a-x-b-y-c", true),
        ("a*b*c", "a-x-c-y-b", false),
    ];
    let got: Vec<bool> = cases.iter().map(|(p, t, _)| glob(p, t)).collect();
    let want: Vec<bool> = cases.iter().map(|(_, _, w)| *w).collect();
    assert_eq!(got, want);
}

#[test]
fn the_table_aligns_its_columns_and_keeps_payloads_to_one_line() {
    let row = |iteration, topic: Option<&str>, payload: Option<Value>| Row {
        iteration,
        hat: Some("builder".into()),
        backend: Some("pi".into()),
        outcome: "succeeded".into(),
        started_at_ms: Some(1_000 + 65_000 * u64::from(iteration - 1)),
        consumed: vec![],
        source: topic.map(|_| Source::Agent),
        topic: topic.map(str::to_owned),
        payload,
        withheld: false,
    };
    let rows = [
        row(
            1,
            Some("plan.ready"),
            Some(Value::from("step one\nstep two")),
        ),
        row(2, None, None),
        Row {
            source: Some(Source::Default),
            withheld: true,
            ..row(3, Some("build.done"), None)
        },
        Row {
            hat: None,
            backend: None,
            outcome: RUNNING.into(),
            started_at_ms: None,
            ..row(10, Some("x"), Some(serde_json::json!({"a": 1})))
        },
    ];
    assert_eq!(
        table(&rows, "r", 1_000),
        "TIME  ITER  HAT      OUTCOME    FROM     TOPIC                  PAYLOAD\n\
             0:00     1  builder  succeeded  agent    plan.ready             step one step two\n\
             1:05     2  builder  succeeded           —\n\
             2:10     3  builder  succeeded  default  build.done (withheld)\n        \
             10  …        running    agent    x                      {\"a\":1}\n"
    );
}

#[test]
fn a_filtered_table_keeps_the_runs_clock() {
    // The second iteration started 65 s into the run: shown alone it still says 1:05.
    let row = Row {
        iteration: 2,
        hat: Some("builder".into()),
        backend: Some("pi".into()),
        outcome: "succeeded".into(),
        started_at_ms: Some(66_000),
        consumed: vec![],
        source: Some(Source::Agent),
        topic: Some("build.done".into()),
        payload: None,
        withheld: false,
    };
    assert!(table(&[row], "r", 1_000).contains("\n1:05 "));
}

#[test]
fn each_steering_message_comes_once_first_among_its_iteration_s_rows() {
    use ralph_core::steer::{Logged, SteerLogLine};
    let event = |topic: &str| ralph_core::event::Event {
        topic: topic.into(),
        payload: None,
        to: None,
    };
    let record = |iteration, emitted: &[&str]| {
        let mut record: IterationRecord = serde_json::from_value(serde_json::json!({
            "iteration": iteration, "hat": "builder", "backend": "pi", "model": null,
            "outcome": {"status": "succeeded"}, "started_at_ms": 1000 * iteration,
            "duration_ms": 1, "cost_usd": null, "cost_kind": "reported",
            "tokens": {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0},
            "turns": 1, "consumed": [], "events": [], "invalid_lines": 0
        }))
        .unwrap();
        record.events = emitted.iter().map(|t| event(t)).collect();
        record
    };
    let history = [record(1, &["a", "b"]), record(2, &[])];
    let mut rows: Vec<Row> = history
        .iter()
        .flat_map(|r| record_rows(r, &[], None))
        .collect();
    let line = |went, iteration, message: Option<&str>| SteerLogLine {
        at_ms: 0,
        id: "x".into(),
        went,
        iteration,
        message: message.map(str::to_owned),
        to: None,
    };
    let steering = [
        line(Logged::Queued, 2, Some("first")),
        line(Logged::MidTurn, 2, Some("second")),
        line(Logged::Prompt, 2, None),
        line(Logged::Unread, 2, Some("second")),
        line(Logged::Queued, 3, Some("for the next")),
        line(Logged::Requeued, 3, Some("for the next")),
        line(Logged::Queued, 1, None),
    ];
    let running = Running {
        iteration: 3,
        start: serde_json::from_value(serde_json::json!({
            "iteration": 3, "hat": "reviewer", "backend": "claude", "started_at_ms": 3000,
            "events": [{"topic": "build.done", "payload": null}]
        }))
        .unwrap(),
        ended: false,
    };
    rows = with_guidance(rows, &steering, &history, &running);
    let shown: Vec<(u32, Option<&str>, &str, Option<String>)> = rows
        .iter()
        .map(|r| {
            let payload = r
                .payload
                .as_ref()
                .and_then(|p| p.as_str().map(str::to_owned));
            (r.iteration, r.topic.as_deref(), r.outcome.as_str(), payload)
        })
        .collect();
    let guidance =
        |n, outcome, text: &str| (n, Some("human.guidance"), outcome, Some(text.to_owned()));
    assert_eq!(
        shown,
        [
            (1, Some("a"), "succeeded", None),
            (1, Some("b"), "succeeded", None),
            guidance(2, "succeeded", "first"),
            guidance(2, "succeeded", "second"),
            (2, None, "succeeded", None),
            guidance(3, RUNNING, "for the next"),
        ]
    );
    // A guidance row says when its iteration started, as the iteration's own rows do;
    // the running iteration's, as its start line says.
    assert_eq!(rows[2].started_at_ms, Some(2000));
    let last = &rows[5];
    assert_eq!(
        (last.hat.as_deref(), last.backend.as_deref()),
        (Some("reviewer"), Some("claude"))
    );
    assert_eq!(
        (last.started_at_ms, last.consumed.as_slice()),
        (Some(3000), ["build.done".to_owned()].as_slice())
    );
}

#[test]
fn an_iterations_rows_say_what_ralph_published_and_what_a_gate_withheld() {
    let event = |topic: &str, payload: Option<&str>| ralph_core::event::Event {
        topic: topic.into(),
        payload: payload.map(Value::from),
        to: None,
    };
    let record = |iteration, hat: &str| -> IterationRecord {
        serde_json::from_value(serde_json::json!({
            "iteration": iteration, "hat": hat, "backend": "pi", "model": null,
            "outcome": {"status": "succeeded"}, "started_at_ms": 1000 * iteration,
            "duration_ms": 1, "cost_usd": null, "cost_kind": "reported",
            "tokens": {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0},
            "turns": 1, "consumed": [], "events": [], "invalid_lines": 0
        }))
        .unwrap()
    };
    let builder = record(1, "builder");
    let mut reviewer = record(2, "reviewer");
    reviewer.consumed = vec![
        event(GATE_FAILED, Some("tests failed")),
        event(
            "builder.exhausted",
            Some("hat `builder` reached max_activations"),
        ),
        // Not ralph's: no hat `budget` ran before.
        event("budget.exhausted", None),
        event(TASK_RESUME, None),
    ];
    reviewer.events = vec![event("review.done", None), event("LOOP_COMPLETE", None)];
    reviewer.withheld = vec!["LOOP_COMPLETE".into(), "docs.done".into()];
    reviewer.default_published = Some("review.next".into());
    let rows = record_rows(&reviewer, std::slice::from_ref(&builder), None);
    let shown: Vec<(Option<Source>, Option<&str>, bool)> = rows
        .iter()
        .map(|r| (r.source, r.topic.as_deref(), r.withheld))
        .collect();
    assert_eq!(
        shown,
        [
            (Some(Source::Ralph), Some(GATE_FAILED), false),
            (Some(Source::Ralph), Some("builder.exhausted"), false),
            (Some(Source::Ralph), Some(TASK_RESUME), false),
            (Some(Source::Agent), Some("review.done"), false),
            (Some(Source::Agent), Some("LOOP_COMPLETE"), true),
            (Some(Source::Default), Some("docs.done"), true),
            (Some(Source::Default), Some("review.next"), false),
        ]
    );
    assert_eq!(rows[0].payload, Some(Value::from("tests failed")));
    let json = serde_json::to_value(&rows[4]).unwrap();
    assert_eq!(
        (&json["source"], &json["withheld"]),
        (&Value::from("agent"), &Value::from(true))
    );

    // Handed only ralph's events and emitting nothing, the iteration still gets its row.
    let mut resumed = record(3, "builder");
    resumed.consumed = vec![event(TASK_RESUME, None)];
    let shown: Vec<(Option<Source>, Option<String>)> = record_rows(&resumed, &[], None)
        .into_iter()
        .map(|r| (r.source, r.topic))
        .collect();
    assert_eq!(
        shown,
        [
            (Some(Source::Ralph), Some(TASK_RESUME.to_owned())),
            (None, None)
        ]
    );
}

#[test]
fn a_message_queued_for_an_iteration_an_ended_run_never_ran_is_not_shown_running() {
    use ralph_core::steer::{Logged, SteerLogLine};
    let record: IterationRecord = serde_json::from_value(serde_json::json!({
        "iteration": 1, "hat": "ralph", "backend": "pi", "model": null,
        "outcome": {"status": "succeeded"}, "started_at_ms": 1000, "duration_ms": 5,
        "cost_usd": null, "cost_kind": "reported",
        "tokens": {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0},
        "turns": 1, "consumed": [], "invalid_lines": 0,
        "events": [{"topic": "LOOP_COMPLETE", "payload": null}]
    }))
    .unwrap();
    let history = [record];
    let steering = [SteerLogLine {
        at_ms: 0,
        id: "x".into(),
        went: Logged::Queued,
        iteration: 2,
        message: Some("after this, docs".into()),
        to: None,
    }];
    let ended = |ended| Running {
        iteration: 2,
        start: None,
        ended,
    };
    let outcome = |running: &Running| {
        let rows = with_guidance(
            record_rows(&history[0], &[], None),
            &steering,
            &history,
            running,
        );
        let last = rows.last().unwrap();
        assert_eq!(last.topic.as_deref(), Some(GUIDANCE_TOPIC));
        last.outcome.clone()
    };
    assert_eq!(outcome(&ended(false)), RUNNING);
    assert_eq!(outcome(&ended(true)), NOT_RUN);
}

#[test]
fn the_running_iterations_rows_come_before_a_message_queued_for_the_next() {
    use ralph_core::steer::{Logged, SteerLogLine};
    let running = Running {
        iteration: 1,
        start: serde_json::from_value(serde_json::json!({
            "iteration": 1, "hat": "ralph", "backend": "pi", "started_at_ms": 1000,
            "events": [{"topic": "task.start", "payload": null}]
        }))
        .unwrap(),
        ended: false,
    };
    let line = |iteration, message: &str| SteerLogLine {
        at_ms: 0,
        id: "x".into(),
        went: Logged::Queued,
        iteration,
        message: Some(message.to_owned()),
        to: None,
    };
    let steering = [line(2, "later please"), line(1, "now")];
    let shown = |pending: Vec<InboxLine>| -> Vec<(u32, Option<String>, String)> {
        assemble(&[], &running, &steering, pending, None)
            .into_iter()
            .map(|r| (r.iteration, r.topic, r.outcome))
            .collect()
    };
    let row =
        |n, topic: Option<&str>, outcome: &str| (n, topic.map(str::to_owned), outcome.to_owned());
    let guidance = Some(GUIDANCE_TOPIC);
    // Nothing emitted yet: the iteration at work still has its row.
    assert_eq!(
        shown(Vec::new()),
        [
            row(1, guidance, RUNNING),
            row(1, None, RUNNING),
            row(2, guidance, NOT_RUN),
        ]
    );
    // What its agent emitted so far takes that row's place, before the next one's message.
    let emitted = InboxLine::Event {
        event: ralph_core::event::Event::with_text("progress", "half"),
        sender: Some("4242-100-7".into()),
    };
    assert_eq!(
        shown(vec![emitted]),
        [
            row(1, guidance, RUNNING),
            row(1, Some("progress"), RUNNING),
            row(2, guidance, NOT_RUN),
        ]
    );
    // An ended run lists no iteration at work.
    let ended = Running {
        ended: true,
        ..running
    };
    let rows = assemble(&[], &ended, &[], Vec::new(), None);
    assert!(rows.is_empty(), "{rows:?}");
}

#[test]
fn an_event_from_outside_the_agent_is_listed_as_outside() {
    let event = |topic: &str| ralph_core::event::Event::new(topic);
    let mut record = succeeded_record();
    record.default_published = Some("build.done".to_owned());
    record.outside = vec![event("hotfix.needed")];
    assert_eq!(
        sources_and_topics(&record, None),
        [
            (Some("outside"), Some("hotfix.needed".to_owned())),
            (Some("default"), Some("build.done".to_owned())),
        ]
    );
    // While the iteration runs: a line that names no sender is surely from outside.
    let running = Running {
        iteration: 2,
        start: serde_json::from_value(serde_json::json!({
            "iteration": 2, "hat": "ralph", "backend": "pi", "started_at_ms": 1000,
            "events": []
        }))
        .unwrap(),
        ended: false,
    };
    let pending = vec![
        InboxLine::Event {
            event: event("progress"),
            sender: Some("4242-100-9".into()),
        },
        InboxLine::Event {
            event: event("hotfix.needed"),
            sender: None,
        },
    ];
    let sources: Vec<Option<&str>> = assemble(&[], &running, &[], pending, None)
        .into_iter()
        .map(|r| r.source.map(Source::name))
        .collect();
    assert_eq!(sources, [Some("agent"), Some("outside")]);
}

#[test]
fn events_the_agent_wrote_as_tags_are_listed_as_tag_after_those_it_emitted() {
    let event = |topic: &str| ralph_core::event::Event::new(topic);
    let mut record = succeeded_record();
    record.events = vec![event("progress"), event("build.done"), event("docs.done")];
    record.from_tags = 2;
    assert_eq!(
        sources_and_topics(&record, None),
        [
            (Some("agent"), Some("progress".to_owned())),
            (Some("tag"), Some("build.done".to_owned())),
            (Some("tag"), Some("docs.done".to_owned())),
        ]
    );
}

#[test]
fn an_iteration_whose_final_answer_completed_the_run_shows_the_promise() {
    let mut record = succeeded_record();
    record.completion = Some(CompletionSignal::FinalText);
    assert_eq!(
        sources_and_topics(&record, Some("ALL_DONE")),
        [(Some("answer"), Some("ALL_DONE".to_owned()))]
    );
    // The run's end names no promise (its state file is gone): the row stays as it was.
    assert_eq!(sources_and_topics(&record, None), [(None, None)]);
    // An event that completed it is listed as the agent's already, with no second row.
    record.completion = Some(CompletionSignal::Event);
    record.events = vec![ralph_core::event::Event::new("ALL_DONE")];
    assert_eq!(
        sources_and_topics(&record, Some("ALL_DONE")),
        [(Some("agent"), Some("ALL_DONE".to_owned()))]
    );
}

/// Iteration 1 of hat `builder`, which succeeded and published nothing.
fn succeeded_record() -> IterationRecord {
    serde_json::from_value(serde_json::json!({
        "iteration": 1, "hat": "builder", "backend": "pi", "model": null,
        "outcome": {"status": "succeeded"}, "started_at_ms": 1000,
        "duration_ms": 1, "cost_usd": null, "cost_kind": "reported",
        "tokens": {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0},
        "turns": 1, "consumed": [], "events": [], "invalid_lines": 0
    }))
    .unwrap()
}

/// Who published each row of `record`, and its topic (`promise`: the run's, when it
/// completed).
fn sources_and_topics(
    record: &IterationRecord,
    promise: Option<&str>,
) -> Vec<(Option<&'static str>, Option<String>)> {
    record_rows(record, &[], promise)
        .into_iter()
        .map(|r| (r.source.map(Source::name), r.topic))
        .collect()
}
