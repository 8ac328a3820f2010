use pretty_assertions::assert_eq;

use super::*;
use crate::event::CostKind;
use crate::parser::events_of;
use crate::pricing::ModelPrice;
use crate::pricing::PriceTable;

fn events_priced(pricing: Pricing, input: &str) -> Vec<AgentEvent<'static>> {
    events_of(GeminiParser::new(pricing), input)
}

fn events(input: &str) -> Vec<AgentEvent<'static>> {
    events_priced(Pricing::default(), input)
}

fn message(text: &str, stop: Stop, error: Option<&str>) -> AgentEvent<'static> {
    AgentEvent::MessageFinished {
        text: text.to_owned().into(),
        stop,
        error: error.map(|e| e.to_owned().into()),
    }
}

fn delta(text: &str) -> AgentEvent<'static> {
    AgentEvent::TextDelta {
        text: text.to_owned().into(),
    }
}

/// A price that makes every token kind's cost visible in the sum.
const PRICE: ModelPrice = ModelPrice {
    input: 1.0,
    output: 10.0,
    cache_read: 0.1,
    cache_write: 0.0,
};

fn pricing() -> Pricing {
    Pricing::new(PriceTable::empty().with_entries([("gemini-a", PRICE), ("gemini-b", PRICE)]))
}

#[test]
fn init_starts_a_google_session_and_the_prompt_echo_is_silent() {
    assert_eq!(
        events(concat!(
            r#"{"type":"init","timestamp":"t","session_id":"s1","model":"gemini-2.5-pro"}"#,
            "\n",
            r#"{"type":"message","timestamp":"t","role":"user","content":"do it"}"#,
        )),
        vec![AgentEvent::SessionStarted {
            session_id: Some("s1".into()),
            model: Some("gemini-2.5-pro".into()),
            provider: Some("google".into()),
        }]
    );
}

#[test]
fn deltas_concatenate_and_a_response_ends_when_its_tools_report_back() {
    assert_eq!(
        events(concat!(
            r#"{"type":"message","role":"assistant","content":"Let me ","delta":true}"#,
            "\n",
            r#"{"type":"message","role":"assistant","content":"check.","delta":true}"#,
            "\n",
            r#"{"type":"tool_use","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"ls"}}"#,
            "\n",
            r#"{"type":"tool_use","tool_name":"read_file","tool_id":"t2","parameters":{"path":"a"}}"#,
            "\n",
            r#"{"type":"tool_result","tool_id":"t2","status":"error","error":{"type":"not_found","message":"no such file"}}"#,
            "\n",
            r#"{"type":"tool_result","tool_id":"t1","status":"success","output":"a\nb"}"#,
            "\n",
            r#"{"type":"message","role":"assistant","content":"Done.","delta":true}"#,
            "\n",
            r#"{"type":"result","status":"success","stats":{"duration_ms":5}}"#,
        )),
        vec![
            delta("Let me "),
            delta("check."),
            AgentEvent::ToolCallStarted {
                id: "t1".into(),
                name: "run_shell_command".into(),
                args: r#"{"command":"ls"}"#.into(),
                parent_id: None,
            },
            AgentEvent::ToolCallStarted {
                id: "t2".into(),
                name: "read_file".into(),
                args: r#"{"path":"a"}"#.into(),
                parent_id: None,
            },
            message("Let me check.", Stop::ToolUse, None),
            AgentEvent::ToolCallFinished {
                id: "t2".into(),
                name: Some("read_file".into()),
                output: "no such file".into(),
                is_error: true,
            },
            AgentEvent::ToolCallFinished {
                id: "t1".into(),
                name: Some("run_shell_command".into()),
                output: "a\nb".into(),
                is_error: false,
            },
            delta("Done."),
            message("Done.", Stop::Completed, None),
            AgentEvent::RunFinished {
                is_error: false,
                error: None,
                turns: Some(2),
                duration_ms: Some(5),
                totals: Some(Usage {
                    cost_usd: Some(0.0),
                    cost_kind: CostKind::Estimated,
                    ..Usage::default()
                }),
            },
        ]
    );
}

