use pretty_assertions::assert_eq;

use super::*;
use crate::event::CostKind;
use crate::event::Tokens;
use crate::parser::{events_of, tool_finished, tool_started};

fn events(input: &str) -> Vec<AgentEvent<'static>> {
    events_of(OpencodeParser::default(), input)
}

fn session(id: &str) -> AgentEvent<'static> {
    AgentEvent::SessionStarted {
        session_id: Some(id.to_owned().into()),
        model: None,
        provider: None,
    }
}

fn message(text: &str, stop: Stop, error: Option<&str>) -> AgentEvent<'static> {
    AgentEvent::MessageFinished {
        text: text.to_owned().into(),
        stop,
        error: error.map(|e| e.to_owned().into()),
    }
}

fn turn(tokens: Tokens, cost: f64) -> AgentEvent<'static> {
    AgentEvent::TurnFinished {
        usage: Usage {
            tokens,
            cost_usd: Some(cost),
            cost_kind: CostKind::Reported,
            model: None,
        },
        is_error: false,
    }
}

const STEP_START: &str = r#"{"type":"step_start","sessionID":"ses_1","part":{"id":"p0","messageID":"msg_1","sessionID":"ses_1","type":"step-start"}}"#;

#[test]
fn a_step_is_a_message_with_its_parts_and_its_own_usage_and_cost() {
    let input = [
        STEP_START,
        r#"{"type":"reasoning","sessionID":"ses_1","part":{"type":"reasoning","text":"plan"}}"#,
        r#"{"type":"text","sessionID":"ses_1","part":{"type":"text","text":"first"}}"#,
        r#"{"type":"text","sessionID":"ses_1","part":{"type":"text","text":"second"}}"#,
        r#"{"type":"step_finish","sessionID":"ses_1","part":{"type":"step-finish","reason":"stop","tokens":{"total":1560,"input":500,"output":60,"reasoning":7,"cache":{"write":3,"read":1000}},"cost":0.0024}}"#,
    ]
    .join("\n");
    assert_eq!(
        events(&input),
        vec![
            session("ses_1"),
            AgentEvent::ThinkingDelta {
                text: "plan".into()
            },
            AgentEvent::TextDelta {
                text: "first".into()
            },
            AgentEvent::TextDelta {
                text: "\nsecond".into()
            },
            message("first\nsecond", Stop::Completed, None),
            turn(
                Tokens {
                    input: 500,
                    output: 60,
                    cache_read: 1000,
                    cache_write: 3,
                },
                0.0024
            ),
        ]
    );
}

