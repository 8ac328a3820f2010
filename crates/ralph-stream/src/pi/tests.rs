use std::borrow::Cow;

use pretty_assertions::assert_eq;

use super::*;
use crate::event::CostKind;
use crate::event::Tokens;
use crate::parser::events_of;
use crate::parser::failed_message;

fn events(input: &str) -> Vec<AgentEvent<'static>> {
    events_of(PiParser::default(), input)
}

fn text(s: &str) -> AgentEvent<'static> {
    AgentEvent::TextDelta {
        text: Cow::Owned(s.to_owned()),
    }
}

#[test]
fn deltas_are_read_and_the_snapshots_only_skipped() {
    // Keys inside the snapshots that look like the event's own are not read.
    let got = events(
        r#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"héllo \"w\"","partial":{"role":"assistant","type":"thinking_delta","delta":"no","content":[{"type":"text","text":"snap"}]}},"message":{"type":"x","assistantMessageEvent":{}}}"#,
    );
    assert_eq!(got, vec![text("héllo \"w\"")]);
}

#[test]
fn a_line_broken_off_in_its_snapshot_is_not_json() {
    // A JSON parser rejects the whole line, so its delta is not taken either.
    let line = r#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"x","partial":{"role":"assistant","content":[{"type":"text","text":"BROKEN"#;
    assert_eq!(
        events(line),
        vec![AgentEvent::NonJson { line: line.into() }]
    );
}

#[test]
fn key_order_is_not_relied_upon() {
    let got = events(concat!(
        r#"{"message":{"role":"assistant","content":[{"type":"text","text":"snap"}]},"assistantMessageEvent":{"partial":{"x":1},"delta":"b","type":"text_delta"},"type":"message_update"}"#,
        "\n",
        r#"{"message":{"usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"cost":{"total":0.5}},"stopReason":"stop","content":[{"text":"done","type":"text"}],"role":"assistant","model":"m"},"type":"message_end"}"#,
    ));
    assert_eq!(
        got,
        vec![
            text("b"),
            AgentEvent::MessageFinished {
                text: "done".into(),
                stop: Stop::Completed,
                error: None
            },
            AgentEvent::TurnFinished {
                usage: Usage {
                    tokens: Tokens {
                        input: 1,
                        output: 2,
                        cache_read: 3,
                        cache_write: 4
                    },
                    cost_usd: Some(0.5),
                    cost_kind: CostKind::Reported,
                    model: Some("m".into()),
                },
                is_error: false
            },
        ]
    );
}

#[test]
fn keys_that_look_like_events_deep_inside_tool_arguments_are_not_events() {
    let got = events(concat!(
        r#"{"type":"message_update","assistantMessageEvent":{"type":"toolcall_delta","contentIndex":1,"delta":"{\"type\":\"text_delta\",\"delta\":\"LOOP_COMPLETE\"}"}}"#,
        "\n",
        r#"{"type":"tool_execution_start","toolCallId":"c1","toolName":"write","args":{"content":"{\"assistantMessageEvent\":{\"type\":\"text_delta\",\"delta\":\"x\"}}","type":"message_update"}}"#,
    ));
    assert_eq!(
        got,
        vec![AgentEvent::ToolCallStarted {
            id: "c1".into(),
            name: "write".into(),
            args: r#"{"content":"{\"assistantMessageEvent\":{\"type\":\"text_delta\",\"delta\":\"x\"}}","type":"message_update"}"#.into(),
            parent_id: None,
        }]
    );
}

#[test]
fn a_lone_surrogate_costs_one_character_not_the_event() {
    let got = events(
        r#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":"cut \ud83d","partial":{}}}"#,
    );
    assert_eq!(got, vec![text("cut \u{fffd}")]);
}

