//! Notices, gate results and the events read from tags in the full-screen view are said
//! in words, as the line view says them.

use ralph_core::machine::Notice;
use ralph_core::run_event::RunEvent;

use super::*;

/// A notice is said in words as the line view says it (its `Display`), on screen and in
/// the export; a kind this ralph does not know keeps its name.
#[test]
fn notices_are_said_in_words_on_screen_and_in_the_export() {
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "builder", "pi");
    for notice in &Notice::examples() {
        feed(
            &mut model,
            &RunEvent::Notice {
                iteration: Some(1),
                notice,
            },
        );
    }
    model.apply_json(b"{\"type\":\"notice\",\"iteration\":1,\"notice\":\"new_kind\"}");
    let notes: Vec<String> = model.iterations[0]
        .entries
        .iter()
        .map(|e| e.searchable().into_owned())
        .collect();
    let mut expected: Vec<String> = Notice::examples()
        .iter()
        .map(|n| format!("note: {n}"))
        .collect();
    expected.push("note: new_kind".to_owned());
    assert_eq!(notes, expected);
    let md = export::markdown(&model, &model.iterations[0]);
    assert!(
        md.contains("*note: completion refused: 1 task of this run is not done yet (task-1-a: t)*"),
        "{md}"
    );
}

/// A gate's end reads as the line view says it, never as its reason's code; one that
/// printed nothing shows no output.
#[test]
fn gate_results_are_said_in_words() {
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "builder", "pi");
    let ends = [
        (GateEnd::Passed, Some(0)),
        (GateEnd::Exit, Some(101)),
        (GateEnd::Exit, None),
        (GateEnd::Timeout, None),
        (GateEnd::Spawn, None),
        (GateEnd::Interrupted, None),
    ];
    for (end, exit_code) in ends {
        let result = GateResult {
            gate: "tests".to_owned(),
            event: "build.done".to_owned(),
            end,
            exit_code,
            duration_ms: 4_200,
            output: String::new(),
            output_lines: 0,
            log: None,
        };
        feed(
            &mut model,
            &RunEvent::GateFinished {
                iteration: Some(1),
                passed: end == GateEnd::Passed,
                result: &result,
            },
        );
    }
    let details: Vec<&str> = model.iterations[0]
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Gate(g) => Some(g.detail.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        details,
        [
            "passed · 4.2s",
            "failed (exit code 101) · 4.2s",
            "failed (killed by a signal) · 4.2s",
            "timed out, stopped · 4.2s",
            "could not start · 4.2s",
            "interrupted · 4.2s",
        ]
    );
    // None printed anything (a failed gate's `output` is then ""): no empty output box.
    let md = export::markdown(&model, &model.iterations[0]);
    assert!(!md.contains("```"), "{md}");
}

/// An iteration is marked and named as the line view marks and names it: `■` for one
/// stopped by a limit, the user or a provider (not the agent's failure), `✗` for a
/// failure; a status this ralph does not know keeps its name and is not called a success.
#[test]
fn iteration_ends_are_marked_and_said_as_the_line_view_does() {
    let outcomes = [
        (IterationOutcome::Succeeded, "✓", "succeeded"),
        (
            IterationOutcome::Failed {
                reason: "exit code 1".to_owned(),
            },
            "✗",
            "failed",
        ),
        (
            IterationOutcome::StoppedAtCostLimit,
            "■",
            "stopped at the cost limit",
        ),
        (
            IterationOutcome::StoppedAtRuntimeLimit,
            "■",
            "stopped at the runtime limit",
        ),
        (IterationOutcome::Interrupted, "■", "interrupted"),
        (
            IterationOutcome::RateLimited {
                message: "429".to_owned(),
                resets_at: None,
            },
            "■",
            "rate limited",
        ),
    ];
    for (outcome, mark, words) in &outcomes {
        let mut model = RunModel::default();
        loop_started(&mut model, "pi");
        iteration_started(&mut model, 1, "builder", "pi");
        iteration_finished(&mut model, 1, "builder", outcome);
        let mut app = App::new(false);
        let shown = screen(&model, &mut app, 100, 12);
        assert!(shown.contains(&format!("{mark}  1 builder")), "{shown}");
        assert!(
            shown.contains(&format!("iteration 1 · builder · {words} ")),
            "{shown}"
        );
    }
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "builder", "pi");
    model.apply_json(
        b"{\"type\":\"iteration_finished\",\"iteration\":1,\"outcome\":{\"status\":\"new_kind\"},\
          \"duration_ms\":1,\"tokens\":{\"input\":0,\"output\":0,\"cache_read\":0,\"cache_write\":0},\
          \"totals\":{\"iterations\":1,\"elapsed_ms\":1,\"cost_usd\":0.0,\"cost_complete\":true,\
          \"tokens\":{\"input\":0,\"output\":0,\"cache_read\":0,\"cache_write\":0}}}",
    );
    let shown = screen(&model, &mut App::new(false), 100, 12);
    assert!(shown.contains("✗  1 builder"), "{shown}");
    assert!(
        shown.contains("iteration 1 · builder · new_kind "),
        "{shown}"
    );
}

