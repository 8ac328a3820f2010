//! Builders shared by the machine tests.

use super::*;
use crate::config::LoopConfig;
use crate::inbox::InboxLine;
use crate::topic::TASK_START;
use ralph_stream::{CostKind, Tokens};

pub(super) const S: Duration = Duration::from_secs(1);
pub(super) const PROMISE: &str = "LOOP_COMPLETE";

pub(super) fn solo() -> Rules {
    Rules {
        event_loop: LoopConfig {
            prompt: None,
            completion_promise: PROMISE.into(),
            max_iterations: 10,
            max_runtime: 3600 * S,
            max_cost_usd: None,
            max_consecutive_failures: 3,
            starting_event: TASK_START.into(),
            required_events: vec![],
            prompt_events_max_bytes: crate::config::DEFAULT_PROMPT_EVENTS_MAX_BYTES,
        },
        hats: vec![],
        gates: vec![],
        rate_limits: crate::config::RateLimitConfig {
            policy: crate::config::RateLimitPolicy::Wait,
            wait: 60 * S,
            fallback: vec![],
        },
    }
}

/// `rules` with its loop settings changed by `set`.
pub(super) fn limits(mut rules: Rules, set: impl FnOnce(&mut LoopConfig)) -> Rules {
    set(&mut rules.event_loop);
    rules
}

pub(super) fn hat(id: &str, triggers: &[&str]) -> HatRule {
    HatRule {
        id: id.into(),
        triggers: triggers.iter().map(|t| (*t).to_owned()).collect(),
        default_publishes: None,
        max_activations: None,
        on_rate_limit: None,
        fallbacks: None,
    }
}

/// planner ← work.start, build.done; builder ← plan.ready, review.rejected;
/// reviewer ← build.review.
pub(super) fn three_hats() -> Rules {
    Rules {
        event_loop: LoopConfig {
            starting_event: "work.start".into(),
            ..solo().event_loop
        },
        hats: vec![
            hat("planner", &["work.start", "build.done"]),
            hat("builder", &["plan.ready", "review.rejected"]),
            hat("reviewer", &["build.review"]),
        ],
        ..solo()
    }
}

pub(super) fn ev(topic: &str) -> Event {
    Event::new(topic)
}

/// The `RALPH_AGENT_RUN` token of the agent every [`report`] ran.
pub(super) const AGENT_RUN: &str = "4242-100-7";

/// `events` as the inbox lines the iteration's agent wrote.
pub(super) fn lines(events: &[Event]) -> Vec<InboxLine> {
    lines_from(events, Some(AGENT_RUN))
}

/// `events` as inbox lines sent by `sender`.
pub(super) fn lines_from(events: &[Event], sender: Option<&str>) -> Vec<InboxLine> {
    events
        .iter()
        .map(|e| InboxLine::Event {
            event: e.clone(),
            sender: sender.map(str::to_owned),
        })
        .collect()
}

/// The tokens every [`report`] used.
pub(super) fn report_tokens() -> Tokens {
    Tokens {
        input: 100,
        output: 10,
        cache_read: 0,
        cache_write: 0,
    }
}

pub(super) fn report(outcome: IterationOutcome, emitted: &[Event]) -> IterationReport {
    IterationReport {
        outcome,
        final_text: Some("Done for now.".into()),
        final_cut_at_length: false,
        usage: Usage {
            cost_usd: Some(0.5),
            cost_kind: CostKind::Reported,
            tokens: report_tokens(),
            tokens_known: true,
            turns: 2,
            model: Some("m".into()),
            answered: true,
        },
        inbox: lines(emitted),
        tags: vec![],
        agent_run: Some(AGENT_RUN.to_owned()),
        duration: 2 * S,
        backend: "pi".into(),
        started_at_ms: 1000,
        fallback: 0,
        gates: vec![],
        unfinished_tasks: vec![],
        start_failure: None,
        unstartable: None,
    }
}

pub(super) fn ok(emitted: &[Event]) -> IterationReport {
    report(IterationOutcome::Succeeded, emitted)
}

pub(super) fn failed(emitted: &[Event]) -> IterationReport {
    report(
        IterationOutcome::Failed {
            reason: "exited with code 1".into(),
        },
        emitted,
    )
}

pub(super) fn run(m: &mut Machine) -> Iteration {
    match m.next(S) {
        Next::Run(it) => it,
        Next::Stop(reason) => panic!("expected an iteration, the loop stopped: {reason}"),
    }
}

/// Runs one iteration with `report`; returns (hat, consumed topics) of that iteration.
pub(super) fn step(m: &mut Machine, report: IterationReport) -> (String, Vec<String>) {
    let it = run(m);
    let seen = (
        it.hat.clone(),
        it.events.iter().map(|e| e.topic.clone()).collect(),
    );
    m.finish(it, report, S);
    seen
}

pub(super) fn stop(m: &mut Machine) -> StopReason {
    match m.next(S) {
        Next::Stop(reason) => reason,
        Next::Run(it) => panic!("expected a stop, got iteration {it:?}"),
    }
}

pub(super) fn completed(signal: CompletionSignal) -> StopReason {
    StopReason::Completed {
        promise: PROMISE.into(),
        signal,
    }
}

/// How long the next iteration of `hat` waits for its backend at `now` (Unix seconds),
/// if it does.
pub(super) fn wait_for(m: &mut Machine, hat: &str, now: u64) -> Option<Duration> {
    match m.rate_limit_wait(hat, now * 1000, S) {
        BackendWait::Wait(plan) => Some(plan.wait),
        BackendWait::Free | BackendWait::PastRuntime => None,
    }
}
