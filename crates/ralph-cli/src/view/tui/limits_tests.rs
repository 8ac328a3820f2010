//! Steering notes, a rate-limited attempt and the wait after it, as the full-screen view
//! shows them.

use super::*;

#[test]
fn a_steering_message_is_a_note_in_the_iteration_it_was_sent_during() {
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "builder", "pi");
    feed(
        &mut model,
        &RunEvent::SteerReceived {
            iteration: 2,
            id: "i",
            message: "use\nplan B",
            queued: true,
            went: "queued for iteration 2",
        },
    );
    let notes: Vec<String> = model.iterations[0]
        .entries
        .iter()
        .map(|e| e.searchable().into_owned())
        .collect();
    assert_eq!(notes, vec!["steer “use plan B” → queued for iteration 2"]);
}

#[test]
fn a_message_the_agent_read_is_a_note_and_its_prompt_is_not() {
    let mut model = RunModel::default();
    loop_started(&mut model, "claude");
    iteration_started(&mut model, 1, "builder", "claude");
    for text in ["the prompt", "use\nplan B"] {
        feed(
            &mut model,
            &RunEvent::Agent {
                iteration: 1,
                event: &AgentEvent::UserMessage { text: text.into() },
            },
        );
    }
    let notes: Vec<String> = model.iterations[0]
        .entries
        .iter()
        .map(|e| e.searchable().into_owned())
        .collect();
    assert_eq!(notes, vec!["✉ read: use plan B"]);
}

/// A run whose iteration 1 (`ralph` on pi) ended rate limited, with no reset time.
fn limited_iteration_1() -> RunModel {
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "ralph", "pi");
    let limited = IterationOutcome::RateLimited {
        message: "429".into(),
        resets_at: None,
    };
    iteration_finished(&mut model, 1, "ralph", &limited);
    model
}

#[test]
fn a_limited_attempt_says_where_the_next_one_runs() {
    let mut model = limited_iteration_1();
    feed(
        &mut model,
        &RunEvent::Failover {
            iteration: 1,
            hat: "ralph",
            from: "pi",
            from_fallback: 0,
            to: "claude",
            to_fallback: 1,
        },
    );
    feed(
        &mut model,
        &RunEvent::RateLimitWait {
            iteration: 1,
            hat: "ralph",
            wait_secs: 60,
            resets_at: None,
            message: "429",
        },
    );
    let notes: Vec<&str> = model.iterations[0]
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Note(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        notes,
        [
            "■ iteration 1 rate limited: 429",
            "↪ rate limited on pi: iteration 1 runs on claude (fallback 1)",
            "⏸ rate limited: waiting 1m 00s, then iteration 1 (ralph)",
        ]
    );
    // The next attempt is an entry of its own, whose title says which attempt it is.
    attempt_started(&mut model, 1, 2, "ralph", "claude");
    let mut app = App::new(true);
    let shown = screen(&model, &mut app, 80, 12);
    assert!(
        shown.contains(" iteration 1 · attempt 2 · ralph · running"),
        "{shown}"
    );
}

#[test]
fn the_status_line_counts_a_wait_down_to_its_end() {
    let mut model = waiting_after_iteration_1();
    let mut app = App::new(true);
    // The attempt ended 61 s after it started (21:55:10 UTC); the wait ends 252 s later.
    let ended_ms = STARTED_AT_MS + 61_000;
    let status = |model: &RunModel, app: &mut App, now_ms: u64| {
        let shown = screen_at(model, app, 100, 12, now_ms);
        shown.lines().last().unwrap().trim_end().to_owned()
    };
    assert_eq!(
        status(&model, &mut app, ended_ms + 10_000),
        "⏸ rate limited on pi: retrying in 4m 02s (at 22:00 UTC)  ? help"
    );
    assert_eq!(
        status(&model, &mut app, ended_ms + 251_500),
        "⏸ rate limited on pi: retrying in 1s (at 22:00 UTC)  ? help"
    );
    // Its time is up: the next attempt is about to start.
    assert_eq!(
        status(&model, &mut app, ended_ms + 252_000),
        "⏸ rate limited on pi: retrying now  ? help"
    );
    // The next attempt ends it, whatever the clock says.
    iteration_started(&mut model, 1, "ralph", "pi");
    assert!(model.waiting.is_none());
    assert!(
        !status(&model, &mut app, ended_ms + 10_000).contains("retrying"),
        "{}",
        status(&model, &mut app, ended_ms + 10_000)
    );
}