#[test]
fn result_stats_give_uncached_input_cache_reads_and_output_with_thoughts() {
    // 2400 prompt tokens of which 1600 cached, 100 candidates and 24 thought tokens.
    let line = r#"{"type":"result","status":"success","stats":{"total_tokens":2524,"input_tokens":2400,"output_tokens":100,"cached":1600,"input":800,"duration_ms":514,"tool_calls":1,"models":{"gemini-a":{"total_tokens":2524,"input_tokens":2400,"output_tokens":100,"cached":1600,"input":800}}}}"#;
    let tokens = Tokens {
        input: 800,
        output: 124,
        cache_read: 1600,
        cache_write: 0,
    };
    assert_eq!(
        events_priced(pricing(), line),
        vec![AgentEvent::RunFinished {
            is_error: false,
            error: None,
            turns: Some(0),
            duration_ms: Some(514),
            totals: Some(Usage {
                tokens,
                cost_usd: Some(PRICE.cost_of(&tokens)),
                cost_kind: CostKind::Estimated,
                model: Some("gemini-a".into()),
            }),
        }]
    );
}

#[test]
fn each_model_of_a_routed_run_is_priced_at_its_own_price_or_the_cost_is_unknown() {
    let both = r#"{"type":"result","status":"success","stats":{"total_tokens":30,"input_tokens":20,"output_tokens":10,"cached":0,"input":20,"models":{"gemini-a":{"total_tokens":10,"input_tokens":5,"output_tokens":5,"cached":0,"input":5},"gemini-b":{"total_tokens":20,"input_tokens":15,"output_tokens":5,"cached":0,"input":15}}}}"#;
    let totals = |events: Vec<AgentEvent<'static>>| match events.into_iter().next() {
        Some(AgentEvent::RunFinished { totals, .. }) => totals,
        other => panic!("{other:?}"),
    };
    let a = Tokens {
        input: 5,
        output: 5,
        ..Tokens::default()
    };
    let b = Tokens {
        input: 15,
        output: 5,
        ..Tokens::default()
    };
    assert_eq!(
        totals(events_priced(pricing(), both)),
        Some(Usage {
            tokens: Tokens {
                input: 20,
                output: 10,
                ..Tokens::default()
            },
            cost_usd: Some(PRICE.cost_of(&a) + PRICE.cost_of(&b)),
            cost_kind: CostKind::Estimated,
            model: None,
        })
    );
    let only_a = Pricing::new(PriceTable::empty().with_entries([("gemini-a", PRICE)]));
    assert_eq!(
        totals(events_priced(only_a, both)).map(|u| (u.cost_usd, u.cost_kind)),
        Some((None, CostKind::Unknown))
    );
}

#[test]
fn without_per_model_stats_the_init_model_prices_the_run_unless_it_was_routed() {
    let input = |model: &str| {
        format!(
            "{{\"type\":\"init\",\"model\":\"{model}\"}}\n{}",
            r#"{"type":"result","status":"success","stats":{"total_tokens":110,"input_tokens":100,"output_tokens":10}}"#
        )
    };
    let tokens = Tokens {
        input: 100,
        output: 10,
        ..Tokens::default()
    };
    let last = |model: &str| events_priced(pricing(), &input(model)).pop();
    // A successful single-turn run whose totals are `usage`.
    let finished = |usage: Usage<'static>| {
        Some(AgentEvent::RunFinished {
            is_error: false,
            error: None,
            turns: Some(0),
            duration_ms: None,
            totals: Some(usage),
        })
    };
    assert_eq!(
        last("gemini-a"),
        finished(Usage::estimated(
            tokens,
            Some(PRICE.cost_of(&tokens)),
            Some("gemini-a".into())
        ))
    );
    assert_eq!(
        last(ROUTED_MODEL),
        finished(Usage::estimated(tokens, None, None))
    );
}

#[test]
fn an_error_result_fails_the_response_in_progress_its_unrun_tools_and_the_run() {
    // As in `v0.61.0_stream-json_midstream_cut.jsonl`: the stream broke after the
    // function-call chunk, so Gemini CLI never ran the command.
    assert_eq!(
        events(concat!(
            r#"{"type":"tool_use","tool_name":"run_shell_command","tool_id":"t1","parameters":{}}"#,
            "\n",
            r#"{"type":"tool_use","tool_name":"read_file","tool_id":"t2","parameters":{}}"#,
            "\n",
            r#"{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: terminated]"},"stats":{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0,"input":0,"duration_ms":0}}"#,
        )),
        vec![
            AgentEvent::ToolCallStarted {
                id: "t1".into(),
                name: "run_shell_command".into(),
                args: "{}".into(),
                parent_id: None,
            },
            AgentEvent::ToolCallStarted {
                id: "t2".into(),
                name: "read_file".into(),
                args: "{}".into(),
                parent_id: None,
            },
            message("", Stop::Error, Some("[API Error: terminated]")),
            AgentEvent::ToolCallFinished {
                id: "t1".into(),
                name: Some("run_shell_command".into()),
                output: NOT_RUN.into(),
                is_error: true,
            },
            AgentEvent::ToolCallFinished {
                id: "t2".into(),
                name: Some("read_file".into()),
                output: NOT_RUN.into(),
                is_error: true,
            },
            AgentEvent::RunFinished {
                is_error: true,
                error: Some("[API Error: terminated]".into()),
                turns: Some(1),
                duration_ms: Some(0),
                totals: Some(Usage {
                    cost_usd: Some(0.0),
                    cost_kind: CostKind::Estimated,
                    ..Usage::default()
                }),
            },
        ]
    );
}

