//! An agent run that ends on a provider's limit: the loop waits it out and runs the
//! iteration again without counting it, stops at its runtime limit saying until when it
//! was limited, or counts it as a failure with `on_rate_limit: fail`.

mod common;

use common::{Workspace, finished, of_type};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const LIMITED: &str = "pi/anthropic/error429.jsonl | |\n";
const DONE: &str = "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n";

#[test]
fn a_limited_iteration_is_waited_out_and_run_again_without_counting() {
    let config = "cli:\n  backend: pi\n  rate_limit_wait_seconds: 1\n";
    let ws = Workspace::new(config, &format!("{LIMITED}{DONE}"));
    let (code, events, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!(
        (code, finished(&events)["reason"].clone()),
        (0, json!("completed")),
        "{stderr}"
    );
    let waits = of_type(&events, "rate_limit_wait");
    assert_eq!(
        (waits.len(), &waits[0]["wait_secs"], &waits[0]["iteration"]),
        (1, &json!(1), &json!(1))
    );
    let outcomes: Vec<Value> = of_type(&events, "iteration_finished")
        .iter()
        .map(|e| json!([e["iteration"], e["outcome"]["status"]]))
        .collect();
    assert_eq!(
        outcomes,
        [json!([1, "rate_limited"]), json!([1, "succeeded"])]
    );
    assert_eq!(finished(&events)["totals"]["iterations"], 1);
    // The text view says it.
    let ws = Workspace::new(config, &format!("{LIMITED}{DONE}"));
    let out = ws.run(&["run", "-p", "task"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("■ iteration 1 rate limited: 429")
            && text.contains("⏸ rate limited: waiting 1.0s, then iteration 1 again"),
        "{text}"
    );
}

#[test]
fn a_limit_that_outlasts_the_runtime_ends_the_run_saying_so() {
    let config = "cli:\n  backend: pi\nevent_loop:\n  max_runtime_seconds: 5\n";
    let ws = Workspace::new(config, LIMITED);
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    let end = finished(&events);
    assert_eq!(
        (code, &end["reason"]),
        (2, &json!("max_runtime")),
        "{stderr}"
    );
    assert!(
        end["message"]
            .as_str()
            .unwrap()
            .ends_with("; still rate limited"),
        "{end}"
    );
    assert!(of_type(&events, "rate_limit_wait").is_empty());
}

#[test]
fn with_fail_a_limit_counts_as_a_failed_iteration() {
    let config =
        "cli:\n  backend: pi\n  on_rate_limit: fail\nevent_loop:\n  max_consecutive_failures: 2\n";
    let ws = Workspace::new(config, LIMITED);
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(
        (code, finished(&events)["reason"].clone()),
        (1, json!("consecutive_failures")),
        "{stderr}"
    );
    assert!(of_type(&events, "rate_limit_wait").is_empty());
}

#[test]
fn failover_is_refused_as_not_supported_yet() {
    let ws = Workspace::new("cli:\n  backend: pi\n  on_rate_limit: failover\n", DONE);
    let out = ws.run(&["run", "-p", "task"]);
    assert_eq!(common::code(out.status), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ralph.yml:3:18: `cli.on_rate_limit` is not supported by ralph (yet): ralph cannot fail over"),
        "{stderr}"
    );
}