/// A failed iteration says why and what its agent wrote on stderr, in the transcript, as
/// the line view's footer does; the agent's bytes are shown as text.
#[test]
fn a_failure_says_its_reason_and_stderr_in_the_transcript() {
    let mut model = RunModel::default();
    loop_started(&mut model, "custom");
    iteration_started(&mut model, 1, "builder", "custom");
    let outcome = IterationOutcome::Failed {
        reason: "killed by signal 11".to_owned(),
    };
    feed(
        &mut model,
        &RunEvent::IterationFinished {
            iteration: 1,
            hat: "builder",
            backend: "custom",
            model: None,
            outcome: &outcome,
            duration_ms: 1_000,
            cost_usd: None,
            cost_kind: CostKind::Unknown,
            tokens: NO_TOKENS,
            tokens_known: false,
            turns: 0,
            completion: None,
            stderr_tail: Some("about to crash\nsome \u{1b}[2Jstderr\n"),
            totals: totals(1, 0.0),
        },
    );
    let shown = screen(&model, &mut App::new(false), 100, 12);
    assert!(
        shown.contains("✗ iteration 1 failed: killed by signal 11"),
        "{shown}"
    );
    assert!(shown.contains("stderr: about to crash"), "{shown}");
    assert!(shown.contains("stderr: some [2Jstderr"), "{shown}");
    assert!(!shown.contains('\u{1b}'), "{shown}");

    // A success says nothing more than its title.
    let mut model = RunModel::default();
    loop_started(&mut model, "custom");
    iteration_started(&mut model, 1, "builder", "custom");
    iteration_finished(&mut model, 1, "builder", &IterationOutcome::Succeeded);
    assert!(model.iterations[0].entries.is_empty());
}

/// An event the agent wrote as an `<event>` tag is marked `(tag)`, as the line view marks
/// it (`⇢ emitted (tag) build.done`): the last `from_tags` of the events are the tags'. A
/// record written before ralph counted them (no `from_tags`) marks none.
#[test]
fn events_read_from_tags_are_marked_on_screen_and_in_the_export() {
    use ralph_core::event::Event;

    let events = [
        Event::with_text("build.started", "compiling"),
        Event::with_text("build.done", "all green"),
        Event::new("review.ready"),
    ];
    let mut model = emitted(&events, 2, &[]);
    model.apply_json(
        b"{\"type\":\"events_emitted\",\"iteration\":1,\
          \"events\":[{\"topic\":\"old.record\",\"payload\":\"before tags\"}]}",
    );
    assert_eq!(
        entries(&model),
        [
            "build.started compiling\nbuild.done (tag) all green\nreview.ready (tag)",
            "old.record before tags",
        ]
    );
    let mut app = App::new(true);
    let shown = screen(&model, &mut app, 100, 24);
    assert!(shown.contains("⇢ build.started compiling "), "{shown}");
    assert!(shown.contains("⇢ build.done (tag) all green "), "{shown}");
    assert!(shown.contains("⇢ review.ready (tag) "), "{shown}");
    let md = export::markdown(&model, &model.iterations[0]);
    assert!(md.contains("- `build.done` (tag) all green"), "{md}");
}

/// An event a gate withheld is listed once, marked `(withheld)`: the record has it among
/// the agent's events and names its topic in `withheld` too.
#[test]
fn a_withheld_event_is_listed_once_and_marked() {
    use ralph_core::event::Event;

    let events = [
        Event::with_text("build.done", "all green"),
        Event::new("notes.added"),
    ];
    let withheld = ["build.done".to_owned(), "never.emitted".to_owned()];
    assert_eq!(
        entries(&emitted(&events, 0, &withheld)),
        ["build.done (withheld) all green\nnotes.added \nnever.emitted (withheld)"]
    );
}

/// A pi run's first iteration, with an `events_emitted` record of `events` (the last
/// `from_tags` from tags) and `withheld`.
fn emitted(events: &[ralph_core::event::Event], from_tags: u32, withheld: &[String]) -> RunModel {
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "builder", "pi");
    feed(
        &mut model,
        &RunEvent::EventsEmitted {
            iteration: 1,
            events,
            from_tags,
            outside: &[],
            invalid_lines: 0,
            verified: &[],
            withheld,
        },
    );
    model
}

/// The first iteration's entries, as search reads them.
fn entries(model: &RunModel) -> Vec<String> {
    model.iterations[0]
        .entries
        .iter()
        .map(|e| e.searchable().into_owned())
        .collect()
}