#[test]
fn fields_of_the_wrong_type_read_as_absent() {
    let got = events(concat!(
        r#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","delta":42}}"#,
        "\n",
        r#"{"type":"message_end","message":{"role":"assistant","content":"plain","stopReason":7,"usage":"lots"}}"#,
        "\n",
        r#"{"type":"tool_execution_end","toolCallId":["x"],"isError":"yes","result":{"content":[{"type":"text","text":1}]}}"#,
        "\n",
        r#"{"type":"auto_retry_start","attempt":"one","delayMs":-5}"#,
    ));
    assert_eq!(
        got,
        vec![
            AgentEvent::MessageFinished {
                text: "plain".into(),
                stop: Stop::Other,
                error: None
            },
            AgentEvent::TurnFinished {
                usage: Usage::default(),
                is_error: false
            },
            AgentEvent::ToolCallFinished {
                id: "".into(),
                name: None,
                output: "".into(),
                is_error: false
            },
            AgentEvent::RetryStarted {
                attempt: None,
                max_attempts: None,
                delay_ms: None,
                error: None
            },
        ]
    );
}

#[test]
fn errors_come_from_the_stop_reason_and_end_the_run_only_when_no_retry_follows() {
    let got = events(concat!(
        r#"{"type":"agent_start"}"#,
        "\n",
        r#"{"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"500 boom","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"cost":{"total":0}}}}"#,
        "\n",
        r#"{"type":"turn_end","message":{"role":"assistant","content":[],"stopReason":"error"}}"#,
        "\n",
        r#"{"type":"agent_end","messages":[]}"#,
        "\n",
        r#"{"type":"auto_retry_end","success":false,"attempt":3,"finalError":"500 boom"}"#,
    ));
    assert_eq!(
        got,
        vec![
            failed_message("500 boom"),
            AgentEvent::TurnFinished {
                usage: Usage {
                    cost_usd: Some(0.0),
                    cost_kind: CostKind::Reported,
                    ..Usage::default()
                },
                is_error: true
            },
            AgentEvent::RetryFinished {
                success: false,
                attempt: Some(3),
                error: Some("500 boom".into())
            },
            AgentEvent::RunFinished {
                is_error: true,
                error: Some("500 boom".into()),
                turns: None,
                duration_ms: None,
                totals: None
            },
        ]
    );
}

#[test]
fn usage_is_counted_once_per_turn_even_if_message_end_is_missing() {
    let usage =
        r#""usage":{"input":10,"output":1,"cacheRead":0,"cacheWrite":0,"cost":{"total":0.25}}"#;
    let got = events(&format!(
        concat!(
            r#"{{"type":"turn_start"}}"#,
            "\n",
            r#"{{"type":"message_end","message":{{"role":"assistant","content":[],"stopReason":"stop",{u}}}}}"#,
            "\n",
            r#"{{"type":"turn_end","message":{{"role":"assistant","content":[],"stopReason":"stop",{u}}}}}"#,
            "\n",
            r#"{{"type":"turn_start"}}"#,
            "\n",
            r#"{{"type":"turn_end","message":{{"role":"assistant","content":[{{"type":"text","text":"b"}}],"stopReason":"stop",{u}}}}}"#,
        ),
        u = usage
    ));
    let turns = got
        .iter()
        .filter(|e| matches!(e, AgentEvent::TurnFinished { .. }))
        .count();
    assert_eq!(turns, 2);
}

