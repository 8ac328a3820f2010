//! docs/events.md documents every event type, and nothing else.

use std::collections::BTreeSet;

use ralph_stream::AgentEvent;
use ralph_stream::Phase;
use ralph_stream::Stop;
use ralph_stream::Usage;

/// One event of every type. The match makes adding a variant a compile error here,
/// which is the reminder to document it.
fn one_of_each() -> Vec<AgentEvent<'static>> {
    let all = vec![
        AgentEvent::SessionStarted {
            session_id: None,
            model: None,
            provider: None,
        },
        AgentEvent::TextDelta { text: "t".into() },
        AgentEvent::ThinkingDelta { text: "t".into() },
        AgentEvent::ToolCallStarted {
            id: "i".into(),
            name: "n".into(),
            args: "{}".into(),
            parent_id: None,
        },
        AgentEvent::ToolCallFinished {
            id: "i".into(),
            name: None,
            output: "o".into(),
            is_error: false,
        },
        AgentEvent::MessageFinished {
            text: "t".into(),
            stop: Stop::Completed,
            error: None,
        },
        AgentEvent::TurnFinished {
            usage: Usage::default(),
            is_error: false,
        },
        AgentEvent::RetryStarted {
            attempt: None,
            max_attempts: None,
            delay_ms: None,
            error: None,
        },
        AgentEvent::RetryFinished {
            success: true,
            attempt: None,
            error: None,
        },
        AgentEvent::Compaction {
            phase: Phase::Started,
            reason: None,
            error: None,
        },
        AgentEvent::RateLimit {
            status: None,
            resets_at: None,
        },
        AgentEvent::RunFinished {
            is_error: false,
            error: None,
            turns: None,
            duration_ms: None,
            totals: None,
        },
        AgentEvent::NonJson { line: "x".into() },
        AgentEvent::Unknown {
            event_type: "x".into(),
        },
        AgentEvent::OversizeLine { len: 1 },
    ];
    for event in &all {
        match event {
            AgentEvent::SessionStarted { .. }
            | AgentEvent::TextDelta { .. }
            | AgentEvent::ThinkingDelta { .. }
            | AgentEvent::ToolCallStarted { .. }
            | AgentEvent::ToolCallFinished { .. }
            | AgentEvent::MessageFinished { .. }
            | AgentEvent::TurnFinished { .. }
            | AgentEvent::RetryStarted { .. }
            | AgentEvent::RetryFinished { .. }
            | AgentEvent::Compaction { .. }
            | AgentEvent::RateLimit { .. }
            | AgentEvent::RunFinished { .. }
            | AgentEvent::NonJson { .. }
            | AgentEvent::Unknown { .. }
            | AgentEvent::OversizeLine { .. } => {}
        }
    }
    all
}

#[test]
fn every_event_type_is_documented_and_every_documented_type_exists() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/events.md"))
        .unwrap();
    let documented: BTreeSet<String> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("### `"))
        .filter_map(|l| l.strip_suffix('`'))
        .map(str::to_owned)
        .collect();
    let actual: BTreeSet<String> = one_of_each()
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(documented, actual);
}

#[test]
fn unknown_fields_are_null_not_missing() {
    let value = serde_json::to_value(AgentEvent::RunFinished {
        is_error: false,
        error: None,
        turns: None,
        duration_ms: None,
        totals: None,
    })
    .unwrap();
    assert_eq!(
        value,
        serde_json::json!({"type": "run_finished", "is_error": false, "error": null, "turns": null, "duration_ms": null, "totals": null})
    );
}
