//! The completion rules against real agent output (tests/fixtures/): what each capture
//! would signal if it were the whole iteration, with no event emitted. Some captures are
//! edited with a plain text substitution to put the promise where it must not count
//! (tool output, thinking, the echoed prompt, a failed attempt); the substitution is
//! asserted to have hit, so a changed fixture cannot make a test pass vacuously.

use std::path::PathBuf;

use ralph_core::machine::{
    CompletionSignal, RunFacts, Shown, StoppedBy, classify, completion_signal,
};
use ralph_stream::{StreamFormat, summarize};
use ralph_types::Termination;

const PROMISE: &str = "LOOP_COMPLETE";

fn fixture(path: &str) -> String {
    let full = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// `path` with every `from` replaced by `to` (which must occur).
fn edited(path: &str, from: &str, to: &str) -> String {
    let text = fixture(path);
    assert!(text.contains(from), "`{from}` is not in {path}");
    text.replace(from, to)
}

/// The completion signal of a run that printed `stream` and exited 0.
fn signal(stream: &str, format: StreamFormat) -> Option<CompletionSignal> {
    let (_, summary, _) = summarize(stream.as_bytes(), Some(format));
    let outcome = classify(RunFacts {
        termination: &Termination::Exited { code: 0 },
        stream_succeeded: summary.succeeded,
        errors: &summary.errors,
        stopped_by: StoppedBy::Nothing,
        wall_is_runtime: false,
        shown: Shown::Work,
        rate_limited: summary.rate_limited.as_ref(),
    });
    completion_signal(
        PROMISE,
        &[],
        &outcome,
        summary.final_text.as_deref(),
        summary.final_cut_at_length,
        None,
    )
}

fn pi(stream: &str) -> Option<CompletionSignal> {
    signal(stream, StreamFormat::Pi)
}

fn claude(stream: &str) -> Option<CompletionSignal> {
    signal(stream, StreamFormat::Claude)
}

#[test]
fn claude_answers_ending_with_the_promise_line_complete() {
    let results = [
        claude(&fixture("claude/v2.1.332_happy_ralph_args.jsonl")),
        claude(&fixture("claude/v2.1.112_happy_ralph_args.jsonl")),
        claude(&fixture("claude/v2.1.332_rich.jsonl")),
        // A mid-stream error, then a fallback request that succeeded.
        claude(&fixture(
            "claude/v2.1.332_midstream_error_then_fallback.jsonl",
        )),
        claude(&fixture(
            "claude/v2.1.332_overloaded529_twice_then_ok.jsonl",
        )),
    ];
    assert_eq!(results, [Some(CompletionSignal::FinalText); 5]);
}

#[test]
fn failed_claude_runs_never_complete() {
    let results = [
        claude(&fixture("claude/v2.1.332_http401_max_retries2.jsonl")),
        claude(&fixture("claude/v2.1.332_http500_max_retries2.jsonl")),
        claude(&fixture("claude/v2.1.332_overloaded529_max_retries2.jsonl")),
        claude(&fixture("claude/v2.1.112_overloaded529_max_retries2.jsonl")),
    ];
    assert_eq!(results, [None; 4]);
}

#[test]
fn the_promise_inside_a_sentence_does_not_complete() {
    // Every pi capture ends its answer with "... LOOP_COMPLETE" on the same line.
    let results = [
        pi(&fixture("pi/anthropic/text.jsonl")),
        pi(&fixture("pi/anthropic/tool.jsonl")),
        pi(&fixture("pi/openai/tools3.jsonl")),
        pi(&fixture("pi/anthropic/flaky.jsonl")),
    ];
    assert_eq!(results, [None; 4]);
}

#[test]
fn a_pi_answer_ending_with_the_promise_line_completes() {
    let stream = edited(
        "pi/anthropic/text.jsonl",
        "Hello from the mock model. LOOP_COMPLETE",
        "Hello from the mock model.\\nLOOP_COMPLETE",
    );
    assert_eq!(pi(&stream), Some(CompletionSignal::FinalText));
}

#[test]
fn the_promise_in_tool_output_does_not_complete() {
    // The tool prints exactly the promise; the answer only mentions it.
    let pi_stream = edited("pi/anthropic/tool.jsonl", "hello", PROMISE);
    let claude_stream = edited("claude/v2.1.332_rich.jsonl", "from-subagent", PROMISE);
    let answer = "All steps finished.\\n\\nLOOP_COMPLETE";
    assert!(claude_stream.contains(answer));
    let claude_stream = claude_stream.replace(answer, "All steps finished.");
    assert_eq!([pi(&pi_stream), claude(&claude_stream)], [None, None]);
}

#[test]
fn the_promise_in_thinking_does_not_complete() {
    let stream = edited(
        "pi/anthropic/thinking.jsonl",
        "I should reply and signal completion.",
        "I should reply and signal completion.\\nLOOP_COMPLETE",
    );
    assert_eq!(pi(&stream), None);
}

#[test]
fn the_promise_in_the_echoed_prompt_does_not_complete() {
    let stream = edited(
        "pi/anthropic/text.jsonl",
        "[[bytes:2000]]",
        "[[bytes:2000]]\\nLOOP_COMPLETE",
    );
    assert_eq!(pi(&stream), None);
}

#[test]
fn the_promise_in_a_failed_attempt_does_not_complete() {
    // Every attempt is cut mid-stream; their partial text ends with the promise line.
    let stream = edited(
        "pi/anthropic/midstream.jsonl",
        "cut off in the middle",
        "cut off in the middle\\nLOOP_COMPLETE",
    );
    assert_eq!(pi(&stream), None);
    let failed = [
        pi(&fixture("pi/anthropic/error401.jsonl")),
        pi(&fixture("pi/openai/error500.jsonl")),
    ];
    assert_eq!(failed, [None, None]);
}

#[test]
fn an_answer_cut_at_the_output_limit_does_not_complete() {
    // pi 0.73.1 and OpenCode 1.18.33 against the mock answering "Half of the
    // answer\nLOOP_COMPLETE" with `finish_reason: length`, recorded through `ralph run`.
    for (path, format) in [
        ("pi/openai/length_promise.jsonl", StreamFormat::Pi),
        (
            "opencode/v1.18.33_json_length_promise.jsonl",
            StreamFormat::Opencode,
        ),
    ] {
        let stream = fixture(path);
        let (_, summary, _) = summarize(stream.as_bytes(), Some(format));
        assert_eq!(
            summary.final_text.as_deref(),
            Some("Half of the answer\nLOOP_COMPLETE"),
            "{path}"
        );
        assert!(summary.final_cut_at_length, "{path}");
        assert_eq!(signal(&stream, format), None, "{path}");
    }
}