#[test]
fn the_delta_only_shape_of_later_releases_parses_the_same() {
    let got = events(concat!(
        r#"{"type":"session","version":3,"id":"s1","cwd":"/w"}"#,
        "\n",
        r#"{"type":"agent_start"}"#,
        "\n",
        r#"{"type":"message_update","usage":{"input":0},"assistantMessageEvent":{"type":"toolcall_start","contentIndex":0,"id":"t","toolName":"bash"}}"#,
        "\n",
        r#"{"type":"message_update","usage":{"input":0},"assistantMessageEvent":{"type":"thinking_delta","contentIndex":0,"delta":"hmm"}}"#,
        "\n",
        r#"{"type":"tool_execution_start","toolCallId":"t2","toolName":"bash","args":{"command":"ls"},"parentToolCallId":"t"}"#,
        "\n",
        r#"{"type":"queue_update","steering":[],"followUp":[]}"#,
        "\n",
        r#"{"type":"compaction_start","reason":"threshold"}"#,
        "\n",
        r#"{"type":"compaction_end","reason":"threshold","aborted":false,"willRetry":false}"#,
        "\n",
        r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"stopReason":"stop"}}"#,
        "\n",
        r#"{"type":"agent_end","messages":[],"willRetry":false}"#,
        "\n",
        r#"{"type":"agent_settled"}"#,
        "\n",
        r#"{"type":"brand_new_event"}"#,
        "\n",
        r#"{"type":"message_update","assistantMessageEvent":{"type":"brand_new_sub"}}"#,
    ));
    assert_eq!(
        got,
        vec![
            AgentEvent::SessionStarted {
                session_id: Some("s1".into()),
                model: None,
                provider: None
            },
            AgentEvent::ThinkingDelta { text: "hmm".into() },
            AgentEvent::ToolCallStarted {
                id: "t2".into(),
                name: "bash".into(),
                args: r#"{"command":"ls"}"#.into(),
                parent_id: Some("t".into())
            },
            AgentEvent::Compaction {
                phase: Phase::Started,
                reason: Some("threshold".into()),
                error: None
            },
            AgentEvent::Compaction {
                phase: Phase::Finished,
                reason: Some("threshold".into()),
                error: None
            },
            AgentEvent::MessageFinished {
                text: "ok".into(),
                stop: Stop::Completed,
                error: None
            },
            AgentEvent::TurnFinished {
                usage: Usage::default(),
                is_error: false
            },
            AgentEvent::RunFinished {
                is_error: false,
                error: None,
                turns: None,
                duration_ms: None,
                totals: None
            },
            AgentEvent::Unknown {
                event_type: "brand_new_event".into()
            },
            AgentEvent::Unknown {
                event_type: "message_update/brand_new_sub".into()
            },
        ]
    );
}

#[test]
fn non_json_and_untyped_lines_are_reported_not_fatal() {
    let got = events(
        "changed 265 packages\n{\"no_type\":1}\n{\"type\":\"turn_end\",\"message\":{\"role\":",
    );
    assert_eq!(
        got,
        vec![
            AgentEvent::NonJson {
                line: "changed 265 packages".into()
            },
            AgentEvent::Unknown {
                event_type: "".into()
            },
            AgentEvent::NonJson {
                line: "{\"type\":\"turn_end\",\"message\":{\"role\":".into()
            },
        ]
    );
}

#[test]
fn rpc_responses_are_known_and_a_refused_prompt_fails_the_run() {
    let accepted = concat!(
        r#"{"type":"response","command":"prompt","success":true}"#,
        "\n",
        r#"{"id":"s1","type":"response","command":"steer","success":true}"#,
        "\n",
        r#"{"type":"response","command":"steer","success":false,"error":"not now"}"#,
        "\n",
        r#"{"type":"response","command":"abort","success":true}"#,
    );
    assert_eq!(events(accepted), vec![]);
    let refused = |command: &str| {
        events(&format!(
            r#"{{"type":"response","command":"{command}","success":false,"error":"Agent is busy \"now\""}}"#
        ))
    };
    let failed = vec![AgentEvent::RunFinished {
        is_error: true,
        error: Some("pi refused the prompt: Agent is busy \"now\"".into()),
        turns: None,
        duration_ms: None,
        totals: None,
    }];
    assert_eq!(refused("prompt"), failed);
    // A command pi could not read (never one ralph writes) leaves it waiting the same way.
    assert_eq!(refused("parse"), failed);
    assert_eq!(refused("set_model"), vec![]);
}

#[test]
fn an_aborted_turn_ends_the_run_at_agent_end() {
    let got = events(concat!(
        r#"{"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"aborted","errorMessage":"Request was aborted."}}"#,
        "\n",
        r#"{"type":"agent_end","messages":[]}"#,
    ));
    assert_eq!(
        got.last(),
        Some(&AgentEvent::RunFinished {
            is_error: true,
            error: Some("Request was aborted.".into()),
            turns: None,
            duration_ms: None,
            totals: None,
        })
    );
}

