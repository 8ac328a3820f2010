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
    let mut cap = OutputCap::with_budget(&mut seen, budget);
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
                    "kept_bytes": 3 * (8 + RECORD_LINE_BYTES)}),
            &json!({"type": "notice", "iteration": 1, "notice": "agent_output_left_out",
                    "lines": 7, "bytes": 56}),
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
    let mut cap = OutputCap::new(&mut seen);
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
    let mut cap = OutputCap::with_budget(&mut seen, budget);
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
                    "kept_bytes": kept}),
            &json!({"type": "notice", "iteration": 1, "notice": "agent_output_left_out",
                    "lines": 2, "bytes": long.len() - 10 + "after.\n".len()}),
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
    let mut cap = OutputCap::with_budget(&mut seen, RECORD_LINE_BYTES + 4);
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
