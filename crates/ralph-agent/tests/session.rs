//! One agent run end to end: real transcripts replayed by fake agents, parsed as they
//! stream, with the terminal event ending a hanging agent.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::fake;
use common::short;
use ralph_agent::Control;
use ralph_agent::StopRequests;
use ralph_agent::Termination;
use ralph_agent::run_agent;
use ralph_agent::supervise::SpawnSpec;
use ralph_stream::AgentEvent;
use ralph_stream::StreamFormat;

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(rel)
}

#[tokio::test]
async fn an_agent_that_hangs_after_its_terminal_event_is_stopped_and_succeeds() {
    let spec = SpawnSpec::new(fake("replay-then-hang.sh")).args([fixture("pi/openai/tool.jsonl")]);
    let mut texts = String::new();
    let run = run_agent(
        spec,
        StreamFormat::Pi,
        short(),
        StopRequests::never(),
        |event, _| {
            if let AgentEvent::TextDelta { text } = event {
                texts.push_str(text);
            }
            Control::Continue
        },
    )
    .await;
    assert_eq!(run.outcome.termination, Termination::StoppedAfterFinish);
    assert!(run.succeeded());
    assert_eq!(
        run.summary.final_text.as_deref(),
        Some("Done. out.txt contains: hello. LOOP_COMPLETE")
    );
    assert!(texts.ends_with("LOOP_COMPLETE"), "{texts}");
    assert_eq!(run.lines, 43);
}

#[tokio::test]
async fn pi_exiting_0_after_every_attempt_failed_is_a_failed_run() {
    let spec = SpawnSpec::new(fake("replay.sh")).args([fixture("pi/openai/error500.jsonl")]);
    let run = run_agent(
        spec,
        StreamFormat::Pi,
        short(),
        StopRequests::never(),
        |_, _| Control::Continue,
    )
    .await;
    assert_eq!(run.outcome.termination, Termination::Exited { code: 0 });
    assert!(!run.succeeded());
    assert_eq!(
        run.summary.errors,
        vec!["500 mock internal server error".to_owned()]
    );
}

#[tokio::test]
async fn the_caller_can_stop_the_agent_at_the_turn_that_crosses_a_budget() {
    let spec =
        SpawnSpec::new(fake("replay-then-hang.sh")).args([fixture("pi/anthropic/tools3.jsonl")]);
    const BUDGET: f64 = 0.01;
    let run = run_agent(
        spec,
        StreamFormat::Pi,
        short(),
        StopRequests::never(),
        |event, summary| {
            if matches!(event, AgentEvent::TurnFinished { .. })
                && summary.cost_usd.unwrap_or(0.0) > BUDGET
            {
                Control::Stop
            } else {
                Control::Continue
            }
        },
    )
    .await;
    assert_eq!(run.outcome.termination, Termination::StoppedByCaller);
    assert!(!run.succeeded());
    // Every byte written before the stop was parsed: the whole transcript here.
    assert!(run.summary.cost_usd.unwrap() > BUDGET);
}

#[tokio::test]
async fn claude_ending_with_is_error_and_exit_1_is_a_failed_run() {
    let spec = SpawnSpec::new(fake("replay.sh"))
        .args([fixture("claude/v2.1.332_http500_max_retries2.jsonl")])
        .args(["1"]);
    let run = run_agent(
        spec,
        StreamFormat::Claude,
        short(),
        StopRequests::never(),
        |_, _| Control::Continue,
    )
    .await;
    assert_eq!(run.outcome.termination, Termination::Exited { code: 1 });
    assert!(run.summary.terminal_event);
    assert!(!run.succeeded());
}

#[tokio::test]
async fn a_last_line_without_newline_is_parsed_after_exit() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cut.jsonl");
    std::fs::write(
        &file,
        r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"stopReason":"stop"}}"#,
    )
    .unwrap();
    let spec = SpawnSpec::new(fake("replay.sh")).args([&file]);
    let mut deadlines = short();
    deadlines.exit_grace = Duration::from_secs(5);
    let run = run_agent(
        spec,
        StreamFormat::Pi,
        deadlines,
        StopRequests::never(),
        |_, _| Control::Continue,
    )
    .await;
    assert_eq!(run.summary.final_text.as_deref(), Some("done"));
    assert!(run.succeeded());
}
