use pretty_assertions::assert_eq;

use super::*;
use crate::parser::events_of;
use crate::parser::failed_message;

fn events(input: &str) -> Vec<AgentEvent<'static>> {
    events_of(ClaudeParser::default(), input)
}

/// A model call of the main agent ended (its usage comes with `result`).
fn turn(is_error: bool) -> AgentEvent<'static> {
    AgentEvent::TurnFinished {
        usage: Usage::default(),
        is_error,
    }
}

#[test]
fn blocks_of_one_message_become_one_finished_message() {
    let got = events(concat!(
        r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"plan"}]},"parent_tool_use_id":null}"#,
        "\n",
        r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"first"}]},"parent_tool_use_id":null}"#,
        "\n",
        r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},"parent_tool_use_id":null}"#,
        "\n",
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"out","is_error":true}]},"tool_use_result":{"stdout":"out"}}"#,
        "\n",
        r#"{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"a"}]}}"#,
        "\n",
        r#"{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"b"}]}}"#,
    ));
    assert_eq!(
        got,
        vec![
            AgentEvent::ThinkingDelta {
                text: "plan".into()
            },
            AgentEvent::TextDelta {
                text: "first".into()
            },
            AgentEvent::ToolCallStarted {
                id: "t1".into(),
                name: "Bash".into(),
                args: r#"{"command":"ls"}"#.into(),
                parent_id: None
            },
            AgentEvent::MessageFinished {
                text: "first".into(),
                stop: Stop::ToolUse,
                error: None
            },
            turn(false),
            AgentEvent::ToolCallFinished {
                id: "t1".into(),
                name: Some("Bash".into()),
                output: "out".into(),
                is_error: true
            },
            AgentEvent::TextDelta { text: "a".into() },
            AgentEvent::TextDelta { text: "\nb".into() },
            AgentEvent::MessageFinished {
                text: "a\nb".into(),
                stop: Stop::Completed,
                error: None
            },
            turn(false),
        ]
    );
}

#[test]
fn the_synthetic_error_message_is_an_error_not_an_answer() {
    let got = events(concat!(
        r#"{"type":"assistant","message":{"id":"e","model":"<synthetic>","content":[{"type":"text","text":"API Error: 500 boom"}]},"error":"server_error","is_api_error_message":true}"#,
        "\n",
        r#"{"total_cost_usd":0,"is_error":true,"num_turns":1,"result":"API Error: 500 boom","type":"result"}"#,
    ));
    assert_eq!(
        got,
        vec![
            failed_message("API Error: 500 boom"),
            turn(true),
            AgentEvent::RunFinished {
                is_error: true,
                error: Some("API Error: 500 boom".into()),
                turns: Some(1),
                duration_ms: None,
                totals: Some(Usage {
                    cost_usd: Some(0.0),
                    cost_kind: crate::event::CostKind::Reported,
                    ..Usage::default()
                })
            },
        ]
    );
}

#[test]
fn sub_agent_words_are_not_the_answer_but_its_tools_show() {
    let got = events(concat!(
        r#"{"type":"assistant","message":{"id":"s","content":[{"type":"text","text":"sub says"},{"type":"tool_use","id":"t9","name":"Bash","input":{}}]},"parent_tool_use_id":"t1"}"#,
        "\n",
        r#"{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":500,"error_status":529,"error":"overloaded"}"#,
    ));
    assert_eq!(
        got,
        vec![
            AgentEvent::ToolCallStarted {
                id: "t9".into(),
                name: "Bash".into(),
                args: "{}".into(),
                parent_id: Some("t1".into())
            },
            AgentEvent::RetryStarted {
                attempt: Some(1),
                max_attempts: Some(10),
                delay_ms: Some(500),
                error: Some("HTTP 529: overloaded".into())
            },
        ]
    );
}

