//! `ralph run` in a workspace that something else damages: the agent, a person, or a
//! cloned repository can put anything under `.ralph/`.

mod common;

use common::{Workspace, finished};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

#[test]
fn a_saved_inbox_offset_past_the_end_is_noticed_and_the_promise_still_completes() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | step=one |\npi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let (code, _, _) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!(code, 2);
    // Damage the saved state: the offset now lies far past the end of the inbox.
    let state_path = ws.run_files().dir().join("state.json");
    let mut state: Value =
        serde_json::from_str(&std::fs::read_to_string(&state_path).expect("state")).expect("JSON");
    state["inbox_offset"] = json!(1_000_000);
    std::fs::write(&state_path, state.to_string()).expect("write state");

    let (code, events, stderr) = ws.run_json(&["--continue", "--max-iterations", "3"]);
    assert_eq!(
        (code, finished(&events)["reason"].clone()),
        (0, json!("completed")),
        "{stderr}"
    );
    let restarted: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "notice" && e["notice"] == "inbox_restarted")
        .collect();
    assert_eq!(restarted.len(), 1, "{events:?}");
    assert_eq!(
        (&restarted[0]["cause"], &restarted[0]["offset"]),
        (&json!("shrunk"), &json!(1_000_000))
    );
}
