//! One notice of every kind, for the documentation and schema tests.

use super::Notice;
use super::QueuedEvents;
use super::StreamCap;
use crate::event::InvalidLine;
use crate::inbox::InboxRestart;

impl Notice {
    /// One notice of every kind (some twice, one per form of their detail), with made-up
    /// values: what the documentation and schema tests check, so a new kind cannot be
    /// left out of them. The match below fails to compile until a new kind is listed.
    pub fn examples() -> Vec<Notice> {
        let all = vec![
            Notice::HatExhausted {
                hat: "h".into(),
                max_activations: 2,
                dropped: vec!["t".into(), "u".into()],
                payloads: vec![Some("fix the parser".into()), None],
            },
            Notice::DefaultPublished {
                hat: "h".into(),
                topic: "t".into(),
            },
            Notice::EventsRequeued {
                hat: "h".into(),
                topics: vec!["t".into()],
            },
            Notice::CompletionRefused {
                missing: vec!["t".into()],
            },
            Notice::PromiseNotLast {
                promise: "DONE".into(),
            },
            Notice::PromiseNotAlone {
                promise: "DONE".into(),
            },
            Notice::PromiseRateLimited {
                promise: "DONE".into(),
            },
            Notice::PromiseFailed {
                promise: "DONE".into(),
                outcome: "failed".into(),
            },
            Notice::PromiseFromOutside {
                promise: "DONE".into(),
            },
            Notice::PromiseCutAtLength {
                promise: "DONE".into(),
            },
            Notice::TasksUnfinished {
                tasks: vec!["task-1-a: t".into()],
                count: 1,
            },
            Notice::EventWithheld {
                topic: "t".into(),
                gate: "g".into(),
                hat: "h".into(),
            },
            Notice::InvalidLine {
                error: InvalidLine::BadTopic {
                    topic: "a b".into(),
                    reason: "r".into(),
                },
                excerpt: "x".into(),
            },
            Notice::InvalidLine {
                error: InvalidLine::TooLong { len: 9 },
                excerpt: "x".into(),
            },
            Notice::CostUnknown {
                backend: "pi".into(),
            },
            Notice::LegacyEventTag {
                topic: "build.done".into(),
            },
            Notice::EventTagIgnored {
                topic: "bad topic".into(),
                reason: "` ` is not allowed in a topic".into(),
            },
            Notice::SteerUnread {
                id: "s-1".into(),
                message: "Check the tests first.".into(),
            },
            Notice::SteerRequeued {
                id: "s-2".into(),
                message: "Use the staging database.".into(),
            },
            Notice::InboxRestarted {
                restart: InboxRestart::Shrunk {
                    offset: 100,
                    len: 10,
                },
            },
            Notice::InboxRestarted {
                restart: InboxRestart::Replaced,
            },
            Notice::LeftoversStopped {
                ralph_pid: 4242,
                stopped: 2,
                survivors: 0,
            },
            Notice::EventsAfterEnd {
                topics: vec!["hotfix.needed".into()],
                count: 1,
                kept: true,
            },
            Notice::AgentOutputCut {
                kept_bytes: 16 * 1024 * 1024,
                cap: StreamCap::Iteration,
            },
            Notice::AgentOutputCut {
                kept_bytes: 64 * 1024,
                cap: StreamCap::Run,
            },
            Notice::AgentOutputLeftOut {
                lines: 120_000,
                bytes: 2_400_000,
                cap: StreamCap::Iteration,
            },
            Notice::AgentOutputLeftOut {
                lines: 300_000,
                bytes: 6_000_000,
                cap: StreamCap::Run,
            },
            Notice::EventsPendingAtCompletion {
                pending: vec![QueuedEvents {
                    hat: "reviewer".into(),
                    topic: "review.request".into(),
                    count: 2,
                }],
                count: 2,
            },
            Notice::SteerUndelivered {
                ids: vec!["s-3".into()],
                queued_for: 2,
                kept: false,
            },
        ];
        for notice in &all {
            match notice {
                Notice::HatExhausted { .. }
                | Notice::DefaultPublished { .. }
                | Notice::EventsRequeued { .. }
                | Notice::CompletionRefused { .. }
                | Notice::TasksUnfinished { .. }
                | Notice::EventWithheld { .. }
                | Notice::PromiseNotLast { .. }
                | Notice::PromiseNotAlone { .. }
                | Notice::PromiseRateLimited { .. }
                | Notice::PromiseFailed { .. }
                | Notice::PromiseFromOutside { .. }
                | Notice::PromiseCutAtLength { .. }
                | Notice::InvalidLine { .. }
                | Notice::SteerUnread { .. }
                | Notice::SteerRequeued { .. }
                | Notice::CostUnknown { .. }
                | Notice::LegacyEventTag { .. }
                | Notice::EventTagIgnored { .. }
                | Notice::InboxRestarted { .. }
                | Notice::LeftoversStopped { .. }
                | Notice::EventsAfterEnd { .. }
                | Notice::AgentOutputCut { .. }
                | Notice::AgentOutputLeftOut { .. }
                | Notice::EventsPendingAtCompletion { .. }
                | Notice::SteerUndelivered { .. } => {}
            }
        }
        all
    }
}
