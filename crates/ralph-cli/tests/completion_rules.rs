//! The completion rules as a user meets them: `ralph run --help` names both ways to
//! finish, a final answer that names the promise off its last line is told why the loop
//! went on, and so is a promise from an iteration that then failed; a run that completes
//! while work waits for a hat says so, and its coordinator saw that work queued.

mod common;

use common::{Workspace, finished, of_type};
use pretty_assertions::assert_eq;

#[test]
fn run_help_names_both_ways_to_complete() {
    let ws = Workspace::new("", "");
    let out = ws.run(&["run", "--help"]);
    let help = String::from_utf8_lossy(&out.stdout).replace(['\n', ' '], "");
    for phrase in [
        "in an iteration that succeeds, says the task is done",
        "`ralph emit LOOP_COMPLETE` (the completion promise) as its last event",
        "ending its final answer with a line that holds only the promise",
    ] {
        assert!(
            help.contains(&phrase.replace(' ', "")),
            "no `{phrase}` in:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn a_final_answer_with_the_promise_in_a_sentence_gets_a_notice_saying_why_it_did_not_complete() {
    // The transcript's answer ends "Hello from the mock model. LOOP_COMPLETE".
    let ws = Workspace::new("cli:\n  backend: pi\n", "pi/anthropic/text.jsonl | |\n");
    let (code, events, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!(
        (code, &finished(&events)["reason"]),
        (2, &"max_iterations".into()),
        "{stderr}"
    );
    let notices: Vec<_> = of_type(&events, "notice")
        .into_iter()
        .map(|n| {
            (
                n["notice"].clone(),
                n["promise"].clone(),
                n["iteration"].clone(),
            )
        })
        .collect();
    assert_eq!(
        notices,
        [("promise_not_alone".into(), "LOOP_COMPLETE".into(), 1.into())]
    );
    // The text view says it in words.
    let ws = Workspace::new("cli:\n  backend: pi\n", "pi/anthropic/text.jsonl | |\n");
    let out = ws.run(&["run", "-p", "task", "--max-iterations", "1"]);
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("mentions `LOOP_COMPLETE` but not alone on its last line"),
        "{text}"
    );
}

#[test]
fn the_promise_alone_on_the_last_line_completes_without_a_notice() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        // The answer's last line becomes the promise alone (`\\n` is a JSON newline).
        "pi/anthropic/text.jsonl | | sed=s/\\.\\sLOOP_COMPLETE/.\\\\nLOOP_COMPLETE/g\n",
    );
    let (code, events, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(finished(&events)["reason"], "completed");
    assert_eq!(of_type(&events, "notice"), Vec::<&serde_json::Value>::new());
}

#[test]
fn an_answer_cut_at_the_output_limit_does_not_complete_and_the_text_view_says_why() {
    // pi's answer "Half of the answer\nLOOP_COMPLETE" ended with stop reason `length`.
    let config = "cli:\n  backend: pi\n";
    let script = "pi/openai/length_promise.jsonl | |\n";
    let ws = Workspace::new(config, script);
    let (code, events, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!(
        (code, &finished(&events)["reason"]),
        (2, &"max_iterations".into()),
        "{stderr}"
    );
    let notices: Vec<_> = (of_type(&events, "notice").into_iter())
        .map(|n| (n["notice"].clone(), n["promise"].clone()))
        .collect();
    assert_eq!(
        notices,
        [("promise_cut_at_length".into(), "LOOP_COMPLETE".into())]
    );
    let ws = Workspace::new(config, script);
    let out = ws.run(&["run", "-p", "task", "--max-iterations", "1"]);
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("ended a final answer that hit the model's output-token limit"),
        "{text}"
    );
}

#[test]
fn a_promise_from_an_iteration_that_then_failed_is_dropped_and_the_text_view_says_why() {
    // The promise is emitted, then the agent's model call is refused (401): the iteration
    // fails. The next one emits it and succeeds.
    let plan = "pi/anthropic/error401.jsonl | LOOP_COMPLETE |\npi/anthropic/text.jsonl | LOOP_COMPLETE |\n";
    let ws = Workspace::new("cli:\n  backend: pi\n", plan);
    let out = ws.run(&["run", "-p", "task", "--max-iterations", "3"]);
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(
            "`LOOP_COMPLETE` came from an iteration that failed, so the task is not complete"
        ),
        "{text}"
    );
    assert!(text.contains("iteration 2 succeeded"), "{text}");
}

#[test]
fn a_run_that_completes_over_work_queued_for_a_hat_says_so_and_its_coordinator_saw_it() {
    let config = "cli:\n  backend: pi\nhats:\n  reviewer:\n    name: Reviewer\n    \
                  description: Reviews\n    triggers: [review.request]\n";
    // The coordinator hands a review out and notes something no hat takes; the note comes
    // first, so the coordinator runs again with the review still queued, and finishes.
    let plan = "pi/anthropic/text.jsonl | note.kept=later;review.request=check it |\n\
                pi/anthropic/text.jsonl | LOOP_COMPLETE |\n";
    let ws = Workspace::new(config, plan);
    let (code, events, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "3"]);
    assert_eq!(
        (code, &finished(&events)["reason"]),
        (0, &"completed".into()),
        "{stderr}"
    );
    let pending: Vec<_> = of_type(&events, "notice")
        .into_iter()
        .filter(|n| n["notice"] == "events_pending_at_completion")
        .map(|n| {
            (
                n["iteration"].clone(),
                n["pending"].clone(),
                n["count"].clone(),
            )
        })
        .collect();
    assert_eq!(
        pending,
        [(
            2.into(),
            serde_json::json!([{"hat": "reviewer", "topic": "review.request", "count": 1}]),
            1.into()
        )]
    );
    assert!(
        ws.prompt(2)
            .contains("(Reviews) — queued for it, not handled yet: `review.request`"),
        "{}",
        ws.prompt(2)
    );
    assert!(
        ws.summary().contains("## Left in the queue")
            && ws.summary().contains("- `review.request`: check it"),
        "{}",
        ws.summary()
    );
}
