//! The REAL Claude Code (the `claude` that scripts/install-agents.sh installed) against the
//! mock: a Bash tool turn, Unicode text, thinking, the silent non-streaming retry after an SSE
//! error, and a persistent 500. Asserted on `--output-format stream-json` stdout and on the
//! mock's request log.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::agent_run::{json_lines, require_agent, run, stderr, workdir};
use ralph_agent::{BackendKind, BackendProfile};
use ralph_test_support::{
    Builtin, ClaudeOptions, ClaudeSetup, Fault, MockError, MockServer, ReplyOutcome, Script, Turn,
    UNICODE_SAMPLE,
};
use serde_json::{Value, json};

/// Characters of the `unicode` scenario's answer: the sample 8 times, then the promise.
const UNICODE_REPEAT: usize = 8;

struct ClaudeRun {
    output: Output,
    lines: Vec<Value>,
    work: PathBuf,
    _root: tempfile::TempDir,
}

/// Runs `claude` with ralph's own headless arguments (its `BackendProfile`, so the flags
/// cannot drift from what ralph runs, `--include-partial-messages` among them) and `PROMPT`
/// against `server`; `None` when real-agent tests are skipped.
fn run_claude(
    server: &MockServer,
    options: ClaudeOptions,
    prompt: &str,
) -> Result<Option<ClaudeRun>, MockError> {
    let Some(claude) = require_agent("claude") else {
        return Ok(None);
    };
    let root = tempfile::tempdir().expect("a temp dir");
    let setup = ClaudeSetup::write(root.path(), &server.base_url(), options)?;
    let work = workdir(root.path());
    let mut command = Command::new(claude);
    command
        .args(BackendProfile::of(BackendKind::Claude).headless_args)
        .arg(prompt)
        .current_dir(&work);
    setup.apply(&mut command);
    let output = run(command);
    let lines = json_lines(&output);
    Ok(Some(ClaudeRun {
        output,
        lines,
        work,
        _root: root,
    }))
}

fn result_line(run: &ClaudeRun) -> Value {
    run.lines
        .iter()
        .rev()
        .find(|line| line["type"] == "result")
        .cloned()
        .unwrap_or_else(|| panic!("no result line; stderr: {}", stderr(&run.output)))
}

