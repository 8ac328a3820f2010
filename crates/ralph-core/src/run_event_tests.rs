use std::borrow::Cow;

use super::*;

fn json(event: &RunEvent<'_>) -> String {
    serde_json::to_string(event).unwrap()
}

const TOTALS: Totals = Totals {
    iterations: 2,
    elapsed_ms: 1500,
    cost_usd: 0.25,
    cost_complete: true,
    cost_estimated: false,
    tokens: Tokens {
        input: 10,
        output: 2,
        cache_read: 0,
        cache_write: 0,
    },
    tokens_complete: true,
};

#[test]
fn agent_events_nest_in_their_own_schema() {
    let text = AgentEvent::TextDelta {
        text: Cow::Borrowed("hi"),
    };
    assert_eq!(
        json(&RunEvent::Agent {
            iteration: 3,
            event: &text
        }),
        r#"{"type":"agent","iteration":3,"event":{"type":"text_delta","text":"hi"}}"#
    );
}

#[test]
fn notices_and_stop_reasons_are_flattened() {
    let notice = Notice::DefaultPublished {
        hat: "builder".into(),
        topic: "build.done".into(),
    };
    assert_eq!(
        json(&RunEvent::Notice {
            iteration: Some(4),
            notice: &notice
        }),
        r#"{"type":"notice","iteration":4,"notice":"default_published","hat":"builder","topic":"build.done"}"#
    );
    let reason = StopReason::MaxIterations { limit: 2 };
    assert_eq!(
        json(&RunEvent::LoopFinished {
            reason: &reason,
            message: reason.to_string(),
            outcome: reason.class(),
            exit_code: 2,
            totals: TOTALS,
            summary_path: ".ralph/runs/r/summary.md",
            git: None,
        }),
        r#"{"type":"loop_finished","reason":"max_iterations","limit":2,"message":"iteration limit reached (2 iterations)","outcome":"limit_reached","exit_code":2,"totals":{"iterations":2,"elapsed_ms":1500,"cost_usd":0.25,"cost_complete":true,"cost_estimated":false,"tokens":{"input":10,"output":2,"cache_read":0,"cache_write":0},"tokens_complete":true},"summary_path":".ralph/runs/r/summary.md"}"#
    );
}

#[test]
fn iteration_finished_carries_outcome_and_usage() {
    let outcome = IterationOutcome::Failed {
        reason: "exited with code 1".into(),
    };
    assert_eq!(
        json(&RunEvent::IterationFinished {
            iteration: 2,
            hat: "ralph",
            backend: "pi",
            model: Some("mock-model"),
            outcome: &outcome,
            duration_ms: 20,
            cost_usd: Some(0.05),
            cost_kind: CostKind::Reported,
            tokens: Tokens {
                input: 8,
                output: 2,
                ..Tokens::default()
            },
            tokens_known: true,
            turns: 2,
            completion: None,
            stderr_tail: Some("error: no such file"),
            totals: TOTALS,
        }),
        r#"{"type":"iteration_finished","iteration":2,"hat":"ralph","backend":"pi","model":"mock-model","outcome":{"status":"failed","reason":"exited with code 1"},"duration_ms":20,"cost_usd":0.05,"cost_kind":"reported","tokens":{"input":8,"output":2,"cache_read":0,"cache_write":0},"tokens_known":true,"turns":2,"completion":null,"stderr_tail":"error: no such file","totals":{"iterations":2,"elapsed_ms":1500,"cost_usd":0.25,"cost_complete":true,"cost_estimated":false,"tokens":{"input":10,"output":2,"cache_read":0,"cache_write":0},"tokens_complete":true}}"#
    );
}

#[test]
fn dollar_sums_are_written_without_binary_noise() {
    let totals = Totals {
        iterations: 3,
        elapsed_ms: 1,
        cost_usd: 0.1 + 0.2,
        cost_complete: true,
        cost_estimated: false,
        tokens: Tokens::default(),
        tokens_complete: true,
    };
    assert_eq!(totals.cost_usd.to_string(), "0.30000000000000004");
    let json = serde_json::to_string(&totals).unwrap();
    assert!(json.contains("\"cost_usd\":0.3,"), "{json}");
    assert_eq!(round_usd(1.234_567_890_4), 1.234_567_89);
}