/// A long run keeps the newest iterations' text within the budget; an older one keeps
/// its outcome and says where its transcript is.
#[test]
fn old_transcripts_leave_memory_and_say_where_they_are() {
    let mut model = RunModel::default();
    model.kept.budget = 20_000;
    loop_started(&mut model, "custom");
    let text = "x".repeat(4_000);
    for n in 1..=30 {
        iteration_started(&mut model, n, "builder", "custom");
        feed(
            &mut model,
            &RunEvent::Agent {
                iteration: n,
                event: &AgentEvent::TextDelta {
                    text: text.as_str().into(),
                },
            },
        );
        let outcome = if n == 1 {
            IterationOutcome::Failed {
                reason: "exit code 2".to_owned(),
            }
        } else {
            IterationOutcome::Succeeded
        };
        iteration_finished(&mut model, n, "builder", &outcome);
    }
    let kept_text: usize = model
        .iterations
        .iter()
        .flat_map(|it| &it.entries)
        .map(|e| match e {
            Entry::Text(t) => t.len(),
            _ => 0,
        })
        .sum();
    assert!(kept_text <= 20_000, "{kept_text}");
    assert!(kept_text >= 3 * 4_000, "the newest are kept: {kept_text}");
    assert_eq!(model.iterations.len(), 30);
    let first: Vec<String> = model.iterations[0]
        .entries
        .iter()
        .map(|e| e.searchable().into_owned())
        .collect();
    assert_eq!(
        first,
        [
            "(the view keeps the newest iterations' text: this one's is in \
             `ralph inspect --run 20261125-215510-tui1 --iteration 1 --view`)",
            "✗ iteration 1 failed: exit code 2",
        ]
    );
    assert!(matches!(model.iterations[29].entries[0], Entry::Text(_)));
}

/// An agent flooding its output in the iteration being watched does not grow the view:
/// it keeps the iteration's end, and a note first says how many lines went and where
/// they are (one note, however often it was cut).
#[test]
fn a_flood_in_the_newest_iteration_keeps_its_end() {
    const LINES: usize = 5_000;
    let mut model = RunModel::default();
    model.kept.newest_budget = 20_000;
    loop_started(&mut model, "custom");
    iteration_started(&mut model, 1, "builder", "custom");
    for n in 0..LINES {
        let text = format!("line {n} of a flood\n");
        feed(
            &mut model,
            &RunEvent::Agent {
                iteration: 1,
                event: &AgentEvent::TextDelta {
                    text: text.as_str().into(),
                },
            },
        );
        if n == LINES / 2 {
            bash_call(&mut model, "t1", "ls");
        }
    }
    let it = &model.iterations[0];
    let held: usize = it.entries.iter().map(|e| e.searchable().len()).sum();
    assert!(held <= 20_000, "{held}");
    let Entry::Note(note) = &it.entries[0] else {
        panic!("{:?}", it.entries[0]);
    };
    let left_out = it.left_out_lines;
    assert_eq!(
        note,
        &format!(
            "(the view keeps the end of this iteration: its first {left_out} lines are in \
             `ralph inspect --run 20261125-215510-tui1 --iteration 1 --view`)"
        )
    );
    let notes = it
        .entries
        .iter()
        .filter(|e| matches!(e, Entry::Note(n) if n.starts_with("(the view keeps")))
        .count();
    assert_eq!(notes, 1);
    let Some(Entry::Text(last)) = it.entries.last() else {
        panic!("{:?}", it.entries.last());
    };
    assert!(last.ends_with(&format!("line {} of a flood\n", LINES - 1)));
    // Every line is either kept or counted, the tool call (gone) as one.
    let kept: usize = it
        .entries
        .iter()
        .map(|e| match e {
            Entry::Text(t) => t.lines().count(),
            Entry::Tool(_) => 1,
            _ => 0,
        })
        .sum();
    assert_eq!(kept + left_out, LINES + 1);
    assert!(kept > 100, "{kept}");
}

/// The status line says when a streaming agent went quiet, not that it is writing.
#[test]
fn a_quiet_agent_is_not_said_to_be_writing() {
    let mut model = RunModel::default();
    loop_started(&mut model, "custom");
    iteration_started(&mut model, 1, "builder", "custom");
    feed(
        &mut model,
        &RunEvent::Agent {
            iteration: 1,
            event: &AgentEvent::TextDelta {
                text: "hello\n".into(),
            },
        },
    );
    let status = |model: &RunModel, now_ms: u64| {
        let shown = screen_at(model, &mut App::new(true), 100, 12, now_ms);
        shown.lines().last().unwrap().trim_end().to_owned()
    };
    model.heard_ms = NOW_MS - 1_000;
    assert_eq!(status(&model, NOW_MS), "iteration 1: writing  ? help");
    model.heard_ms = NOW_MS - 20_000;
    assert_eq!(
        status(&model, NOW_MS),
        "iteration 1: no output for 0:20  ? help"
    );
    // An hour of Ctrl-Z in those 20 s of silence (`ralph run --tui`): not the agent's.
    model.heard_ms = NOW_MS - 3_620_000;
    model.paused_since_heard_ms = 3_600_000;
    assert_eq!(
        status(&model, NOW_MS),
        "iteration 1: no output for 0:20  ? help"
    );
}

