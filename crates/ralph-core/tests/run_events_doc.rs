//! docs/run-events.md documents every run event type, notice kind, stop reason and
//! iteration status. The matches below make a new variant a compile error here, which is
//! the reminder to document it.

use ralph_stream::{CostKind, Tokens};
use std::borrow::Cow;

use ralph_core::hooks::policy::HookAction;
use ralph_core::machine::{EndClass, GateEnd, GateResult, IterationOutcome, Notice, StopReason};
use ralph_core::run_event::{Limits, RunEvent, Totals};
use ralph_core::steer::SteerVia;
use ralph_stream::AgentEvent;

fn doc() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/run-events.md");
    std::fs::read_to_string(path).expect("docs/run-events.md")
}

fn name_of<T: serde::Serialize>(value: &T, key: &str) -> String {
    let json = serde_json::to_value(value).expect("serializes");
    json[key].as_str().expect("tag").to_owned()
}

fn reasons() -> Vec<StopReason> {
    StopReason::examples()
}

fn outcomes() -> Vec<IterationOutcome> {
    let all = vec![
        IterationOutcome::Succeeded,
        IterationOutcome::Failed {
            reason: String::new(),
        },
        IterationOutcome::StoppedAtCostLimit,
        IterationOutcome::StoppedAtRuntimeLimit,
        IterationOutcome::Interrupted,
        IterationOutcome::RateLimited {
            message: "429".into(),
            resets_at: None,
        },
    ];
    for o in &all {
        match o {
            IterationOutcome::Succeeded
            | IterationOutcome::Failed { .. }
            | IterationOutcome::StoppedAtCostLimit
            | IterationOutcome::StoppedAtRuntimeLimit
            | IterationOutcome::Interrupted
            | IterationOutcome::RateLimited { .. } => {}
        }
    }
    all
}

#[test]
fn every_run_event_type_has_a_section() {
    let totals = Totals {
        iterations: 0,
        elapsed_ms: 0,
        cost_usd: 0.0,
        cost_complete: true,
        cost_estimated: false,
        tokens_complete: true,
        tokens: Tokens::default(),
    };
    let delta = AgentEvent::TextDelta {
        text: Cow::Borrowed("t"),
    };
    let notice = Notice::PromiseNotLast {
        promise: "P".into(),
    };
    let reason = StopReason::Interrupted;
    let outcome = IterationOutcome::Succeeded;
    let gate = GateResult {
        gate: "g".into(),
        event: "P".into(),
        end: GateEnd::Passed,
        exit_code: Some(0),
        duration_ms: 1,
        output: String::new(),
        output_lines: 0,
        log: None,
    };
    let events = [
        RunEvent::LoopStarted {
            run_id: "r",
            resumed: false,
            workspace: "/w",
            run_dir: "d",
            backend: "pi",
            hats: vec![],
            limits: Limits {
                max_iterations: 1,
                max_runtime_secs: 1,
                max_cost_usd: None,
                max_consecutive_failures: 1,
                completion_promise: "P",
                required_events: &[],
            },
            totals,
        },
        RunEvent::IterationStarted {
            iteration: 1,
            attempt: 1,
            max_iterations: 1,
            hat: "h",
            hat_name: "h",
            backend: "pi",
            events: &[],
            wall_secs: 1,
            started_at_ms: 0,
            elapsed_ms: 0,
        },
        RunEvent::Agent {
            iteration: 1,
            event: &delta,
        },
        RunEvent::EventsEmitted {
            iteration: 1,
            events: &[],
            from_tags: 0,
            outside: &[],
            invalid_lines: 0,
            verified: &[],
            withheld: &[],
        },
        RunEvent::GateStarted {
            iteration: Some(1),
            gate: "g",
            event: Some("P"),
            command: "make",
        },
        RunEvent::GateFinished {
            iteration: Some(1),
            passed: true,
            result: &gate,
        },
        RunEvent::Notice {
            iteration: None,
            notice: &notice,
        },
        RunEvent::IterationFinished {
            iteration: 1,
            hat: "h",
            backend: "pi",
            model: None,
            outcome: &outcome,
            duration_ms: 0,
            cost_usd: None,
            cost_kind: CostKind::Unknown,
            tokens: Tokens::default(),
            tokens_known: false,
            turns: 0,
            completion: None,
            stderr_tail: None,
            totals,
        },
        RunEvent::LoopFinished {
            reason: &reason,
            message: String::new(),
            outcome: EndClass::Interrupted,
            exit_code: 130,
            totals,
            summary_path: "s",
            git: None,
        },
        RunEvent::Error {
            message: "m",
            exit_code: 1,
        },
        RunEvent::RateLimitWait {
            iteration: 1,
            hat: "ralph",
            wait_secs: 60,
            resets_at: None,
            message: "429",
        },
        RunEvent::SteerReceived {
            iteration: 2,
            id: "i",
            message: "m",
            queued: true,
            went: "queued for iteration 2",
        },
        RunEvent::SteerDelivered {
            iteration: 2,
            id: "i",
            via: SteerVia::Prompt,
            to: "prompt",
        },
        RunEvent::Failover {
            iteration: 3,
            hat: "builder",
            from: "claude",
            from_fallback: 0,
            to: "codex",
            to_fallback: 1,
        },
        RunEvent::HookStarted {
            phase: "pre.loop.start",
            hook: "h",
            iteration: None,
            attempt: 1,
            command: "c",
        },
        RunEvent::HookFinished {
            phase: "pre.loop.start",
            hook: "h",
            iteration: None,
            attempt: 1,
            passed: true,
            failure: None,
            exit_code: Some(0),
            message: None,
            duration_ms: 0,
            action: HookAction::Continue,
            output_tail: None,
            log_path: "l",
        },
    ];
    let doc = doc();
    let missing: Vec<String> = events
        .iter()
        .map(|e| {
            match e {
                RunEvent::LoopStarted { .. }
                | RunEvent::IterationStarted { .. }
                | RunEvent::Agent { .. }
                | RunEvent::EventsEmitted { .. }
                | RunEvent::GateStarted { .. }
                | RunEvent::GateFinished { .. }
                | RunEvent::RateLimitWait { .. }
                | RunEvent::SteerReceived { .. }
                | RunEvent::SteerDelivered { .. }
                | RunEvent::Failover { .. }
                | RunEvent::Notice { .. }
                | RunEvent::IterationFinished { .. }
                | RunEvent::LoopFinished { .. }
                | RunEvent::Error { .. }
                | RunEvent::HookStarted { .. }
                | RunEvent::HookFinished { .. } => {}
            }
            name_of(e, "type")
        })
        .filter(|t| !doc.contains(&format!("### `{t}`")))
        .collect();
    assert_eq!(missing, Vec::<String>::new());
}

#[test]
fn every_notice_reason_and_status_has_a_row() {
    let doc = doc();
    let mut names: Vec<String> = Notice::examples()
        .iter()
        .map(|n| name_of(n, "notice"))
        .collect();
    names.extend(reasons().iter().map(|r| name_of(r, "reason")));
    names.extend(outcomes().iter().map(|o| name_of(o, "status")));
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !doc.contains(&format!("| `{n}` |")))
        .collect();
    assert_eq!(missing, Vec::<&String>::new());
}