#[test]
fn tool_parts_start_and_finish_at_once_and_a_nonzero_exit_is_an_error() {
    let input = [
        r#"{"type":"tool_use","sessionID":"s","part":{"type":"tool","tool":"bash","callID":"c1","state":{"status":"completed","input":{"command":"ls /x"},"output":"ls: no\n","metadata":{"output":"ls: no\n","exit":2,"truncated":false},"title":"ls /x"}}}"#,
        r#"{"type":"tool_use","sessionID":"s","part":{"type":"tool","tool":"write","callID":"c2","state":{"status":"completed","input":{"filePath":"a"},"output":"Wrote file successfully.","metadata":{"exists":false}}}}"#,
        r#"{"type":"tool_use","sessionID":"s","part":{"type":"tool","tool":"read","callID":"c3","state":{"status":"error","input":{},"error":"File not found"}}}"#,
        r#"{"type":"step_finish","sessionID":"s","part":{"reason":"tool-calls","tokens":{"input":1,"output":2,"cache":{"read":0,"write":0}},"cost":0.5}}"#,
    ]
    .join("\n");
    let started = |id: &str, name: &str, args: &str| AgentEvent::ToolCallStarted {
        id: id.to_owned().into(),
        name: name.to_owned().into(),
        args: args.to_owned().into(),
        parent_id: None,
    };
    let finished = |id: &str, name: &str, output: &str, is_error| AgentEvent::ToolCallFinished {
        id: id.to_owned().into(),
        name: Some(name.to_owned().into()),
        output: output.to_owned().into(),
        is_error,
    };
    assert_eq!(
        events(&input),
        vec![
            session("s"),
            started("c1", "bash", r#"{"command":"ls /x"}"#),
            finished("c1", "bash", "ls: no\n", true),
            started("c2", "write", r#"{"filePath":"a"}"#),
            finished("c2", "write", "Wrote file successfully.", false),
            started("c3", "read", "{}"),
            finished("c3", "read", "File not found", true),
            message("", Stop::ToolUse, None),
            turn(
                Tokens {
                    input: 1,
                    output: 2,
                    ..Tokens::default()
                },
                0.5
            ),
        ]
    );
}

#[test]
fn a_running_tool_is_started_once_and_finished_when_it_completes() {
    let input = [
        r#"{"type":"tool_use","part":{"tool":"bash","callID":"c1","state":{"status":"running","input":{"command":"sleep 1"}}}}"#,
        r#"{"type":"tool_use","part":{"tool":"bash","callID":"c1","state":{"status":"completed","input":{"command":"sleep 1"},"output":""}}}"#,
    ]
    .join("\n");
    assert_eq!(
        events(&input),
        vec![
            tool_started("c1", "bash", r#"{"command":"sleep 1"}"#),
            tool_finished("c1", "bash", "", false),
        ]
    );
}

#[test]
fn a_step_left_open_failed_and_its_restart_in_the_same_message_is_a_retry() {
    let other_message = STEP_START.replace("msg_1", "msg_2");
    let input = [
        STEP_START,
        r#"{"type":"text","sessionID":"ses_1","part":{"type":"text","text":"cut"}}"#,
        STEP_START,
        &other_message,
    ]
    .join("\n");
    let retry = AgentEvent::RetryStarted {
        attempt: None,
        max_attempts: None,
        delay_ms: None,
        error: None,
    };
    assert_eq!(
        events(&input),
        vec![
            session("ses_1"),
            AgentEvent::TextDelta { text: "cut".into() },
            message("cut", Stop::Error, None),
            retry,
            message("", Stop::Error, None),
            // The stream ends inside the last step: it was cut.
            message("", Stop::Aborted, None),
        ]
    );
}

#[test]
fn an_error_event_fails_the_step_in_progress_with_the_http_status() {
    let input = [
        STEP_START,
        r#"{"type":"error","sessionID":"ses_1","error":{"name":"APIError","data":{"message":"The server had an error","statusCode":500,"isRetryable":true,"responseBody":"{\"error\":1}"}}}"#,
        r#"{"type":"error","error":{"name":"ProviderAuthError","data":{"providerID":"x"}}}"#,
        r#"{"type":"error","error":"plain"}"#,
        r#"{"type":"error"}"#,
    ]
    .join("\n");
    assert_eq!(
        events(&input),
        vec![
            session("ses_1"),
            message("", Stop::Error, Some("HTTP 500: The server had an error")),
            message("", Stop::Error, Some("ProviderAuthError")),
            message("", Stop::Error, Some("plain")),
            message("", Stop::Error, Some("opencode reported an error")),
        ]
    );
}

#[test]
fn stop_reasons_map_and_unpriced_steps_have_an_unknown_cost() {
    let input = [
        r#"{"type":"step_finish","part":{"reason":"length","tokens":{"input":10,"output":5},"cost":0}}"#,
        r#"{"type":"step_finish","part":{"reason":"content-filter"}}"#,
        r#"{"type":"step_finish","part":{"reason":"error","cost":"free"}}"#,
    ]
    .join("\n");
    let unknown = |tokens: Tokens, is_error| AgentEvent::TurnFinished {
        usage: Usage {
            tokens,
            cost_usd: None,
            cost_kind: CostKind::Unknown,
            model: None,
        },
        is_error,
    };
    assert_eq!(
        events(&input),
        vec![
            message("", Stop::Length, None),
            unknown(
                Tokens {
                    input: 10,
                    output: 5,
                    ..Tokens::default()
                },
                false
            ),
            message("", Stop::Other, None),
            unknown(Tokens::default(), false),
            message("", Stop::Error, None),
            unknown(Tokens::default(), true),
        ]
    );
}

#[test]
fn unknown_types_and_wrong_types_are_counted_or_absent() {
    let input = [
        r#"{"type":"file","sessionID":"s","part":{}}"#,
        r#"{"type":"text","part":"not an object"}"#,
        r#"{"type":"text","part":{"text":["x"]}}"#,
        r#"{"part":{"text":"late type"},"sessionID":"s","type":"text"}"#,
    ]
    .join("\n");
    assert_eq!(
        events(&input),
        vec![
            session("s"),
            AgentEvent::Unknown {
                event_type: "file".into()
            },
            AgentEvent::TextDelta {
                text: "late type".into()
            },
            message("late type", Stop::Aborted, None),
        ]
    );
}
