//! An inbox flooded past one read's slice while the agent runs: the agent's events after
//! the flood are still its own.

use pretty_assertions::assert_eq;
use serde_json::json;

use super::common::{Workspace, finished};

/// Lines of about half a MiB: 36 of them are more than one 16 MiB slice.
const FLOOD_LINES: usize = 36;
const FLOOD_PAYLOAD_BYTES: usize = 500_000;

#[test]
fn the_agents_promise_after_a_flood_past_one_slice_completes_the_run() {
    // Someone else (a log-forwarding script, say) floods the inbox while the agent runs;
    // the agent then gives the promise. No `|` in the shell: it splits the plan's fields.
    let flood = format!(
        "p=$(printf %0{FLOOD_PAYLOAD_BYTES}d 0); i=0; while [ $i -lt {FLOOD_LINES} ]; do \
         printf '{{\"topic\":\"log.chunk\",\"payload\":\"%s\"}}\\n' $p >> \"$RALPH_EVENTS_FILE\"; \
         i=$((i + 1)); done"
    );
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        &format!(
            "pi/anthropic/text.jsonl | LOOP_COMPLETE | | {flood}\npi/anthropic/text.jsonl | |\n"
        ),
    );
    let (code, events, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "2"]);
    assert_eq!(
        (code, finished(&events)["reason"].clone()),
        (0, json!("completed")),
        "{stderr}"
    );
    assert_eq!(ws.agent_log().len(), 1);
    let inbox = std::fs::metadata(ws.run_files().dir().join("inbox.jsonl"))
        .expect("inbox")
        .len();
    assert!(inbox > 16 * 1024 * 1024, "the flood is {inbox} bytes");
}
