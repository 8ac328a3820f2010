//! The loop's state machine: which hat runs next with which events, what an iteration's
//! result means, and when the loop stops. Pure: the caller runs the agents, reads the
//! inbox and the clock, and passes what happened in; nothing here touches a process,
//! a file or the time.
//!
//! One run goes:
//! 1. [`Machine::new`] queues the starting event (or [`Machine::resume`] restores a
//!    saved [`LoopState`]);
//! 2. [`Machine::next`] checks the limits and picks the next hat: the hat that
//!    triggers on the oldest pending event gets every pending event routed to it
//!    (events no hat triggers on go to the default hat, [`DEFAULT_HAT`]); with nothing
//!    pending, ralph publishes `task.resume` for it; a hat at its `max_activations`
//!    gets no more iterations: its events are dropped and `<hat>.exhausted` published;
//! 3. during the iteration, [`Machine::stop_at_call`] says when the agent has to be
//!    stopped at the end of a model call (its running cost crossed `max_cost_usd`, or
//!    its model answered nothing [`MAX_EMPTY_CALLS_IN_A_ROW`] times in a row) and
//!    [`Machine::iteration_wall`] bounds the iteration by the runtime left;
//! 4. [`Machine::finish`] takes the iteration's result: counts usage and failures,
//!    reads completion (the `completion` module), publishes the agent's events (or the hat's
//!    `default_publishes`, or re-queues its input after a failure), and decides
//!    whether the loop stops; back to 2.
//!
//! Stop reasons, checked after each iteration in this order: interrupted, completed
//! (which beats every limit reached in the same iteration, including the last allowed
//! one), an agent that cannot be started (`start_failure`), cost, runtime, consecutive
//! failures, invalid inbox lines, stale loop (the same
//! event [`STALE_REPEATS`] times in a row), iterations. A stop asked for while the
//! iteration ended (its gates, the reaping of what its agent left) beats the limits it
//! reached ([`Machine::interrupt_over_limit`]).

mod completion;
mod failover;
mod gate;
mod gate_check;
mod hook_stop;
mod interrupt;
mod iteration;
mod late_events;
mod notice;
mod outcome;
mod publish;
mod queued;
mod rate_limit;
mod refusal;
mod route;
mod spend;
mod start_failure;
mod state;
mod stream_cap;
mod tags;
mod tasks_check;
mod turn_stop;
mod usage;

use std::time::Duration;

pub use completion::{answer_notice, completion_signal, last_line_is, promise_dropped};
pub use failover::{BackendLimit, BackendPick};
pub use gate::{
    GATE_OUTPUT_MAX_BYTES, GATE_OUTPUT_MAX_LINES, GateEnd, GatePlan, GateResult, GateRule, Guarded,
    Verdict, gate_failed_payload,
};
pub use iteration::{Iteration, IterationRecord, IterationReport, WallPlan};
pub use notice::Notice;
pub use outcome::{
    CompletionSignal, EndClass, IterationOutcome, RunFacts, Shown, StopReason, classify,
    format_duration, format_usd_limit,
};
pub use queued::{QUEUED_GROUPS_SHOWN, QueuedEvents};
pub use rate_limit::{
    BackendWait, OVERLOAD_WAITS, REPEAT_LIMIT_BACKOFF_FROM, RESET_SLACK, RateLimitStreak,
    RateLimitTally, RateLimitWait,
};
pub use refusal::{CompletionRefusal, verdict};
pub use spend::Spend;
pub use state::{GateTotals, HatTotals, LoopState, Repeat};
pub use stream_cap::StreamCap;
pub use tasks_check::REFUSAL_TASKS_SHOWN;
pub use turn_stop::{MAX_EMPTY_CALLS_IN_A_ROW, StoppedBy};
pub use usage::Usage;

use crate::config::{LoopConfig, RateLimitConfig, RateLimitPolicy, ResolvedConfig};
use crate::event::Event;
use crate::steer::IterationSteering;
use crate::topic::TASK_RESUME;
use crate::trigger::{self, Rank};

pub use crate::topic::DEFAULT_HAT;

/// The same event (topic and payload) published this many times in a row is a stale
/// loop.
pub const STALE_REPEATS: u32 = 3;

