//! A provider's overload that only its HTTP status names (a gateway's 503 with a plain
//! body) is waited for as one, for the agents that give the status apart from the words.

mod common;

use common::{Workspace, finished, of_type};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// A gateway's 503 with a plain body ("Service temporarily unavailable") is an overload
/// the loop waits for, as for pi, Codex and Copilot: Claude Code names the status in
/// `api_error_status`, Gemini CLI only in its exit code (503's low byte, 247).
#[test]
fn a_503_from_claude_code_or_gemini_cli_is_waited_for_as_an_overload() {
    let fake_agent = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fake-agents/fake-agent")
        .display()
        .to_string();
    for (backend, unavailable, done) in [
        (
            "claude",
            "claude/v2.1.332_http503_unavailable.jsonl | | exit=1",
            "claude/v2.1.332_happy_ralph_args.jsonl | LOOP_COMPLETE |",
        ),
        (
            "gemini",
            "gemini/v0.61.0_stream-json_http503_plain_body.jsonl | | exit=247",
            "gemini/v0.61.0_stream-json_happy.jsonl | LOOP_COMPLETE |",
        ),
    ] {
        let config = format!(
            "cli:\n  backend: {backend}\n  command: {fake_agent}\n  rate_limit_wait_seconds: 1\n"
        );
        let ws = Workspace::new(&config, &format!("{unavailable}\n{done}\n"));
        let (code, events, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
        assert_eq!(
            (code, &finished(&events)["reason"]),
            (0, &json!("completed")),
            "{backend}: {stderr}"
        );
        let outcomes: Vec<Value> = of_type(&events, "iteration_finished")
            .iter()
            .map(|e| e["outcome"].clone())
            .collect();
        assert_eq!(outcomes.len(), 2, "{backend}: {outcomes:?}");
        assert_eq!(outcomes[0]["status"], "rate_limited", "{backend}");
        let message = outcomes[0]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("Service temporarily unavailable"),
            "{backend}: {message}"
        );
        assert_eq!(outcomes[1]["status"], "succeeded", "{backend}");
        assert_eq!(of_type(&events, "rate_limit_wait").len(), 1, "{backend}");
    }
}
