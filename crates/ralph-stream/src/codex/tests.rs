use pretty_assertions::assert_eq;

use super::*;
use crate::event::CostKind;
use crate::event::Tokens;
use crate::event::Usage;
use crate::parser::events_of;
use crate::parser::failed_message;
use crate::parser::{tool_finished, tool_started};
use crate::pricing::ModelPrice;
use crate::pricing::PriceTable;

fn events_priced(pricing: Pricing, input: &str) -> Vec<AgentEvent<'static>> {
    events_of(CodexParser::new(pricing), input)
}

fn events(input: &str) -> Vec<AgentEvent<'static>> {
    events_priced(Pricing::default(), input)
}

/// A completed turn: the run's end, with its totals.
fn completed(usage: Usage<'static>) -> AgentEvent<'static> {
    AgentEvent::RunFinished {
        is_error: false,
        error: None,
        turns: Some(1),
        duration_ms: None,
        totals: Some(usage),
    }
}

fn run_finished(error: Option<&str>) -> AgentEvent<'static> {
    AgentEvent::RunFinished {
        is_error: error.is_some(),
        error: error.map(|e| e.to_owned().into()),
        turns: None,
        duration_ms: None,
        totals: None,
    }
}

#[test]
fn a_thread_is_a_session_and_turn_starts_say_nothing() {
    assert_eq!(
        events(concat!(
            r#"{"type":"thread.started","thread_id":"01a2"}"#,
            "\n",
            r#"{"type":"turn.started"}"#,
        )),
        vec![AgentEvent::SessionStarted {
            session_id: Some("01a2".into()),
            model: None,
            provider: None,
        }]
    );
}

#[test]
fn messages_and_reasoning_arrive_whole() {
    assert_eq!(
        events(concat!(
            r#"{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"plan \"a\""}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"done\n\nLOOP_COMPLETE"}}"#,
        )),
        vec![
            AgentEvent::ThinkingDelta {
                text: "plan \"a\"".into()
            },
            AgentEvent::TextDelta {
                text: "done\n\nLOOP_COMPLETE".into()
            },
            AgentEvent::MessageFinished {
                text: "done\n\nLOOP_COMPLETE".into(),
                stop: Stop::Completed,
                error: None,
            },
        ]
    );
}