#[test]
fn a_replayed_user_message_is_one_claude_code_took_and_nothing_else_is() {
    let user = |rest: &str| format!(r#"{{"type":"user","message":{{"role":"user",{rest}}}"#);
    let shown = |text: &'static str| AgentEvent::UserMessage { text: text.into() };
    // Blocks or a plain string, escapes decoded; the last `isReplay` and `content` count.
    let lines = [
        user(r#""content":[{"type":"text","text":"the \"prompt\""}]},"isReplay":true}"#),
        user(r#""content":"steer\u0021"},"parent_tool_use_id":null,"isReplay":true}"#),
        user(
            r#""content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]},"isReplay":false,"isReplay":true}"#,
        ),
        user(r#""content":"old","content":[{"type":"text","text":"new"}]},"isReplay":true}"#),
        // Not replayed, replayed no more, or a sub-agent's prompt: none is ralph's.
        user(r#""content":[{"type":"text","text":"no"}]}}"#),
        user(r#""content":"no"},"isReplay":true,"isReplay":false}"#),
        user(r#""content":"no"},"parent_tool_use_id":"toolu_1","isReplay":true}"#),
    ];
    assert_eq!(
        events(&lines.join("\n")),
        vec![
            shown("the \"prompt\""),
            shown("steer!"),
            shown("a\nb"),
            shown("new"),
        ]
    );
}

#[test]
fn a_replayed_message_completes_the_message_before_it() {
    let got = events(concat!(
        r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"done"}]},"parent_tool_use_id":null}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":"more"},"parent_tool_use_id":null,"isReplay":true}"#,
    ));
    assert_eq!(
        got,
        vec![
            AgentEvent::TextDelta {
                text: "done".into()
            },
            AgentEvent::MessageFinished {
                text: "done".into(),
                stop: Stop::Completed,
                error: None
            },
            turn(false),
            AgentEvent::UserMessage {
                text: "more".into()
            },
        ]
    );
}

#[test]
fn a_finished_call_forgets_its_name() {
    use crate::parser::Lines as _;

    let mut parser = ClaudeParser::default();
    let mut names = Vec::new();
    let mut push = |e: &AgentEvent<'_>| {
        if let AgentEvent::ToolCallFinished { name, .. } = e {
            names.push(name.as_deref().map(str::to_owned));
        }
    };
    for call in ["t1", "t2"] {
        let used = format!(
            r#"{{"type":"assistant","message":{{"id":"m-{call}","content":[{{"type":"tool_use","id":"{call}","name":"Bash","input":{{}}}}]}},"parent_tool_use_id":null}}"#
        );
        let result = format!(
            r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"{call}","content":"out"}}]}}}}"#
        );
        parser.line(used.as_bytes(), None, &mut push);
        parser.line(result.as_bytes(), None, &mut push);
        // However many calls a session makes, only the running ones are remembered.
        assert!(parser.tool_names.is_empty(), "{:?}", parser.tool_names);
    }
    assert_eq!(names, [Some("Bash".to_owned()), Some("Bash".to_owned())]);
}

#[test]
fn turns_are_model_calls_not_claudes_tool_round_trips() {
    let assistant = |id: &str, block: &str| {
        format!(
            r#"{{"type":"assistant","message":{{"id":"{id}","model":"claude-opus-5-5","content":[{block}]}},"parent_tool_use_id":null}}"#
        )
    };
    let tool =
        |id: &str| format!(r#"{{"type":"tool_use","id":"{id}","name":"Bash","input":{{}}}}"#);
    let result = |id: &str| {
        format!(
            r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"{id}","content":"ok"}}]}}}}"#
        )
    };
    let text = r#"{"type":"text","text":"done"}"#;
    // Two parallel calls in the first message, a tool result arriving between the lines
    // of the second (still one model call), then the answer: 3 model calls, and Claude's
    // `num_turns` says 5 (tool results + 1).
    let lines = [
        assistant("m1", &tool("a")),
        assistant("m1", &tool("b")),
        result("a"),
        result("b"),
        assistant("m2", &tool("c")),
        result("c"),
        assistant("m2", &tool("d")),
        result("d"),
        assistant("m3", text),
        r#"{"type":"result","subtype":"success","is_error":false,"num_turns":5,"total_cost_usd":0.1,"usage":{"input_tokens":10,"output_tokens":5}}"#.to_owned(),
    ];
    let got = events(&lines.join("\n"));
    let turns = got
        .iter()
        .filter(|e| matches!(e, AgentEvent::TurnFinished { .. }))
        .count();
    assert_eq!(turns, 3);
    let mut summary = crate::SessionSummary::default();
    got.iter().for_each(|e| summary.observe(e));
    assert_eq!(
        (summary.turns, summary.tool_calls, summary.cost_usd),
        (3, 4, Some(0.1))
    );
    assert_eq!(summary.model.as_deref(), Some("claude-opus-5-5"));
}