#[test]
fn a_loop_detected_warning_fails_the_run_that_gemini_calls_a_success() {
    let events = events(concat!(
        r#"{"type":"tool_result","tool_id":"t1","status":"success","output":"ok"}"#,
        "\n",
        r#"{"type":"error","severity":"warning","message":"Loop detected, stopping execution"}"#,
        "\n",
        r#"{"type":"result","status":"success"}"#,
    ));
    assert_eq!(
        events.last(),
        Some(&AgentEvent::RunFinished {
            is_error: true,
            error: Some("Loop detected, stopping execution".into()),
            turns: Some(1),
            duration_ms: None,
            totals: None,
        })
    );
    let mut summary = crate::SessionSummary::default();
    events.iter().for_each(|e| summary.observe(e));
    assert!(!summary.succeeded);
    assert_eq!(summary.errors, ["Loop detected, stopping execution"]);
}

#[test]
fn error_events_fail_the_response_unless_they_are_warnings() {
    assert_eq!(
        events(concat!(
            r#"{"type":"message","role":"assistant","content":"half","delta":true}"#,
            "\n",
            r#"{"type":"error","severity":"warning","message":"Loop detected"}"#,
            "\n",
            r#"{"type":"error","severity":"error","message":"Max turns reached"}"#,
        )),
        vec![
            delta("half"),
            message("half", Stop::Error, Some("Max turns reached")),
        ]
    );
}

#[test]
fn unknown_types_missing_fields_and_wrong_types() {
    assert_eq!(
        events(concat!(
            r#"{"type":"telemetry","x":1}"#,
            "\n",
            r#"{"type":"message","role":"assistant","content":7}"#,
            "\n",
            r#"{"type":"tool_result","status":"success"}"#,
            "\n",
            r#"{"type":"result","stats":"none","error":"boom"}"#,
        )),
        vec![
            AgentEvent::Unknown {
                event_type: "telemetry".into()
            },
            AgentEvent::ToolCallFinished {
                id: "".into(),
                name: None,
                output: "".into(),
                is_error: false,
            },
            AgentEvent::RunFinished {
                is_error: true,
                error: Some("boom".into()),
                turns: Some(1),
                duration_ms: None,
                totals: None,
            },
        ]
    );
}

#[test]
fn thoughts_read_as_subject_and_description() {
    assert_eq!(
        events(concat!(
            r#"{"type":"thought","subject":"Planning","description":"list files first"}"#,
            "\n",
            r#"{"type":"thought","subject":"Only a subject"}"#,
            "\n",
            r#"{"type":"thought"}"#,
        )),
        vec![
            AgentEvent::ThinkingDelta {
                text: "Planning: list files first".into()
            },
            AgentEvent::ThinkingDelta {
                text: "Only a subject".into()
            },
        ]
    );
}

#[test]
fn key_order_is_not_relied_upon() {
    assert_eq!(
        events(r#"{"content":"hé","delta":true,"role":"assistant","type":"message"}"#),
        vec![delta("hé")]
    );
}

#[test]
fn a_finished_call_forgets_its_name() {
    use crate::parser::Lines as _;

    let mut parser = GeminiParser::default();
    let mut finished = 0;
    let mut push = |e: &AgentEvent<'_>| {
        finished += usize::from(matches!(
            e,
            AgentEvent::ToolCallFinished { name: Some(_), .. }
        ));
    };
    for call in ["t1", "t2"] {
        let used = format!(
            r#"{{"type":"tool_use","tool_name":"read_file","tool_id":"{call}","parameters":{{}}}}"#
        );
        let result = format!(
            r#"{{"type":"tool_result","tool_id":"{call}","status":"success","output":"ok"}}"#
        );
        parser.line(used.as_bytes(), None, &mut push);
        parser.line(result.as_bytes(), None, &mut push);
        assert!(parser.tool_names.is_empty(), "{:?}", parser.tool_names);
    }
    assert_eq!(finished, 2);
}