/// This many inbox lines in a row that are not events end the loop.
pub const MAX_CONSECUTIVE_INVALID_LINES: u32 = 3;

/// Suffix of the topic published when a hat reaches `max_activations`.
pub const EXHAUSTED_SUFFIX: &str = ".exhausted";

/// The parts of the configuration the machine decides with: the loop's settings as
/// configured (so a new limit is declared once, in `LoopConfig`), the hats' routing and
/// the gates.
#[derive(Clone, Debug, PartialEq)]
pub struct Rules {
    pub event_loop: LoopConfig,
    pub hats: Vec<HatRule>,
    pub gates: Vec<GateRule>,
    pub rate_limits: RateLimitConfig,
}

/// One hat's routing rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HatRule {
    pub id: String,
    pub triggers: Vec<String>,
    pub default_publishes: Option<String>,
    pub max_activations: Option<u32>,
    /// The hat's own `on_rate_limit` (`None`: [`Rules::rate_limits`]'s).
    pub on_rate_limit: Option<RateLimitPolicy>,
    /// How many backends the hat's own `fallback` names (`None`: `cli.fallback`'s).
    pub fallbacks: Option<u32>,
}

impl Rules {
    pub fn from_config(config: &ResolvedConfig) -> Rules {
        Rules {
            event_loop: config.event_loop.clone(),
            hats: config
                .hats
                .iter()
                .map(|h| HatRule {
                    id: h.id.clone(),
                    triggers: h.triggers.clone(),
                    default_publishes: h.default_publishes.clone(),
                    max_activations: h.max_activations,
                    on_rate_limit: h.on_rate_limit,
                    fallbacks: h.fallback.as_ref().map(|f| count(f.len())),
                })
                .collect(),
            gates: GateRule::from_config(config),
            rate_limits: config.rate_limits.clone(),
        }
    }

    /// The hat that triggers on `topic`, if any: the one whose trigger names it
    /// exactly, else the one whose segment pattern takes it, else the one with `*`
    /// (`crate::trigger`; the config lets only one hat claim each).
    pub fn route(&self, topic: &str) -> Option<&HatRule> {
        self.route_at(topic, Rank::Exact)
            .or_else(|| self.route_pattern(topic))
    }

    /// The hat `event` goes to: the one whose trigger names its topic exactly, else the
    /// hat it is addressed to, else the one whose pattern takes it. A hat addressed with
    /// ralph's answer to its own event (`gate.failed`) gets it before a catch-all.
    pub fn route_event(&self, event: &Event) -> Option<&HatRule> {
        self.route_at(&event.topic, Rank::Exact)
            .or_else(|| event.to.as_deref().and_then(|id| self.hat(id)))
            .or_else(|| self.route_pattern(&event.topic))
    }

    fn route_pattern(&self, topic: &str) -> Option<&HatRule> {
        self.route_at(topic, Rank::Segments)
            .or_else(|| self.route_at(topic, Rank::Any))
    }

    /// The hat with a trigger of `rank` that takes `topic`.
    fn route_at(&self, topic: &str, rank: Rank) -> Option<&HatRule> {
        self.hats.iter().find(|h| {
            (h.triggers.iter()).any(|t| trigger::rank(t) == rank && trigger::matches(t, topic))
        })
    }

    fn hat(&self, id: &str) -> Option<&HatRule> {
        self.hats.iter().find(|h| h.id == id)
    }
}

/// What to do next.
#[derive(Clone, Debug, PartialEq)]
pub enum Next {
    Run(Iteration),
    Stop(StopReason),
}

/// Why a saved run cannot be continued.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResumeError {
    #[error("the last run already completed ({reason}); start a new run without --continue")]
    AlreadyCompleted { reason: String },
}

/// The loop's decisions over one run.
#[derive(Clone, Debug)]
pub struct Machine {
    rules: Rules,
    state: LoopState,
    /// `state.runtime_ms` when this session started.
    runtime_base_ms: u64,
    notices: Vec<Notice>,
}

impl Machine {
    /// A fresh run: the starting event is pending.
    pub fn new(rules: Rules) -> Machine {
        let mut state = LoopState::default();
        state
            .pending
            .push_back(Event::new(rules.event_loop.starting_event.clone()));
        Machine {
            rules,
            state,
            runtime_base_ms: 0,
            notices: Vec::new(),
        }
    }

