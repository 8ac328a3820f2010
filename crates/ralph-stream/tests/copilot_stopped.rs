//! Real captures of Copilot CLI 1.0.102 stopped by ralph (an inactivity timeout): what
//! was in flight ends, and the run is not called a success although Copilot's `result`
//! says `exitCode: 0`.

mod support;

use pretty_assertions::assert_eq;
use ralph_stream::AgentEvent;
use ralph_stream::StreamFormat;
use support::events_in_chunks;
use support::fixtures_dir;
use support::read;

/// The events of a Copilot capture that say how its calls and its run ended.
fn ends(name: &str) -> Vec<String> {
    let path = fixtures_dir().join("copilot").join(name);
    events_in_chunks(Some(StreamFormat::Copilot), [read(&path).as_slice()])
        .iter()
        .filter_map(|event| match event {
            AgentEvent::MessageFinished { text, stop, .. } => {
                Some(format!("message {text:?} {stop:?}"))
            }
            AgentEvent::TurnFinished { is_error, .. } => Some(format!("turn error={is_error}")),
            AgentEvent::ToolCallFinished {
                name,
                output,
                is_error,
                ..
            } => Some(format!("tool {name:?} {output:?} error={is_error}")),
            AgentEvent::RunFinished {
                is_error, error, ..
            } => Some(format!("run error={is_error} {error:?}")),
            AgentEvent::Unknown { event_type } => Some(format!("unknown {event_type}")),
            _ => None,
        })
        .collect()
}

/// Stopped while it waited for the model's first token: `agent.interrupted` (a
/// `model_call`), `abort` (`user_abort`), then a `result` with `exitCode: 0`.
#[test]
fn copilot_stopped_in_a_model_call_ends_it_aborted_and_the_run_failed() {
    assert_eq!(
        ends("v1.0.102_json_interrupted_in_model_call.jsonl"),
        [
            "message \"\" Aborted",
            "turn error=true",
            "run error=true Some(\"copilot was stopped before it finished (user_abort)\")",
        ]
    );
}

/// Stopped while its `sleep 8` ran: `agent.interrupted` (a `tool_call`, with its id),
/// `abort` (`user_initiated`), no `tool.execution_complete`, then `exitCode: 0`.
#[test]
fn copilot_stopped_in_a_tool_call_ends_the_tool_failed_and_the_run_failed() {
    assert_eq!(
        ends("v1.0.102_json_interrupted_in_tool_call.jsonl"),
        [
            "message \"Working slowly.\" ToolUse",
            "turn error=false",
            "tool Some(\"bash\") \"copilot was stopped while this tool ran\" error=true",
            "run error=true Some(\"copilot was stopped before it finished (user_initiated)\")",
        ]
    );
}
