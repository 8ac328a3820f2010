//! An agent that takes a reply that was no model's (an HTML page from a wrong base URL or a
//! captive portal) for an empty answer, and says it succeeded: the iteration fails, so the
//! loop stops at `max_consecutive_failures` instead of spending every iteration on nothing.

mod common;

use common::{Workspace, finished, of_type};
use pretty_assertions::assert_eq;

#[test]
fn an_empty_answer_with_no_tokens_fails_and_says_where_to_look() {
    // pi 0.73.1 against a server that answered its request with `200 text/html`.
    let plan = "pi/openai/html200.jsonl | |\n".repeat(3);
    let ws = Workspace::new(
        "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 10\n  max_consecutive_failures: 2\n",
        &plan,
    );
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(
        (code, &finished(&events)["reason"]),
        (1, &"consecutive_failures".into()),
        "{stderr}"
    );
    let reasons: Vec<_> = of_type(&events, "iteration_finished")
        .into_iter()
        .map(|e| {
            e["outcome"]["reason"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(reasons.len(), 2);
    assert!(
        reasons
            .iter()
            .all(|r| r.starts_with("the agent's model gave an empty answer")
                && r.contains("base URL")),
        "{reasons:?}"
    );
}

#[test]
fn an_empty_answer_that_published_an_event_did_work() {
    // The same reply, but the agent ran `ralph emit` before it: that is work done.
    let ws = Workspace::new(
        "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 1\n",
        "pi/openai/html200.jsonl | note.added |\n",
    );
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        of_type(&events, "iteration_finished")[0]["outcome"]["status"],
        "succeeded"
    );
}