#[test]
fn commands_start_and_finish_by_item_id_and_a_nonzero_exit_is_an_error() {
    assert_eq!(
        events(concat!(
            r#"{"type":"item.started","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'echo \"hi\"'","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
            "\n",
            r#"{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"ls /nope","aggregated_output":"","exit_code":null,"status":"in_progress"}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls /nope","aggregated_output":"ls: no such file\n","exit_code":2,"status":"failed"}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"item_0","type":"command_execution","command":"/bin/bash -lc 'echo \"hi\"'","aggregated_output":"hi\n","exit_code":0,"status":"completed"}}"#,
        )),
        vec![
            tool_started(
                "item_0",
                "command_execution",
                r#"{"command":"/bin/bash -lc 'echo \"hi\"'"}"#
            ),
            tool_started("item_1", "command_execution", r#"{"command":"ls /nope"}"#),
            tool_finished("item_1", "command_execution", "ls: no such file\n", true),
            tool_finished("item_0", "command_execution", "hi\n", false),
        ]
    );
}

#[test]
fn tools_reported_only_when_done_are_started_then_finished() {
    assert_eq!(
        events(concat!(
            r#"{"type":"item.completed","item":{"id":"item_3","type":"file_change","changes":[{"path":"src/a.rs","kind":"update"},{"path":"b.txt","kind":"add"}],"status":"completed"}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"item_4","type":"web_search","query":"rust memchr"}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"item_5","type":"command_execution","command":"true","aggregated_output":"","exit_code":null,"status":"declined"}}"#,
        )),
        vec![
            tool_started(
                "item_3",
                "file_change",
                r#"{"changes":[{"path":"src/a.rs","kind":"update"},{"path":"b.txt","kind":"add"}]}"#
            ),
            tool_finished("item_3", "file_change", "update src/a.rs\nadd b.txt", false),
            tool_started("item_4", "web_search", r#"{"query":"rust memchr"}"#),
            tool_finished("item_4", "web_search", "", false),
            tool_started("item_5", "command_execution", r#"{"command":"true"}"#),
            tool_finished("item_5", "command_execution", "", true),
        ]
    );
}

#[test]
fn mcp_tool_calls_are_named_server_slash_tool() {
    assert_eq!(
        events(concat!(
            r#"{"type":"item.started","item":{"id":"m1","type":"mcp_tool_call","server":"fs","tool":"read","arguments":{"path":"/x"},"result":null,"error":null,"status":"in_progress"}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"m1","type":"mcp_tool_call","server":"fs","tool":"read","arguments":{"path":"/x"},"result":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"structured_content":null},"error":null,"status":"completed"}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"m2","type":"mcp_tool_call","server":"fs","tool":"read","arguments":null,"result":null,"error":{"message":"not found"},"status":"failed"}}"#,
        )),
        vec![
            tool_started("m1", "fs/read", r#"{"path":"/x"}"#),
            tool_finished("m1", "fs/read", "a\nb", false),
            tool_started("m2", "fs/read", "{}"),
            tool_finished("m2", "fs/read", "not found", true),
        ]
    );
}

#[test]
fn warnings_and_plans_are_known_but_silent_and_unknown_items_are_counted() {
    assert_eq!(
        events(concat!(
            r#"{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Model metadata for `mock-model` not found."}}"#,
            "\n",
            r#"{"type":"item.started","item":{"id":"t","type":"todo_list","items":[{"text":"a","completed":false}]}}"#,
            "\n",
            r#"{"type":"item.updated","item":{"id":"t","type":"todo_list","items":[{"text":"a","completed":true}]}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"t","type":"todo_list","items":[]}}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"c","type":"collab_tool_call"}}"#,
            "\n",
            r#"{"type":"thread.archived"}"#,
        )),
        vec![
            AgentEvent::Unknown {
                event_type: "item/collab_tool_call".into()
            },
            AgentEvent::Unknown {
                event_type: "thread.archived".into()
            },
        ]
    );
}

#[test]
fn a_completed_turn_ends_the_run_with_its_totals_and_no_turn_of_one_model_call() {
    let line = r#"{"type":"turn.completed","usage":{"input_tokens":3000,"cached_input_tokens":2000,"cache_write_input_tokens":500,"output_tokens":120,"reasoning_output_tokens":40}}"#;
    let tokens = Tokens {
        input: 500,
        output: 120,
        cache_read: 2000,
        cache_write: 500,
    };
    assert_eq!(
        events(line),
        vec![completed(Usage {
            tokens,
            cost_usd: None,
            cost_kind: CostKind::Unknown,
            model: None,
        })]
    );
    let price = ModelPrice {
        input: 1.0,
        output: 10.0,
        cache_read: 0.1,
        cache_write: 2.0,
    };
    let pricing = Pricing::new(PriceTable::empty().with_entries([("gpt-x", price)]))
        .with_default_model("gpt-x");
    assert_eq!(
        events_priced(pricing, line),
        [completed(Usage {
            tokens,
            cost_usd: Some(price.cost_of(&tokens)),
            cost_kind: CostKind::Estimated,
            model: Some("gpt-x".into()),
        })]
    );
}

#[test]
fn reconnecting_errors_are_retries_and_the_last_error_fails_the_turn() {
    assert_eq!(
        events(concat!(
            r#"{"type":"error","message":"Reconnecting... 1/5 (We’re busy.)"}"#,
            "\n",
            r#"{"type":"error","message":"Reconnecting... waiting for network"}"#,
            "\n",
            r#"{"type":"error","message":"We’re busy."}"#,
            "\n",
            r#"{"type":"turn.failed","error":{"message":"We’re busy."}}"#,
        )),
        vec![
            AgentEvent::RetryStarted {
                attempt: Some(1),
                max_attempts: Some(5),
                delay_ms: None,
                error: Some("We’re busy.".into()),
            },
            AgentEvent::RetryStarted {
                attempt: None,
                max_attempts: None,
                delay_ms: None,
                error: Some("Reconnecting... waiting for network".into()),
            },
            failed_message("We’re busy."),
            run_finished(Some("We’re busy.")),
        ]
    );
}

#[test]
fn missing_and_mistyped_fields_read_as_absent() {
    assert_eq!(
        events(concat!(
            r#"{"type":"thread.started","thread_id":7}"#,
            "\n",
            r#"{"type":"item.completed","item":"nope"}"#,
            "\n",
            r#"{"type":"item.completed","item":{"id":"x","type":"command_execution","command":["ls"],"exit_code":"2","aggregated_output":5}}"#,
            "\n",
            r#"{"type":"turn.completed","usage":{"input_tokens":"many","output_tokens":-1}}"#,
            "\n",
            r#"{"type":"turn.completed"}"#,
            "\n",
            r#"{"type":"turn.failed"}"#,
            "\n",
            r#"{"type":"error"}"#,
        )),
        vec![
            AgentEvent::SessionStarted {
                session_id: None,
                model: None,
                provider: None,
            },
            AgentEvent::Unknown {
                event_type: "item.completed".into()
            },
            tool_started("x", "command_execution", "{}"),
            tool_finished("x", "command_execution", "", false),
            completed(Usage {
                cost_usd: Some(0.0),
                cost_kind: CostKind::Estimated,
                ..Usage::default()
            }),
            completed(Usage::default()),
            run_finished(Some("codex reported a failed turn")),
            failed_message("codex reported an error"),
        ]
    );
}

#[test]
fn key_order_is_not_relied_upon() {
    assert_eq!(
        events(r#"{"item":{"text":"hi","type":"agent_message","id":"i"},"type":"item.completed"}"#),
        vec![
            AgentEvent::TextDelta { text: "hi".into() },
            AgentEvent::MessageFinished {
                text: "hi".into(),
                stop: Stop::Completed,
                error: None,
            },
        ]
    );
}

#[test]
fn retry_notices_split_into_attempt_maximum_and_reason() {
    assert_eq!(
        retry_notice(" 2/5 (busy (really))"),
        (Some(2), Some(5), Some("busy (really)"))
    );
    assert_eq!(retry_notice(" 3/3"), (Some(3), Some(3), None));
    assert_eq!(retry_notice(" soon (x)"), (None, None, None));
}