    /// Continues a saved run: counters, cost, runtime, activations and pending events
    /// carry on; the failure streak, the invalid-line streak and stale detection start
    /// over (someone looked at the run before continuing it), and the stop reason is
    /// cleared so limits are judged against the current rules.
    pub fn resume(rules: Rules, mut state: LoopState) -> Result<Machine, ResumeError> {
        if let Some(end @ StopReason::Completed { .. }) = &state.end {
            return Err(ResumeError::AlreadyCompleted {
                reason: end.to_string(),
            });
        }
        state.end = None;
        state.consecutive_failures = 0;
        state.consecutive_invalid_lines = 0;
        state.last_published = None;
        Ok(Machine {
            runtime_base_ms: state.runtime_ms,
            rules,
            state,
            notices: Vec::new(),
        })
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    pub fn state(&self) -> &LoopState {
        &self.state
    }

    /// The notices produced since the last call.
    pub fn take_notices(&mut self) -> Vec<Notice> {
        std::mem::take(&mut self.notices)
    }

    /// `required_events` not published yet.
    pub fn missing_required(&self) -> Vec<String> {
        self.rules
            .event_loop
            .required_events
            .iter()
            .filter(|t| !self.state.seen_topics.contains(*t))
            .cloned()
            .collect()
    }

    /// The next iteration, or why the loop stops. `elapsed` is the time since this
    /// session started.
    pub fn next(&mut self, elapsed: Duration) -> Next {
        self.set_runtime(elapsed);
        if let Some(end) = &self.state.end {
            return Next::Stop(end.clone());
        }
        if let Some(reason) = self.limit_before_iteration() {
            self.state.end = Some(reason.clone());
            return Next::Stop(reason);
        }
        let (hat, events) = self.select();
        let activations = self.state.activations.entry(hat.clone()).or_default();
        *activations = activations.saturating_add(1);
        Next::Run(Iteration {
            number: self.state.iterations.saturating_add(1),
            hat,
            events,
        })
    }

    /// The wall-clock deadline for an iteration whose hat allows `iteration_timeout`:
    /// never longer than the runtime left (so too for a gate's or a hook's timeout).
    pub fn iteration_wall(&self, iteration_timeout: Duration, elapsed: Duration) -> WallPlan {
        let left = self.runtime_left(elapsed);
        if left < iteration_timeout {
            WallPlan {
                wall: left,
                cut_to_runtime: true,
            }
        } else {
            WallPlan {
                wall: iteration_timeout,
                cut_to_runtime: false,
            }
        }
    }

    /// What is left of `max_runtime`, `elapsed` into this session: what bounds a gate or
    /// a hook as it bounds an agent; zero once it is spent (no iteration starts then).
    pub fn runtime_left(&self, elapsed: Duration) -> Duration {
        let used = Duration::from_millis(self.runtime_base_ms) + elapsed;
        self.rules.event_loop.max_runtime.saturating_sub(used)
    }

    /// Whether the run's cost, with `iteration_cost` spent so far in the current
    /// iteration, has reached `max_cost_usd`. Ask after every turn: the caller stops
    /// the agent at the turn that crosses the budget, so it is overrun by at most that
    /// turn.
    pub fn crosses_budget(&self, iteration_cost: Option<f64>) -> bool {
        self.rules
            .event_loop
            .max_cost_usd
            .is_some_and(|max| self.state.spend.cost_usd + iteration_cost.unwrap_or(0.0) >= max)
    }

    /// Takes the result of `iteration` (as returned by [`Machine::next`]) and returns
    /// its history record. Afterwards [`Machine::next`] either runs the next iteration
    /// or says why the loop stopped.
    pub fn finish(
        &mut self,
        iteration: Iteration,
        report: IterationReport,
        elapsed: Duration,
    ) -> IterationRecord {
        self.set_runtime(elapsed);
        let promise = self.rules.event_loop.completion_promise.clone();
        // Events other than the promise (which a limited attempt never completes with)
        // are published: the attempt handed over.
        let agent_run = report.agent_run.as_deref();
        let handed_over = report.inbox.iter().any(|line| {
            matches!(line, crate::inbox::InboxLine::Event { event, sender }
                if event.topic != promise && crate::inbox::from_agent(sender.as_deref(), agent_run))
        }) || report.tagged().any(|event| event.topic != promise);
        let runs_again = self.note_rate_limit(&iteration, &report, handed_over);
        if !runs_again {
            self.state.iterations = self.state.iterations.max(iteration.number);
        }
        self.account(&iteration, &report, runs_again);
        let plan = self.gate_plan(&iteration, &report);
        let cannot_start = self.cannot_start(&iteration, &report);
        let (inbox, invalid_lines) = self.read_inbox(report.inbox, report.agent_run.as_deref());
        let (mut events, outside) = (inbox.agent, inbox.outside);
        let from_tags = self.take_tags(report.tags, &mut events);

        let default = (self.rules.hat(&iteration.hat)).and_then(|h| h.default_publishes.clone());
        let mut completion = completion_signal(
            &promise,
            &events,
            &report.outcome,
            report.final_text.as_deref(),
            report.final_cut_at_length,
            default.as_deref(),
        );
        // What the agent signalled, before a gate refuses it: a refused promise was still
        // signalled properly, so it earns no note on how to signal it.
        let signalled = completion;
        let checked = self.apply_gates(&iteration, &plan, &report.gates);
        if completion.is_some() && checked.withheld.contains(&promise) {
            completion = None;
        }
        let publishable: Vec<Event> = events
            .iter()
            .filter(|e| !checked.withheld.contains(&e.topic))
            .cloned()
            .collect();
        let default_published = self.publish(
            &iteration,
            &publishable,
            &report.outcome,
            completion,
            !checked.withheld.is_empty(),
            default,
        );
        if cannot_start.is_some() {
            self.unsay_requeued();
        }
        self.publish_outside(&outside);
        if let Some(notice) = answer_notice(
            &promise,
            &report.outcome,
            report.final_text.as_deref(),
            report.final_cut_at_length,
            signalled,
            events.iter().any(|e| e.topic == promise),
        ) {
            self.notices.push(notice);
        }
        if report.outcome.is_failure() || self.limit_is_failure(&iteration.hat, &report.outcome) {
            self.state.consecutive_failures = self.state.consecutive_failures.saturating_add(1);
            self.state.last_failure = Some(match &report.outcome {
                IterationOutcome::Failed { reason } => reason.clone(),
                outcome => self.limit_failure_reason(outcome),
            });
        } else if report.outcome == IterationOutcome::Succeeded {
            self.state.consecutive_failures = 0;
        }
        if completion.is_some()
            && self.missing_required().is_empty()
            && let Some(refused) = self.refuse_for_tasks(&report.unfinished_tasks)
        {
            completion = None;
            self.state.pending.push_front(refused);
        }
        if completion.is_some() {
            let missing = self.missing_required();
            if missing.is_empty() {
                self.state.end = completion.map(|signal| StopReason::Completed {
                    promise: promise.clone(),
                    signal,
                });
                self.note_queue_at_completion();
            } else {
                completion = None;
                let payload = format!(
                    "{promise} was refused: these events must be emitted first: {}",
                    missing.join(", ")
                );
                self.state
                    .pending
                    .push_front(Event::with_text(TASK_RESUME, payload));
                self.notices.push(Notice::CompletionRefused { missing });
            }
        }
        if self.state.end.is_none() {
            self.state.end = cannot_start;
        }
        if self.state.end.is_none() {
            self.state.end = self.limit_after_iteration(&report.outcome);
        }
        IterationRecord {
            iteration: iteration.number,
            hat: iteration.hat,
            backend: report.backend,
            model: report.usage.model,
            outcome: report.outcome,
            fallback: (report.fallback > 0).then_some(report.fallback),
            started_at_ms: report.started_at_ms,
            duration_ms: millis(report.duration),
            cost_usd: report.usage.cost_usd,
            cost_kind: report.usage.cost_kind,
            tokens: report.usage.tokens,
            tokens_known: report.usage.tokens_known,
            turns: report.usage.turns,
            consumed: iteration.events,
            events,
            from_tags,
            outside,
            invalid_lines,
            default_published,
            completion,
            gates: report.gates,
            verified: checked.verified,
            withheld: checked.withheld,
            steering: IterationSteering::default(),
        }
    }

    /// The run's time so far, as `max_runtime` counts it, `elapsed` into this session.
    pub fn runtime_ms_at(&self, elapsed: Duration) -> u64 {
        self.runtime_base_ms.saturating_add(millis(elapsed))
    }

    fn set_runtime(&mut self, elapsed: Duration) {
        self.state.runtime_ms = self.runtime_base_ms + millis(elapsed);
    }

    fn runtime_over(&self) -> bool {
        Duration::from_millis(self.state.runtime_ms) >= self.rules.event_loop.max_runtime
    }

    fn cost_over(&self) -> bool {
        self.rules
            .event_loop
            .max_cost_usd
            .is_some_and(|max| self.state.spend.cost_usd >= max)
    }

    fn max_cost_reason(&self) -> StopReason {
        StopReason::MaxCost {
            limit_usd: self.rules.event_loop.max_cost_usd.unwrap_or(0.0),
        }
    }

    fn max_runtime_reason(&self) -> StopReason {
        StopReason::MaxRuntime {
            limit_secs: self.rules.event_loop.max_runtime.as_secs(),
        }
    }

    /// Limits that forbid starting another iteration (a continued run can start
    /// beyond one).
    fn limit_before_iteration(&self) -> Option<StopReason> {
        let s = &self.state;
        if s.iterations >= self.rules.event_loop.max_iterations {
            Some(StopReason::MaxIterations {
                limit: self.rules.event_loop.max_iterations,
            })
        } else if self.runtime_over() {
            Some(self.max_runtime_reason())
        } else if self.cost_over() {
            Some(self.max_cost_reason())
        } else if s.consecutive_failures >= self.rules.event_loop.max_consecutive_failures {
            Some(StopReason::ConsecutiveFailures {
                failures: s.consecutive_failures,
            })
        } else {
            None
        }
    }

    fn limit_after_iteration(&self, outcome: &IterationOutcome) -> Option<StopReason> {
        let s = &self.state;
        if *outcome == IterationOutcome::Interrupted {
            Some(StopReason::Interrupted)
        } else if *outcome == IterationOutcome::StoppedAtCostLimit || self.cost_over() {
            Some(self.max_cost_reason())
        } else if *outcome == IterationOutcome::StoppedAtRuntimeLimit || self.runtime_over() {
            Some(self.max_runtime_reason())
        } else if s.consecutive_failures >= self.rules.event_loop.max_consecutive_failures {
            Some(StopReason::ConsecutiveFailures {
                failures: s.consecutive_failures,
            })
        } else if s.consecutive_invalid_lines >= MAX_CONSECUTIVE_INVALID_LINES {
            Some(StopReason::InvalidEvents {
                lines: s.consecutive_invalid_lines,
            })
        } else if let Some(repeat) = s
            .last_published
            .as_ref()
            .filter(|r| r.count >= STALE_REPEATS)
        {
            Some(StopReason::StaleLoop {
                topic: repeat.event.topic.clone(),
                repeats: repeat.count,
            })
        } else if s.iterations >= self.rules.event_loop.max_iterations {
            Some(StopReason::MaxIterations {
                limit: self.rules.event_loop.max_iterations,
            })
        } else {
            None
        }
    }
}

impl IterationOutcome {
    /// Whether this counts toward `max_consecutive_failures`.
    pub fn is_failure(&self) -> bool {
        match self {
            IterationOutcome::Failed { .. } => true,
            // A provider's limit is not the agent's failure (`cli.on_rate_limit: fail`
            // counts it as one in `Machine::finish`).
            IterationOutcome::Succeeded
            | IterationOutcome::StoppedAtCostLimit
            | IterationOutcome::StoppedAtRuntimeLimit
            | IterationOutcome::Interrupted
            | IterationOutcome::RateLimited { .. } => false,
        }
    }
}

/// A count of configured things (a list in a config file), as the state counts them.
fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod test_support;

#[cfg(test)]
#[path = "routing_tests.rs"]
mod routing_tests;

#[cfg(test)]
#[path = "limits_tests.rs"]
mod limits_tests;

#[cfg(test)]
#[path = "interrupt_tests.rs"]
mod interrupt_tests;

#[cfg(test)]
#[path = "outside_tests.rs"]
mod outside_tests;
