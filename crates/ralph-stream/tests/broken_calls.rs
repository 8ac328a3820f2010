//! Real captures of Claude Code calls whose stream was cut (the mock dropped the
//! connection mid-answer): the cut call ends failed, before the retry that follows it.

mod support;

use pretty_assertions::assert_eq;
use ralph_stream::AgentEvent;
use ralph_stream::StreamFormat;
use support::events_in_chunks;
use support::fixtures_dir;
use support::read;

/// How each model call of a Claude capture ended, and the retries, in order.
fn ends_and_retries(name: &str) -> Vec<String> {
    let path = fixtures_dir().join("claude").join(name);
    events_in_chunks(Some(StreamFormat::Claude), [read(&path).as_slice()])
        .iter()
        .filter_map(|event| match event {
            AgentEvent::MessageFinished { text, stop, error } => Some(format!(
                "finished {text:?} {stop:?} {}",
                error.as_deref().unwrap_or("-")
            )),
            AgentEvent::RetryStarted { attempt, .. } => Some(format!("retry {attempt:?}")),
            _ => None,
        })
        .collect()
}

/// Claude Code 2.1.332: the text block "Run it" came whole, then a Bash call began and
/// got four pieces of its input before the connection was cut. Claude Code wrote a
/// `message_stop` with no `message_delta` (no stop reason), dropped the call (it never
/// ran) and asked again. The cut call is a failed one, and says the tool did not run.
#[test]
fn a_call_cut_while_it_wrote_a_tool_call_ends_failed_and_says_the_tool_did_not_run() {
    assert_eq!(
        ends_and_retries("v2.1.332_partial_tool_call_cut.jsonl"),
        [
            "finished \"Run it\" Error the model's response broke off while it wrote a tool call to Bash, which did not run",
            "finished \"Done.\\nLOOP_COMPLETE\" Completed -",
        ]
    );
}

/// Claude Code 2.1.332, three calls cut mid-answer: each `message_stop` (no stop
/// reason) comes before the `api_retry` announcing the next attempt (except the third,
/// after which Claude Code retries without streaming). Each cut call ends failed before
/// its retry is announced, as it happened.
#[test]
fn a_call_cut_mid_answer_ends_failed_before_its_retry() {
    let broke = "the model's response broke off before it was complete";
    assert_eq!(
        ends_and_retries("v2.1.332_partial_cut_retried.jsonl"),
        [
            format!("finished \"Work done.\\nLOOP_COMPLETE\" Error {broke}"),
            "retry Some(1)".to_owned(),
            format!("finished \"Work done.\\nLOOP_COMPLETE\" Error {broke}"),
            "retry Some(2)".to_owned(),
            format!("finished \"Work done.\\nLOOP_COMPLETE\" Error {broke}"),
            "finished \"Work done.\\nLOOP_COMPLETE\\nAnd also the rest.....!\" Completed -"
                .to_owned(),
        ]
    );
}

/// The call cut while it wrote a tool call is a failed model call (`turn_finished` with
/// `is_error`), the retry's a good one.
#[test]
fn a_cut_call_is_a_failed_model_call() {
    let path = fixtures_dir().join("claude/v2.1.332_partial_tool_call_cut.jsonl");
    let failed: Vec<bool> = events_in_chunks(Some(StreamFormat::Claude), [read(&path).as_slice()])
        .iter()
        .filter_map(|event| match event {
            AgentEvent::TurnFinished { is_error, .. } => Some(*is_error),
            _ => None,
        })
        .collect();
    assert_eq!(failed, [true, false]);
}