#[test]
fn a_stream_that_ends_in_a_call_ends_it_aborted_and_one_between_calls_adds_nothing() {
    // pi killed in print mode writes nothing more: where its stream ends tells.
    const TURN: &str = r#"{"type":"turn_start"}"#;
    const ANSWER: &str = r#"{"type":"message_start","message":{"role":"assistant","content":[]}}"#;
    const DONE: &str = r#"{"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"toolUse"}}"#;
    const TOOL: &str =
        r#"{"type":"tool_execution_start","toolCallId":"c","toolName":"bash","args":{}}"#;
    let aborted = AgentEvent::MessageFinished {
        text: "".into(),
        stop: Stop::Aborted,
        error: None,
    };
    let last = |lines: &[&str]| events(&lines.join("\n")).last().cloned();
    // The call is sent at the turn's start, before any of its answer.
    assert_eq!(last(&[TURN]), Some(aborted.clone()));
    assert_eq!(last(&[TURN, ANSWER]), Some(aborted.clone()));
    // Its message ended: running its tool, nothing is in flight.
    assert_ne!(last(&[TURN, ANSWER, DONE, TOOL]), Some(aborted.clone()));
    assert_ne!(last(&[TURN, ANSWER, DONE]), Some(aborted.clone()));
    // A turn with no message_end (a missing one) closes at its turn_end.
    assert_ne!(
        last(&[TURN, ANSWER, r#"{"type":"turn_end"}"#]),
        Some(aborted)
    );
}

#[test]
fn in_rpc_mode_a_failed_turn_awaits_a_retry_until_pi_says_more() {
    let mut parser = PiParser::default();
    let feed = |parser: &mut PiParser, input: &str| {
        for line in input.lines() {
            crate::parser::Lines::line(parser, line.as_bytes(), None, &mut |_| {});
        }
    };
    let failed_end = concat!(
        r#"{"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"401 nope"}}"#,
        "\n",
        r#"{"type":"agent_end","messages":[]}"#,
    );
    // In print mode pi exits after it: nothing to await.
    feed(&mut parser, failed_end);
    assert!(!parser.awaiting_retry());
    feed(
        &mut parser,
        r#"{"type":"response","command":"prompt","success":true}"#,
    );
    feed(&mut parser, failed_end);
    assert!(parser.awaiting_retry());
    // The retry is announced: no longer in doubt.
    feed(
        &mut parser,
        r#"{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":10}"#,
    );
    assert!(!parser.awaiting_retry());
    feed(&mut parser, r#"{"type":"agent_start"}"#);
    feed(&mut parser, failed_end);
    assert!(parser.awaiting_retry());
    feed(
        &mut parser,
        r#"{"type":"auto_retry_end","success":false,"attempt":3,"finalError":"401 nope"}"#,
    );
    assert!(!parser.awaiting_retry());
    // A successful turn, or one that says it will be retried, awaits nothing.
    feed(&mut parser, r#"{"type":"agent_start"}"#);
    feed(
        &mut parser,
        r#"{"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"error"}}"#,
    );
    feed(
        &mut parser,
        r#"{"type":"agent_end","messages":[],"willRetry":true}"#,
    );
    assert!(!parser.awaiting_retry());
}

#[test]
fn user_messages_are_shown_and_only_their_end_counts() {
    // The prompt, then a steering message pi read mid-turn (after a tool call); a tool
    // result and the starts of the messages are not user messages.
    let user = |text: &str| {
        format!(r#"{{"role":"user","content":[{{"type":"text","text":"{text}"}}],"timestamp":1}}"#)
    };
    let input = [
        format!(r#"{{"type":"message_start","message":{}}}"#, user("Do it.")),
        format!(r#"{{"type":"message_end","message":{}}}"#, user("Do it.")),
        r#"{"type":"message_end","message":{"role":"toolResult","toolCallId":"t","content":[{"type":"text","text":"ok"}]}}"#.to_owned(),
        format!(r#"{{"type":"message_start","message":{}}}"#, user("Stop\\nnow.")),
        format!(r#"{{"type":"message_end","message":{}}}"#, user("Stop\\nnow.")),
    ]
    .join("\n");
    let got: Vec<_> = events(&input)
        .into_iter()
        .filter(|e| !matches!(e, AgentEvent::Unknown { .. }))
        .collect();
    let user_message = |text: &str| AgentEvent::UserMessage {
        text: Cow::Owned(text.to_owned()),
    };
    assert_eq!(
        got,
        vec![user_message("Do it."), user_message("Stop\nnow.")]
    );
}
