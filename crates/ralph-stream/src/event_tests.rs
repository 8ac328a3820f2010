use super::*;

#[test]
fn zero_cost_with_tokens_is_unknown_not_free() {
    let tokens = Tokens {
        input: 10,
        ..Tokens::default()
    };
    assert_eq!(
        Usage::reported(tokens, Some(0.0), None),
        Usage {
            tokens,
            cost_usd: None,
            cost_kind: CostKind::Unknown,
            model: None
        }
    );
    assert_eq!(
        Usage::reported(Tokens::default(), Some(0.0), None).cost_kind,
        CostKind::Reported
    );
}

#[test]
fn events_serialize_with_a_type_tag_and_raw_json_args() {
    let ev = AgentEvent::ToolCallStarted {
        id: "t1".into(),
        name: "bash".into(),
        args: r#"{"command":"ls"}"#.into(),
        parent_id: None,
    };
    assert_eq!(
        serde_json::to_string(&ev).unwrap(),
        r#"{"type":"tool_call_started","id":"t1","name":"bash","args":{"command":"ls"},"parent_id":null}"#
    );
    let broken = AgentEvent::ToolCallStarted {
        id: "t1".into(),
        name: "bash".into(),
        args: r#"{"s":"\ud83d"}"#.into(),
        parent_id: None,
    };
    let json = serde_json::to_string(&broken).unwrap();
    assert!(
        serde_json::from_str::<serde_json::Value>(&json).is_ok(),
        "{json}"
    );
}

#[test]
fn cost_kinds_combine_to_the_weakest() {
    use CostKind::*;
    assert_eq!(Reported.combine(Reported), Reported);
    assert_eq!(Reported.combine(Estimated), Estimated);
    assert_eq!(Estimated.combine(Unknown), Unknown);
}

#[test]
fn token_sums_saturate_on_counts_an_agent_made_up() {
    let huge = Tokens {
        input: u64::MAX,
        output: 1,
        cache_read: 2,
        cache_write: 3,
    };
    assert_eq!(huge.total(), u64::MAX);
    let mut sum = huge;
    sum += huge;
    assert_eq!(sum.input, u64::MAX);
    assert_eq!(sum.output, 2);
}