#[test]
fn a_turn_carries_its_requests_usage_so_its_input_is_the_context_read() {
    // The usage of a response's lines is the `message_start` snapshot: the whole prompt
    // (uncached, cache reads, cache writes) and a placeholder output count.
    let got = events(concat!(
        r#"{"type":"assistant","message":{"id":"m1","model":"claude-opus-5-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":4000,"cache_read_input_tokens":12000,"cache_creation_input_tokens":500,"output_tokens":1}},"parent_tool_use_id":null}"#,
        "\n",
        r#"{"type":"assistant","message":{"id":"s1","model":"claude-opus-5-5","content":[{"type":"text","text":"sub"}],"usage":{"input_tokens":99}},"parent_tool_use_id":"t1"}"#,
    ));
    assert_eq!(
        got.last(),
        Some(&AgentEvent::TurnFinished {
            usage: Usage {
                tokens: Tokens {
                    input: 4000,
                    output: 1,
                    cache_read: 12000,
                    cache_write: 500,
                },
                cost_usd: None,
                cost_kind: crate::event::CostKind::Unknown,
                model: Some("claude-opus-5-5".into()),
            },
            is_error: false,
        })
    );
}

/// Amp's `--stream-json` is Claude Code's format without `--include-partial-messages`
/// (Amp has no such option): no `stream_event` lines, no message `id`, the stop reason on
/// every `assistant` line, and an output cap inside `usage` (`max_tokens`). Its stops come
/// from the `assistant` lines, and the cap is not one.
#[test]
fn an_amp_stream_says_its_stops_on_its_assistant_lines() {
    let line = |content: &str, stop: &str| {
        format!(
            r#"{{"type":"assistant","message":{{"type":"message","role":"assistant","content":[{content}],"stop_reason":"{stop}","usage":{{"input_tokens":7,"output_tokens":13,"max_tokens":300000}}}},"parent_tool_use_id":null,"session_id":"T-1"}}"#
        )
    };
    let got = events(
        &[
            line(
                r#"{"type":"tool_use","id":"t1","name":"Bash","input":{}}"#,
                "tool_use",
            ),
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"parent_tool_use_id":null,"session_id":"T-1"}"#.to_owned(),
            line(r#"{"type":"text","text":"cut"}"#, "max_tokens"),
            r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"go on"}]},"parent_tool_use_id":null,"session_id":"T-1"}"#.to_owned(),
            r#"{"type":"result","subtype":"success","duration_ms":2442,"is_error":false,"num_turns":2,"result":"cut","session_id":"T-1"}"#.to_owned(),
        ]
        .join("\n"),
    );
    let stops: Vec<Stop> = got
        .iter()
        .filter_map(|e| match e {
            AgentEvent::MessageFinished { stop, error, .. } => {
                assert_eq!(error, &None);
                Some(*stop)
            }
            _ => None,
        })
        .collect();
    assert_eq!(stops, [Stop::ToolUse, Stop::Length]);
    let answer = events(&line(r#"{"type":"text","text":"4"}"#, "end_turn"));
    assert!(
        answer.contains(&AgentEvent::MessageFinished {
            text: "4".into(),
            stop: Stop::Completed,
            error: None
        }),
        "{answer:?}"
    );
}

/// Without partial messages (Amp), the reason comes on the `assistant` line: the same
/// table, and a refusal says what happened.
#[test]
fn a_refusal_on_an_assistant_line_fails_the_call_and_says_why() {
    let got = events(
        r#"{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"text","text":"I can't help"}],"stop_reason":"refusal"},"parent_tool_use_id":null,"session_id":"T-1"}"#,
    );
    assert!(
        got.contains(&AgentEvent::MessageFinished {
            text: "I can't help".into(),
            stop: Stop::Error,
            error: Some(super::REFUSED.into()),
        }),
        "{got:?}"
    );
}
