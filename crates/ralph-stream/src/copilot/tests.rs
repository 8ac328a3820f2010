use pretty_assertions::assert_eq;

use super::*;
use crate::parser::{events_of, tool_finished, tool_started};

fn events(input: &str) -> Vec<AgentEvent<'static>> {
    events_of(CopilotParser::default(), input)
}

/// A line in Copilot's envelope.
fn line(ty: &str, data: &str) -> String {
    format!(
        r#"{{"type":"{ty}","data":{data},"ephemeral":true,"id":"e1","timestamp":"2026-11-25T22:04:49.331Z","parentId":"p"}}"#
    )
}

fn message(text: &str, stop: Stop, error: Option<&str>) -> AgentEvent<'static> {
    AgentEvent::MessageFinished {
        text: text.to_owned().into(),
        stop,
        error: error.map(|e| e.to_owned().into()),
    }
}

fn turn(model: &str, output_tokens: u64, is_error: bool) -> AgentEvent<'static> {
    AgentEvent::TurnFinished {
        usage: Usage {
            tokens: Tokens {
                output: output_tokens,
                ..Tokens::default()
            },
            cost_usd: None,
            cost_kind: CostKind::Unknown,
            model: Some(model.to_owned().into()),
        },
        is_error,
    }
}

#[test]
fn the_model_comes_first_and_the_session_id_only_with_the_result() {
    let input = [
        line("session.skills_loaded", r#"{"skills":[]}"#),
        line("session.tools_updated", r#"{"model":"gpt-4.1"}"#),
        line("session.tools_updated", r#"{"model":"gpt-4.1"}"#),
        r#"{"type":"result","timestamp":"t","sessionId":"s1","exitCode":0,"usage":{"premiumRequests":0,"totalApiDurationMs":38,"sessionDurationMs":2347}}"#.to_owned(),
    ]
    .join("\n");
    assert_eq!(
        events(&input),
        vec![
            AgentEvent::SessionStarted {
                session_id: None,
                model: Some("gpt-4.1".into()),
                provider: None,
            },
            AgentEvent::SessionStarted {
                session_id: Some("s1".into()),
                model: Some("gpt-4.1".into()),
                provider: None,
            },
            AgentEvent::RunFinished {
                is_error: false,
                error: None,
                turns: None,
                duration_ms: Some(2347),
                totals: None,
            },
        ]
    );
}

#[test]
fn deltas_stream_the_answer_and_each_message_is_a_turn_of_unknown_cost() {
    let input = [
        line("assistant.reasoning_delta", r#"{"reasoningId":"r1","deltaContent":"think"}"#),
        line("assistant.reasoning", r#"{"reasoningId":"r1","content":"think"}"#),
        line("assistant.reasoning", r#"{"reasoningId":"r2","content":"unstreamed"}"#),
        line(
            "assistant.message",
            r#"{"messageId":"m1","model":"gpt-4.1","content":"","toolRequests":[{"toolCallId":"c1","name":"bash","arguments":{}}],"outputTokens":12}"#,
        ),
        line("assistant.message_start", r#"{"messageId":"m2"}"#),
        line("assistant.message_delta", r#"{"messageId":"m2","deltaContent":"The "}"#),
        line("assistant.message_delta", r#"{"messageId":"m2","deltaContent":"end."}"#),
        line(
            "assistant.message",
            r#"{"messageId":"m2","model":"gpt-4.1","content":"The end.","toolRequests":[]}"#,
        ),
        line(
            "assistant.message",
            r#"{"messageId":"m3","model":"gpt-4.1","content":"Not streamed.","toolRequests":[ ]}"#,
        ),
    ]
    .join("\n");
    let text = |t: &str| AgentEvent::TextDelta {
        text: t.to_owned().into(),
    };
    let thinking = |t: &str| AgentEvent::ThinkingDelta {
        text: t.to_owned().into(),
    };
    assert_eq!(
        events(&input),
        vec![
            thinking("think"),
            thinking("unstreamed"),
            message("", Stop::ToolUse, None),
            turn("gpt-4.1", 12, false),
            text("The "),
            text("end."),
            message("The end.", Stop::Completed, None),
            turn("gpt-4.1", 0, false),
            text("Not streamed."),
            message("Not streamed.", Stop::Completed, None),
            turn("gpt-4.1", 0, false),
        ]
    );
}

/// Copilot's deltas can miss part of a long answer, while its `assistant.message` has it
/// whole: what the deltas missed shows after them. When they showed its beginning, the
/// rest; when they showed all of it, nothing more; when they showed something else (a
/// piece missing in the middle), the whole answer again, on a line of its own.
#[test]
fn the_final_message_shows_what_its_deltas_missed() {
    let streamed = |id: &str, deltas: &[&str], content: &str| {
        let mut lines: Vec<String> = deltas
            .iter()
            .map(|d| {
                let data = serde_json::json!({"messageId": id, "deltaContent": d});
                line("assistant.message_delta", &data.to_string())
            })
            .collect();
        let data = serde_json::json!({"messageId": id, "model": "gpt-4.1", "content": content, "toolRequests": []});
        lines.push(line("assistant.message", &data.to_string()));
        lines.join("\n")
    };
    let shown = |input: String| -> Vec<String> {
        events(&input)
            .into_iter()
            .filter_map(|e| match e {
                AgentEvent::TextDelta { text } => Some(text.into_owned()),
                _ => None,
            })
            .collect()
    };
    let answer = "line 1\nline 2\nline 3\n";
    // A prefix: the rest follows.
    assert_eq!(
        shown(streamed("m1", &["line 1\n", "li"], answer)),
        ["line 1\n", "li", "ne 2\nline 3\n"]
    );
    // All of it: nothing more.
    assert_eq!(
        shown(streamed("m1", &["line 1\nline 2\n", "line 3\n"], answer)),
        ["line 1\nline 2\n", "line 3\n"]
    );
    // A piece missing in the middle: the answer whole, after a line break.
    assert_eq!(
        shown(streamed("m1", &["line 1\nli", "ne 3"], answer)),
        ["line 1\nli", "ne 3", "\n", answer]
    );
    // Something else, ending a line: the answer whole, right after it.
    assert_eq!(
        shown(streamed("m1", &["line 2\n"], answer)),
        ["line 2\n", answer]
    );
    // The deltas of another message do not count for this one.
    assert_eq!(
        shown(format!(
            "{}\n{}",
            streamed("m1", &["line 1\n"], "line 1\n"),
            streamed("m2", &[], "line 1\n")
        )),
        ["line 1\n", "line 1\n"]
    );
    // Whatever was shown, the message's text is the final one.
    let finished: Vec<_> = events(&streamed("m1", &["line 1\nli", "ne 3"], answer))
        .into_iter()
        .filter(|e| matches!(e, AgentEvent::MessageFinished { .. }))
        .collect();
    assert_eq!(finished, [message(answer, Stop::Completed, None)]);
}

#[test]
fn tools_are_matched_by_call_id_and_a_nonzero_exit_is_an_error() {
    let input = [
        line(
            "tool.execution_start",
            r#"{"toolCallId":"c1","toolName":"bash","arguments":{"command":"ls /x"},"turnId":"0"}"#,
        ),
        line(
            "tool.execution_start",
            r#"{"toolCallId":"c2","toolName":"view","arguments":{"path":"a"},"parentToolCallId":"task1"}"#,
        ),
        line("tool.shell_output", r#"{"toolCallId":"c1","stream":"stderr","text":"ls: no\n"}"#),
        line("tool.execution_partial_result", r#"{"toolCallId":"c1","partialOutput":"ls: no\n"}"#),
        line(
            "tool.execution_complete",
            r#"{"toolCallId":"c1","shellExecution":{"exitCode":2},"success":true,"result":{"content":"ls: no\n<exit code 2>","detailedContent":"x"}}"#,
        ),
        line(
            "tool.execution_complete",
            r#"{"toolCallId":"c2","success":false,"error":{"message":"Unknown tool","code":"failure"}}"#,
        ),
    ]
    .join("\n");
    assert_eq!(
        events(&input),
        vec![
            tool_started("c1", "bash", r#"{"command":"ls /x"}"#),
            AgentEvent::ToolCallStarted {
                id: "c2".into(),
                name: "view".into(),
                args: r#"{"path":"a"}"#.into(),
                parent_id: Some("task1".into()),
            },
            tool_finished("c1", "bash", "ls: no\n<exit code 2>", true),
            tool_finished("c2", "view", "Unknown tool", true),
        ]
    );
}

#[test]
fn failed_calls_retries_and_a_session_error_fail_the_run() {
    let input = [
        line(
            "model.call_failure",
            r#"{"model":"gpt-4.1","statusCode":500,"retryAttempt":0,"errorMessage":"{\"message\":\"The server had an error\",\"type\":\"server_error\"}"}"#,
        ),
        line("assistant.turn_retry", r#"{"turnId":"0","model":"gpt-4.1","reason":"api_error"}"#),
        line("session.info", r#"{"infoType":"model_retry","message":"Retrying..."}"#),
        line(
            "model.call_failure",
            r#"{"model":"gpt-4.1","retryAttempt":1,"errorMessage":"socket hang up"}"#,
        ),
        line("model.call_final_result", r#"{"model":"gpt-4.1","result":"http_5xx"}"#),
        line("session.error", r#"{"errorType":"query","message":"Failed to get response","statusCode":500}"#),
        r#"{"type":"result","sessionId":"s","exitCode":1}"#.to_owned(),
    ]
    .join("\n");
    let failed = |model: &str| AgentEvent::TurnFinished {
        usage: Usage {
            model: Some(model.to_owned().into()),
            ..Usage::default()
        },
        is_error: true,
    };
    assert_eq!(
        events(&input),
        vec![
            message("", Stop::Error, Some("HTTP 500: The server had an error")),
            failed("gpt-4.1"),
            AgentEvent::RetryStarted {
                attempt: Some(1),
                max_attempts: None,
                delay_ms: None,
                error: Some("HTTP 500: The server had an error".into()),
            },
            message("", Stop::Error, Some("socket hang up")),
            failed("gpt-4.1"),
            AgentEvent::RetryFinished {
                success: false,
                attempt: None,
                error: Some("socket hang up".into()),
            },
            AgentEvent::SessionStarted {
                session_id: Some("s".into()),
                model: None,
                provider: None,
            },
            AgentEvent::RunFinished {
                is_error: true,
                error: Some("Failed to get response".into()),
                turns: None,
                duration_ms: None,
                totals: None,
            },
        ]
    );
}

#[test]
fn a_retry_that_recovers_ends_with_success_and_later_calls_end_no_retry() {
    let input = [
        line(
            "model.call_failure",
            r#"{"retryAttempt":0,"errorMessage":"cut"}"#,
        ),
        line("assistant.turn_retry", r#"{"reason":"api_error"}"#),
        line("model.call_final_result", r#"{"result":"success"}"#),
        line("model.call_final_result", r#"{"result":"success"}"#),
    ]
    .join("\n");
    assert_eq!(
        events(&input),
        vec![
            message("", Stop::Error, Some("cut")),
            AgentEvent::TurnFinished {
                usage: Usage::default(),
                is_error: true,
            },
            AgentEvent::RetryStarted {
                attempt: Some(1),
                max_attempts: None,
                delay_ms: None,
                error: Some("cut".into()),
            },
            AgentEvent::RetryFinished {
                success: true,
                attempt: None,
                error: None,
            },
        ]
    );
}

#[test]
fn a_sub_agents_messages_are_not_the_answer() {
    let input = line(
        "assistant.message",
        r#"{"messageId":"m","content":"inner","parentToolCallId":"task1"}"#,
    );
    assert_eq!(events(&input), vec![]);
}

#[test]
fn compaction_unknown_types_and_wrong_types() {
    let input = [
        line("session.compaction_start", "{}"),
        line("session.compaction_complete", r#"{"error":"too big"}"#),
        line("session.hologram", "{}"),
        line("assistant.message", r#""not an object""#),
        r#"{"data":{"toolCallId":"late","toolName":"bash"},"type":"tool.execution_start"}"#
            .to_owned(),
        r#"{"type":"result","exitCode":"zero"}"#.to_owned(),
    ]
    .join("\n");
    assert_eq!(
        events(&input),
        vec![
            AgentEvent::Compaction {
                phase: Phase::Started,
                reason: None,
                error: None,
            },
            AgentEvent::Compaction {
                phase: Phase::Finished,
                reason: None,
                error: Some("too big".into()),
            },
            AgentEvent::Unknown {
                event_type: "session.hologram".into()
            },
            message("", Stop::Completed, None),
            AgentEvent::TurnFinished {
                usage: Usage::default(),
                is_error: false,
            },
            tool_started("late", "bash", "{}"),
            AgentEvent::RunFinished {
                is_error: false,
                error: None,
                turns: None,
                duration_ms: None,
                totals: None,
            },
        ]
    );
}

#[test]
fn a_finished_call_forgets_its_name() {
    use crate::parser::Lines as _;

    let mut parser = CopilotParser::default();
    let mut finished = 0;
    let mut push = |e: &AgentEvent<'_>| {
        finished += usize::from(matches!(
            e,
            AgentEvent::ToolCallFinished { name: Some(_), .. }
        ));
    };
    for call in ["c1", "c2"] {
        let start = line(
            "tool.execution_start",
            &format!(r#"{{"toolCallId":"{call}","toolName":"bash","arguments":{{}}}}"#),
        );
        let complete = line(
            "tool.execution_complete",
            &format!(r#"{{"toolCallId":"{call}","success":true,"result":{{"content":"ok"}}}}"#),
        );
        parser.line(start.as_bytes(), None, &mut push);
        parser.line(complete.as_bytes(), None, &mut push);
        assert!(parser.tool_names.is_empty(), "{:?}", parser.tool_names);
    }
    assert_eq!(finished, 2);
}

#[test]
fn an_interrupted_call_ends_aborted_with_what_it_showed_and_an_abort_fails_the_run() {
    let result = r#"{"type":"result","timestamp":"t","sessionId":"s1","exitCode":0}"#;
    let input = [
        line(
            "assistant.message_delta",
            r#"{"messageId":"m1","deltaContent":"Half"}"#,
        ),
        line(
            "agent.interrupted",
            r#"{"activity":"model_call","model":"gpt-5","cancelPhase":"streaming"}"#,
        ),
        line("abort", r#"{}"#),
        result.to_owned(),
    ]
    .join("\n");
    let got = events(&input);
    assert_eq!(
        got[1..4],
        [
            message("Half", Stop::Aborted, None),
            AgentEvent::TurnFinished {
                usage: Usage {
                    model: Some("gpt-5".into()),
                    ..Usage::default()
                },
                is_error: true,
            },
            AgentEvent::SessionStarted {
                session_id: Some("s1".into()),
                model: None,
                provider: None,
            },
        ]
    );
    assert!(matches!(
        &got[4],
        AgentEvent::RunFinished { is_error: true, error: Some(e), .. } if e == ABORTED
    ));
    // Without an `abort`, `exitCode: 0` is a success.
    assert!(matches!(
        events(result).last(),
        Some(AgentEvent::RunFinished {
            is_error: false,
            error: None,
            ..
        })
    ));
}
