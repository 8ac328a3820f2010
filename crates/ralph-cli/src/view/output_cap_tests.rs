use std::borrow::Cow;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;

/// Every run event that got through, as JSON.
#[derive(Default)]
struct Seen(Vec<Value>);

impl Observer for Seen {
    fn observe(&mut self, event: &RunEvent<'_>) {
        self.0.push(serde_json::to_value(event).expect("JSON"));
    }
}

fn line(cap: &mut OutputCap<'_>, iteration: u32, text: &str) {
    let event = AgentEvent::TextDelta {
        text: Cow::Borrowed(text),
    };
    cap.observe(&RunEvent::Agent {
        iteration,
        event: &event,
    });
}

fn end(cap: &mut OutputCap<'_>) {
    cap.observe(&RunEvent::Error {
        message: "stopped",
        exit_code: 1,
    });
}

/// Only the iteration's cap, at `budget`.
fn per_iteration(budget: u64) -> Caps {
    Caps {
        per_iteration: budget,
        per_run: u64::MAX,
        head_past_run: 0,
    }
}

fn notices(seen: &Seen) -> Vec<&Value> {
    seen.0.iter().filter(|e| e["type"] == "notice").collect()
}

/// Past the budget, streamed lines are counted instead of passed on: the cut is said
/// where it happens and the count as the iteration ends; what matters to the loop (a
/// message's end) still passes, and the next iteration starts with a budget of its own.
#[test]
fn a_flood_is_cut_and_what_was_left_out_is_counted() {
    let mut seen = Seen::default();
    // Room for three 8-byte lines and their record lines, not four.
    let budget = 3 * (8 + RECORD_LINE_BYTES) + 5;
    let mut cap = OutputCap::with_caps(&mut seen, per_iteration(budget), 0);
    for _ in 0..10 {
        line(&mut cap, 1, "a line.\n");
    }
    let finished = AgentEvent::MessageFinished {
        text: Cow::Borrowed("a line."),
        stop: ralph_stream::Stop::Completed,
        error: None,
    };
    cap.observe(&RunEvent::Agent {
        iteration: 1,
        event: &finished,
    });
    end(&mut cap);
    line(&mut cap, 2, "again.\n");
    end(&mut cap);

    let deltas = |n: u64| {
        seen.0
            .iter()
            .filter(|e| e["iteration"] == n && e["event"]["type"] == "text_delta")
            .count()
    };
    assert_eq!((deltas(1), deltas(2)), (3, 1));
    assert_eq!(
        notices(&seen),
        vec![
            &json!({"type": "notice", "iteration": 1, "notice": "agent_output_cut",
                    "kept_bytes": 3 * (8 + RECORD_LINE_BYTES), "cap": "iteration"}),
            &json!({"type": "notice", "iteration": 1, "notice": "agent_output_left_out",
                    "lines": 7, "bytes": 56, "cap": "iteration"}),
        ]
    );
    // The cut comes where it happened: after the third line, before the message's end.
    let kinds: Vec<String> = seen
        .0
        .iter()
        .map(|e| {
            let kind = e["notice"].as_str().or(e["event"]["type"].as_str());
            kind.unwrap_or(e["type"].as_str().unwrap()).to_owned()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "text_delta",
            "text_delta",
            "text_delta",
            "agent_output_cut",
            "message_finished",
            "agent_output_left_out",
            "error",
            "text_delta",
            "error",
        ]
    );
}

/// An iteration within its budget passes whole and says nothing more.
#[test]
fn output_within_the_budget_passes_whole() {
    let mut seen = Seen::default();
    let mut cap = OutputCap::new(&mut seen, 0);
    for _ in 0..1000 {
        line(&mut cap, 1, "a line of an ordinary agent.\n");
    }
    end(&mut cap);
    assert_eq!(seen.0.len(), 1001);
    assert!(notices(&seen).is_empty());
}

