//! One agent event of every kind, for the tests of every crate that documents or
//! validates events (docs/events.md, docs/run-events.md and its JSON Schema): one list,
//! so a new kind cannot be left out of any of them.

use std::borrow::Cow;

use crate::event::{AgentEvent, CostKind, Phase, Stop, Tokens, Usage};

impl AgentEvent<'static> {
    /// One event of every kind, with made-up values that exercise the optional fields
    /// both ways. The match below fails to compile until a new kind is listed.
    pub fn examples() -> Vec<AgentEvent<'static>> {
        let usage = Usage {
            tokens: Tokens::default(),
            cost_usd: Some(0.1),
            cost_kind: CostKind::Estimated,
            model: Some(Cow::Borrowed("m")),
        };
        let all = vec![
            AgentEvent::SessionStarted {
                session_id: None,
                model: Some(Cow::Borrowed("m")),
                provider: None,
            },
            AgentEvent::UserMessage {
                text: Cow::Borrowed("Use the parser in src/parse.rs."),
            },
            AgentEvent::TextDelta {
                text: Cow::Borrowed("a"),
            },
            AgentEvent::ThinkingDelta {
                text: Cow::Borrowed("b"),
            },
            AgentEvent::ToolCallStarted {
                id: Cow::Borrowed("t"),
                name: Cow::Borrowed("bash"),
                args: Cow::Borrowed("not json"),
                parent_id: Some(Cow::Borrowed("p")),
            },
            AgentEvent::ToolCallFinished {
                id: Cow::Borrowed("t"),
                name: None,
                output: Cow::Borrowed(""),
                is_error: true,
            },
            AgentEvent::MessageFinished {
                text: Cow::Borrowed(""),
                stop: Stop::Aborted,
                error: Some(Cow::Borrowed("e")),
            },
            AgentEvent::TurnFinished {
                usage: usage.clone(),
                is_error: false,
            },
            AgentEvent::RetryStarted {
                attempt: Some(1),
                max_attempts: None,
                delay_ms: Some(4000),
                error: None,
            },
            AgentEvent::RetryFinished {
                success: false,
                attempt: None,
                error: Some(Cow::Borrowed("e")),
            },
            AgentEvent::Compaction {
                phase: Phase::Finished,
                reason: None,
                error: None,
            },
            AgentEvent::RateLimit {
                status: Some(Cow::Borrowed("allowed")),
                resets_at: Some(1),
            },
            AgentEvent::RunFinished {
                is_error: false,
                error: None,
                turns: Some(2),
                duration_ms: None,
                totals: Some(usage),
            },
            AgentEvent::NonJson {
                line: Cow::Borrowed("npm"),
            },
            AgentEvent::Unknown {
                event_type: Cow::Borrowed("x/y"),
            },
            AgentEvent::OversizeLine { len: 1 },
        ];
        for event in &all {
            match event {
                AgentEvent::SessionStarted { .. }
                | AgentEvent::UserMessage { .. }
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
}