/// While the loop stops (the agent's grace), a key pressed does not hide it.
#[test]
fn stopping_stays_on_the_status_line_through_keys() {
    let mut model = one_iteration("pi", "builder", "pi/anthropic/text.jsonl");
    let mut app = App::new(true);
    app.stopping = Some("stopping the agent (Ctrl-C again kills it)".to_owned());
    key(&mut app, &mut model, KeyCode::Char('k'));
    key(&mut app, &mut model, KeyCode::Char('j'));
    let shown = screen(&model, &mut app, 100, 12);
    let status = shown.lines().last().unwrap().trim_end();
    assert_eq!(status, "stopping the agent (Ctrl-C again kills it)");
}

/// [`limited_iteration_1`], then the loop waits 252 s for the limit.
fn waiting_after_iteration_1() -> RunModel {
    let mut model = limited_iteration_1();
    feed(
        &mut model,
        &RunEvent::RateLimitWait {
            iteration: 1,
            hat: "ralph",
            wait_secs: 252,
            resets_at: None,
            message: "usage limit reached",
        },
    );
    model
}

/// The header's second line, drawn at `now_ms`.
fn header_at(model: &RunModel, now_ms: u64) -> String {
    let mut app = App::new(true);
    let shown = screen_at(model, &mut app, 100, 12, now_ms);
    shown.lines().nth(1).unwrap().trim_end().to_owned()
}

#[test]
fn the_header_clock_runs_on_while_the_loop_waits() {
    let mut model = waiting_after_iteration_1();
    // The run's clock read 0 when the attempt started; 61 s of it, then 100 s of waiting.
    let waited_ms = STARTED_AT_MS + 161_000;
    assert!(
        header_at(&model, waited_ms).contains(" · 2:41/30:00 · "),
        "{}",
        header_at(&model, waited_ms)
    );
    // Once the loop ends, the clock shows what the loop said.
    let reason = StopReason::Interrupted;
    feed(
        &mut model,
        &RunEvent::LoopFinished {
            reason: &reason,
            message: "interrupted".to_owned(),
            outcome: reason.class(),
            exit_code: 130,
            totals: totals(1, 0.0123),
            summary_path: "s.md",
            git: None,
        },
    );
    assert!(header_at(&model, waited_ms + 60_000).contains(" · 1:01/30:00 · "));
}

#[test]
fn a_loop_gone_during_a_wait_stops_the_clock_until_its_record_goes_on() {
    let mut model = waiting_after_iteration_1();
    // `ralph watch` finds no loop any more (killed during the wait): the clock stops
    // where the record ends, whenever the screen is drawn, and the view says why.
    model.abandoned(None);
    for later in [100_000, 10_000_000] {
        assert!(header_at(&model, STARTED_AT_MS + later).contains(" · 1:01/30:00 · "));
    }
    assert!(model.activity.starts_with("the loop is not running"));
    // `ralph run --continue` takes the run up: its clock runs again.
    attempt_started(&mut model, 1, 2, "ralph", "pi");
    assert!(model.finished.is_none() && model.running());
}

#[test]
fn the_header_clock_leaves_out_the_time_ralph_was_stopped() {
    // `ralph run --tui`: an hour of Ctrl-Z, then `fg`, during iteration 1, drawn 15 s of
    // running time later. The loop's clock leaves the hour out; so does the header.
    const SUSPENDED_MS: u64 = 3_600_000;
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "builder", "pi");
    model.paused_ms = SUSPENDED_MS;
    let now_ms = STARTED_AT_MS + SUSPENDED_MS + 15_000;
    let shown = header_at(&model, now_ms);
    assert!(shown.contains(" · 0:15/30:00 · "), "{shown}");
    // The iteration's own time in the list, too.
    let screen = screen_at(&model, &mut App::new(true), 100, 12, now_ms);
    assert!(!screen.contains("1h"), "{screen}");
    assert!(screen.contains(" 15.0s "), "{screen}");
    // And while the loop waits after the iteration, before the next starts.
    let mut model = waiting_after_iteration_1();
    model.paused_ms = SUSPENDED_MS;
    let shown = header_at(&model, STARTED_AT_MS + SUSPENDED_MS + 161_000);
    assert!(shown.contains(" · 2:41/30:00 · "), "{shown}");
}

/// A flood that is one line (an answer with no newline) is "its first line", not "its
/// first 1 lines".
#[test]
fn a_flood_of_one_line_is_named_in_the_singular() {
    let mut model = RunModel::default();
    model.kept.newest_budget = 20_000;
    loop_started(&mut model, "custom");
    iteration_started(&mut model, 1, "builder", "custom");
    let one_line = "x".repeat(30_000);
    feed(
        &mut model,
        &RunEvent::Agent {
            iteration: 1,
            event: &AgentEvent::TextDelta {
                text: one_line.as_str().into(),
            },
        },
    );
    bash_call(&mut model, "t1", "ls");
    let it = &model.iterations[0];
    assert_eq!(it.left_out_lines, 1);
    let Entry::Note(note) = &it.entries[0] else {
        panic!("{:?}", it.entries[0]);
    };
    assert!(
        note.starts_with("(the view keeps the end of this iteration: its first line is in "),
        "{note}"
    );
}