/// The bytes of a streamed line's record besides its text are what the record writes.
#[test]
fn a_record_line_s_bytes_besides_its_text_are_counted_right() {
    let event = AgentEvent::TextDelta {
        text: Cow::Borrowed(""),
    };
    let json = serde_json::to_string(&RunEvent::Agent {
        iteration: 1,
        event: &event,
    })
    .unwrap();
    assert_eq!(json.len() as u64 + 1, RECORD_LINE_BYTES);
}

/// A line longer than the room left passes its head, cut on a character boundary to
/// fill the budget, then the cut is said; the rest of it and what follows are left out.
#[test]
fn a_line_longer_than_the_budget_passes_its_head_up_to_the_budget() {
    let mut seen = Seen::default();
    let budget = (8 + RECORD_LINE_BYTES) + RECORD_LINE_BYTES + 11;
    let mut cap = OutputCap::with_caps(&mut seen, per_iteration(budget), 0);
    line(&mut cap, 1, "a line.\n");
    // 11 bytes of room: `abcdefghij` and the first byte of `é` would be 11; the cut
    // comes before the `é`.
    let long = format!("abcdefghijé{}\n", "q".repeat(1000));
    line(&mut cap, 1, &long);
    line(&mut cap, 1, "after.\n");
    end(&mut cap);

    let texts: Vec<&str> = seen
        .0
        .iter()
        .filter(|e| e["event"]["type"] == "text_delta")
        .map(|e| e["event"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["a line.\n", "abcdefghij"]);
    let kept = budget - 1;
    assert_eq!(
        notices(&seen),
        vec![
            &json!({"type": "notice", "iteration": 1, "notice": "agent_output_cut",
                    "kept_bytes": kept, "cap": "iteration"}),
            &json!({"type": "notice", "iteration": 1, "notice": "agent_output_left_out",
                    "lines": 2, "bytes": long.len() - 10 + "after.\n".len(), "cap": "iteration"}),
        ]
    );
    // The record's streamed lines are the bytes kept.
    let recorded: u64 = texts
        .iter()
        .map(|t| t.len() as u64 + RECORD_LINE_BYTES)
        .sum();
    assert_eq!(recorded, kept);
}

/// A thinking line or one that was not the agent's format is cut the same way and
/// stays what it was.
#[test]
fn a_cut_head_keeps_its_kind() {
    let mut seen = Seen::default();
    let mut cap = OutputCap::with_caps(&mut seen, per_iteration(RECORD_LINE_BYTES + 4), 0);
    let event = AgentEvent::NonJson {
        line: Cow::Borrowed("not json at all"),
    };
    cap.observe(&RunEvent::Agent {
        iteration: 1,
        event: &event,
    });
    assert_eq!(
        seen.0[0]["event"],
        json!({"type": "non_json", "line": "not "})
    );
    assert_eq!(seen.0[1]["notice"], "agent_output_cut");
}

/// The record bytes of one `a line.\n`.
const LINE: u64 = 8 + RECORD_LINE_BYTES;

/// Room for 4 lines an iteration, 10 a run, then 1 an iteration.
const SMALL: Caps = Caps {
    per_iteration: 4 * LINE,
    per_run: 10 * LINE,
    head_past_run: LINE,
};

/// Iteration `n` streams `lines` lines, then its message ends.
fn iteration(cap: &mut OutputCap<'_>, n: u32, lines: usize) {
    for _ in 0..lines {
        line(cap, n, "a line.\n");
    }
    let finished = AgentEvent::MessageFinished {
        text: Cow::Borrowed(""),
        stop: ralph_stream::Stop::Completed,
        error: None,
    };
    cap.observe(&RunEvent::Agent {
        iteration: n,
        event: &finished,
    });
    end(cap);
}

/// Per iteration of `seen`: the streamed lines kept, and which cap its cut notices name.
fn kept_and_cap(seen: &Seen, iterations: u32) -> Vec<(usize, Option<String>)> {
    (1..=iterations)
        .map(|n| {
            let of_it = |e: &&Value| e["iteration"] == n;
            let kept = seen
                .0
                .iter()
                .filter(of_it)
                .filter(|e| e["event"]["type"] == "text_delta")
                .count();
            let caps: Vec<&str> = notices(seen)
                .into_iter()
                .filter(of_it)
                .map(|e| e["cap"].as_str().unwrap())
                .collect();
            if let [cut, left_out] = caps[..] {
                assert_eq!(cut, left_out, "iteration {n}");
            }
            (kept, caps.first().map(|c| (*c).to_owned()))
        })
        .collect()
}

/// The run's cap counts what every iteration kept: while it leaves room for an
/// iteration's cap, that cap cuts; then what is left of the run's; then each iteration
/// keeps its head, and the notices say the run's cap cut it. The message's end still
/// passes in every iteration.
#[test]
fn the_run_s_cap_counts_every_iteration_then_leaves_each_its_head() {
    let mut seen = Seen::default();
    let mut cap = OutputCap::with_caps(&mut seen, SMALL, 0);
    for n in 1..=5 {
        iteration(&mut cap, n, 6);
    }
    let by = |c: &str| Some(c.to_owned());
    assert_eq!(
        kept_and_cap(&seen, 5),
        [
            (4, by("iteration")),
            (4, by("iteration")),
            (2, by("run")),
            (1, by("run")),
            (1, by("run")),
        ]
    );
    let ends = seen
        .0
        .iter()
        .filter(|e| e["event"]["type"] == "message_finished")
        .count();
    assert_eq!(ends, 5);
    let last_cut = notices(&seen)
        .into_iter()
        .rfind(|e| e["notice"] == "agent_output_cut")
        .unwrap();
    assert_eq!(last_cut["kept_bytes"], LINE);
}

/// Past the run's cap, an iteration that streams no more than its head passes whole and
/// says nothing.
#[test]
fn an_iteration_within_its_head_past_the_run_s_cap_passes_whole() {
    let mut seen = Seen::default();
    let mut cap = OutputCap::with_caps(&mut seen, SMALL, 0);
    for n in 1..=3 {
        iteration(&mut cap, n, 4);
    }
    iteration(&mut cap, 4, 1);
    assert_eq!(kept_and_cap(&seen, 4)[3], (1, None));
}

/// A continued run's record already on disk counts: the first iteration of the new
/// session gets only what is left of the run's cap, and one whose record is past it
/// gets its head.
#[test]
fn a_continued_run_counts_what_its_record_already_holds() {
    let mut seen = Seen::default();
    let mut cap = OutputCap::with_caps(&mut seen, SMALL, 7 * LINE);
    iteration(&mut cap, 3, 6);
    assert_eq!(kept_and_cap(&seen, 3)[2], (3, Some("run".to_owned())));

    let mut seen = Seen::default();
    let mut cap = OutputCap::with_caps(&mut seen, SMALL, 1000 * LINE);
    iteration(&mut cap, 1, 6);
    assert_eq!(kept_and_cap(&seen, 1), [(1, Some("run".to_owned()))]);
}

/// The run's cap holds a flood of any length in any number of iterations to its size
/// and a head each.
#[test]
fn the_caps_bound_what_a_run_keeps() {
    let mut seen = Seen::default();
    let mut cap = OutputCap::with_caps(&mut seen, SMALL, 0);
    for n in 1..=40 {
        iteration(&mut cap, n, 50);
    }
    let kept = seen
        .0
        .iter()
        .filter(|e| e["event"]["type"] == "text_delta")
        .count() as u64;
    // 4 + 4 + 2 lines fill the run's cap; the other 37 iterations keep one each.
    assert_eq!(kept * LINE, SMALL.per_run + 37 * SMALL.head_past_run);
}