/// Every content block of every `assistant` line.
fn assistant_blocks(run: &ClaudeRun) -> Vec<Value> {
    run.lines
        .iter()
        .filter(|line| line["type"] == "assistant")
        .flat_map(|line| {
            line["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect()
}

/// `(turn, outcome, streamed)` of every model request. Claude 2.1.332's non-streaming retry
/// sends `stream: false`; 2.1.112's sends no `stream` at all.
fn model_requests(server: &MockServer) -> Vec<(usize, ReplyOutcome, bool)> {
    server
        .model_requests()
        .into_iter()
        .filter_map(|request| {
            let stream = request
                .body
                .as_ref()
                .is_some_and(|body| body["stream"] == true);
            request
                .routed
                .map(|routed| (routed.turn, routed.outcome, stream))
        })
        .collect()
}

#[test]
fn claude_runs_a_bash_tool_turn() -> Result<(), MockError> {
    let script = Script::from_turns(vec![
        Turn::shell("printf 'made by claude' > made.txt && cat made.txt"),
        Turn::text("Saw: {{last_tool_result}}"),
    ]);
    let server = MockServer::start(script)?;
    let Some(claude) = run_claude(&server, ClaudeOptions::default(), "Make the file.")? else {
        return Ok(());
    };
    let made = std::fs::read_to_string(claude.work.join("made.txt")).unwrap_or_default();
    let result = result_line(&claude);
    assert_eq!(
        (
            claude.output.status.code(),
            made.as_str(),
            json!([
                result["subtype"],
                result["is_error"],
                result["num_turns"],
                result["result"]
            ]),
        ),
        (
            Some(0),
            "made by claude",
            json!(["success", false, 2, "Saw: made by claude"])
        ),
        "stderr: {}",
        stderr(&claude.output)
    );
    let tool_use = assistant_blocks(&claude)
        .into_iter()
        .find(|block| block["type"] == "tool_use")
        .map(|block| json!([block["name"], block["input"]["command"]]));
    assert_eq!(
        tool_use,
        Some(json!([
            "Bash",
            "printf 'made by claude' > made.txt && cat made.txt"
        ]))
    );
    // Input: turn 0 (1000, cache write 500) plus turn 1 (1200, cache read 4000).
    let usage = &result["usage"];
    assert_eq!(
        json!([
            usage["input_tokens"],
            usage["cache_creation_input_tokens"],
            usage["cache_read_input_tokens"]
        ]),
        json!([2200, 500, 4000])
    );
    assert_eq!(
        model_requests(&server),
        vec![
            (0, ReplyOutcome::Streamed, true),
            (1, ReplyOutcome::Streamed, true)
        ]
    );
    // The second request carries the Bash output back as a tool_result.
    let second = server.model_requests()[1].body.clone().unwrap_or_default();
    assert!(second.to_string().contains("made by claude"), "{second}");
    Ok(())
}

#[test]
fn claude_receives_unicode_text_split_inside_characters() -> Result<(), MockError> {
    let server = MockServer::start(Script::builtin(Builtin::Unicode))?;
    let Some(claude) = run_claude(&server, ClaudeOptions::default(), "Say something.")? else {
        return Ok(());
    };
    let expected = format!("{} LOOP_COMPLETE", UNICODE_SAMPLE.repeat(UNICODE_REPEAT));
    assert_eq!(result_line(&claude)["result"], json!(expected));
    // Run as ralph runs it, Claude Code streams the answer in pieces before it is whole.
    let streamed: String = claude
        .lines
        .iter()
        .filter(|line| {
            line["type"] == "stream_event" && line["event"]["delta"]["type"] == "text_delta"
        })
        .filter_map(|line| line["event"]["delta"]["text"].as_str())
        .collect();
    assert_eq!(streamed, expected);
    Ok(())
}

#[test]
fn claude_shows_a_thinking_block() -> Result<(), MockError> {
    let server = MockServer::start(Script::builtin(Builtin::Thinking))?;
    let Some(claude) = run_claude(&server, ClaudeOptions::default(), "Think first.")? else {
        return Ok(());
    };
    let blocks: Vec<Value> = assistant_blocks(&claude)
        .iter()
        .map(|block| json!([block["type"], block["thinking"], block["text"]]))
        .collect();
    assert_eq!(
        blocks,
        vec![
            json!([
                "thinking",
                "The user wants a short answer. I should reply and signal completion.",
                null
            ]),
            json!([
                "text",
                null,
                "Thought about it. Task finished. LOOP_COMPLETE"
            ]),
        ]
    );
    Ok(())
}

#[test]
fn claude_retries_silently_without_streaming_after_an_sse_error() -> Result<(), MockError> {
    let turn = Turn::text("Whole answer.").with_fault(Fault::sse_error_after(1));
    let server = MockServer::start(Script::from_turns(vec![turn]))?;
    let Some(claude) = run_claude(&server, ClaudeOptions::default(), "Answer.")? else {
        return Ok(());
    };
    let result = result_line(&claude);
    assert_eq!(
        (
            claude.output.status.code(),
            json!([result["is_error"], result["result"]])
        ),
        (Some(0), json!([false, "Whole answer."]))
    );
    assert_eq!(
        model_requests(&server),
        vec![
            (0, ReplyOutcome::SseError, true),
            (0, ReplyOutcome::Json, false)
        ]
    );
    Ok(())
}

#[test]
fn claude_gives_up_on_a_persistent_500_with_exit_1() -> Result<(), MockError> {
    let fault = Fault::http(500).retry_after_ms(1);
    let server = MockServer::start(Script::from_turns(vec![Turn::default().with_fault(fault)]))?;
    let options = ClaudeOptions {
        max_retries: 1,
        model: None,
    };
    let Some(claude) = run_claude(&server, options, "Try.")? else {
        return Ok(());
    };
    let result = result_line(&claude);
    let retries = claude
        .lines
        .iter()
        .filter(|line| line["type"] == "system" && line["subtype"] == "api_retry")
        .count();
    assert_eq!(
        (
            claude.output.status.code(),
            result["is_error"].clone(),
            result["api_error_status"].clone(),
            retries
        ),
        (Some(1), json!(true), json!(500), 1)
    );
    let statuses: Vec<ReplyOutcome> = model_requests(&server).into_iter().map(|r| r.1).collect();
    assert_eq!(statuses, vec![ReplyOutcome::HttpError { status: 500 }; 2]);
    Ok(())
}
