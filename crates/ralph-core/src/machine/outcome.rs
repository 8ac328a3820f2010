//! How an iteration went and why a loop stopped: the closed sets the loop reports, saves
//! and maps to exit codes.

use std::fmt;
use std::time::Duration;

use ralph_types::Termination;
use serde::{Deserialize, Serialize};

use super::turn_stop::{MAX_EMPTY_CALLS_IN_A_ROW, StoppedBy};
use crate::count_text::count;

/// How one iteration ended, judged from the process and the stream together.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum IterationOutcome {
    /// The agent exited well and its stream says it succeeded.
    Succeeded,
    /// The agent's run failed: it crashed, timed out, exited non-zero, or its stream
    /// reported a failure (pi exits 0 after failed model calls). Counts toward
    /// `max_consecutive_failures`.
    Failed { reason: String },
    /// ralph stopped the agent at the turn that crossed `max_cost_usd`.
    StoppedAtCostLimit,
    /// ralph stopped the agent when `max_runtime_seconds` ran out.
    StoppedAtRuntimeLimit,
    /// The user stopped the run (Ctrl-C, SIGTERM).
    Interrupted,
    /// The agent's run failed on a provider's rate or usage limit. Not the agent's
    /// failure: with `cli.on_rate_limit: wait` the loop waits and runs the iteration
    /// again, without counting it.
    RateLimited {
        message: String,
        /// When the limit resets, in Unix seconds, when the agent said.
        resets_at: Option<u64>,
    },
}

impl IterationOutcome {
    /// The snake_case name used in JSON and summaries.
    pub fn name(&self) -> &'static str {
        match self {
            IterationOutcome::Succeeded => "succeeded",
            IterationOutcome::Failed { .. } => "failed",
            IterationOutcome::StoppedAtCostLimit => "stopped_at_cost_limit",
            IterationOutcome::StoppedAtRuntimeLimit => "stopped_at_runtime_limit",
            IterationOutcome::Interrupted => "interrupted",
            IterationOutcome::RateLimited { .. } => "rate_limited",
        }
    }
}

impl fmt::Display for IterationOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IterationOutcome::Succeeded => f.write_str("succeeded"),
            IterationOutcome::Failed { reason } => write!(f, "failed: {reason}"),
            IterationOutcome::StoppedAtCostLimit => f.write_str("stopped at the cost limit"),
            IterationOutcome::StoppedAtRuntimeLimit => f.write_str("stopped at the runtime limit"),
            IterationOutcome::Interrupted => f.write_str("interrupted"),
            IterationOutcome::RateLimited { message, resets_at } => {
                write!(f, "rate limited: {message}")?;
                match resets_at {
                    Some(at) => write!(f, " (resets {})", crate::time_text::utc_minute_secs(*at)),
                    None => Ok(()),
                }
            }
        }
    }
}

/// Why an agent run that did nothing failed.
const NO_OUTPUT: &str = "the agent produced no output";

/// Why an agent run whose model answered nothing failed.
const EMPTY_ANSWER: &str = "the agent's model gave an empty answer (no text, no tool call, \
    no tokens): its provider may not be a model API (check the agent's base URL, a proxy \
    or a captive portal)";

/// Why ralph stopped an agent whose model kept answering nothing.
fn empty_calls_reason() -> String {
    format!(
        "the agent's model gave {MAX_EMPTY_CALLS_IN_A_ROW} empty answers in a row (no text, \
         no tool call, no tokens) and the agent kept asking, so ralph stopped it: its \
         provider may not be a model API (check the agent's base URL, a proxy or a captive \
         portal)"
    )
}

/// What an agent run showed of its work, for [`classify`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// Output on stdout, or an event published.
    Work,
    /// Nothing on stdout and no event published.
    Nothing,
    /// A stream that says the run succeeded while its model said nothing and used no
    /// tokens, and no event published: a real model's answer costs at least one token.
    /// This is what an agent makes of a reply that was no model's (an HTML page from a
    /// wrong base URL, an empty body).
    EmptyAnswer,
}

/// What one agent run showed, for [`classify`].
#[derive(Clone, Copy, Debug)]
pub struct RunFacts<'a> {
    /// How the process ended.
    pub termination: &'a Termination,
    /// The stream's verdict (`SessionSummary::succeeded`).
    pub stream_succeeded: bool,
    /// The stream's run-level errors, for the failure reason.
    pub errors: &'a [String],
    /// Why ralph itself asked the agent to stop, if it did
    /// ([`Machine::stop_at_call`](super::Machine::stop_at_call)): the cost budget was
    /// crossed, or its model answered nothing too many times in a row (a failure however
    /// the agent then ended, short of the user's stop).
    pub stopped_by: StoppedBy,
    /// The iteration's wall deadline was cut short to the remaining
    /// `max_runtime_seconds`, so a wall-clock timeout is the runtime limit, not a hung
    /// agent.
    pub wall_is_runtime: bool,
    /// Whether the agent wrote nothing on stdout, or its model answered nothing, and it
    /// published no event ([`Shown`]). Whatever its exit code says, such a run did
    /// nothing: counting it as a success would let a broken agent (or provider) spin
    /// through every iteration instead of reaching `max_consecutive_failures`.
    pub shown: Shown,
    /// The stream's limit (`SessionSummary::rate_limited`): a run that failed on one is
    /// [`IterationOutcome::RateLimited`], not failed.
    pub rate_limited: Option<&'a ralph_stream::RateLimited>,
}

/// Classifies one agent run from what it showed.
pub fn classify(facts: RunFacts<'_>) -> IterationOutcome {
    let RunFacts {
        termination,
        stream_succeeded,
        errors,
        stopped_by,
        wall_is_runtime,
        shown,
        rate_limited,
    } = facts;
    let limited = |limit: &ralph_stream::RateLimited| IterationOutcome::RateLimited {
        message: limit.message.clone(),
        resets_at: limit.resets_at,
    };
    match termination {
        Termination::Interrupted => IterationOutcome::Interrupted,
        // The budget was crossed at the call that ended the agent's run (Claude Code's
        // last, priced with its `result`): the stop cut nothing short, so the run is
        // judged as one that finished by itself, and the loop stops on the limit before
        // the next iteration. "Stopped at the cost limit" is only said of a run the stop
        // ended.
        Termination::StoppedByCaller if stopped_by == StoppedBy::CostLimit && stream_succeeded => {
            classify(RunFacts {
                termination: &Termination::StoppedAfterFinish,
                stopped_by: StoppedBy::Nothing,
                ..facts
            })
        }
        Termination::StoppedByCaller if stopped_by == StoppedBy::CostLimit => {
            IterationOutcome::StoppedAtCostLimit
        }
        _ if stopped_by == StoppedBy::EmptyCalls => IterationOutcome::Failed {
            reason: empty_calls_reason(),
        },
        Termination::WallClockTimeout if wall_is_runtime => IterationOutcome::StoppedAtRuntimeLimit,
        t if t.is_success() => {
            if shown == Shown::Nothing {
                IterationOutcome::Failed {
                    reason: NO_OUTPUT.to_owned(),
                }
            } else if shown == Shown::EmptyAnswer && stream_succeeded {
                IterationOutcome::Failed {
                    reason: EMPTY_ANSWER.to_owned(),
                }
            } else if stream_succeeded {
                IterationOutcome::Succeeded
            } else if let Some(limit) = rate_limited {
                limited(limit)
            } else {
                let reason = match errors.last() {
                    Some(error) => format!("the agent reported an error: {error}"),
                    None => "the agent's output does not show a finished answer".to_owned(),
                };
                IterationOutcome::Failed { reason }
            }
        }
        _ if rate_limited.is_some() && !stream_succeeded => {
            limited(rate_limited.expect("checked above"))
        }
        t => {
            let reason = match errors.last() {
                Some(error) => format!("{t} (last error: {error})"),
                None => t.to_string(),
            };
            IterationOutcome::Failed { reason }
        }
    }
}

/// How the agent said the task is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompletionSignal {
    /// `ralph emit <promise>` as the iteration's last event.
    Event,
    /// The last non-empty line of a successful run's final answer is the promise.
    FinalText,
    /// The hat's `default_publishes` is the promise, and it succeeded without emitting
    /// anything: published for it, its default completes the loop.
    DefaultPublishes,
}

/// Why the loop stopped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum StopReason {
    Completed {
        promise: String,
        signal: CompletionSignal,
    },
    MaxIterations {
        limit: u32,
    },
    MaxRuntime {
        limit_secs: u64,
    },
    MaxCost {
        limit_usd: f64,
    },
    /// The same event (topic and payload) was published this many times in a row.
    StaleLoop {
        topic: String,
        repeats: u32,
    },
    ConsecutiveFailures {
        failures: u32,
    },
    /// This many inbox lines in a row were not events.
    InvalidEvents {
        lines: u32,
    },
    Interrupted,
    /// A hook with `on_error: block` (or a `retry_backoff` hook out of retries) failed.
    HookBlocked {
        hook: String,
        phase: String,
        why: String,
    },
    /// The hat's agent could not be started, for a cause that starting it again would
    /// meet again (not executable, no program, its interpreter missing).
    AgentCannotStart {
        hat: String,
        backend: String,
        why: String,
    },
}

/// What a stop reason means for the exit code (mapped in one place, by the CLI).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndClass {
    Completed,
    Failed,
    LimitReached,
    Interrupted,
}

impl StopReason {
    /// One stop reason of every kind (a completion by each signal), with made-up values:
    /// what the documentation and schema tests check, so a new reason cannot be left
    /// out of them. The match below fails to compile until a new variant is listed.
    pub fn examples() -> Vec<StopReason> {
        let all = vec![
            StopReason::Completed {
                promise: "DONE".into(),
                signal: CompletionSignal::Event,
            },
            StopReason::Completed {
                promise: "DONE".into(),
                signal: CompletionSignal::FinalText,
            },
            StopReason::Completed {
                promise: "DONE".into(),
                signal: CompletionSignal::DefaultPublishes,
            },
            StopReason::MaxIterations { limit: 1 },
            StopReason::MaxRuntime { limit_secs: 1 },
            StopReason::MaxCost { limit_usd: 1.5 },
            StopReason::StaleLoop {
                topic: "t".into(),
                repeats: 3,
            },
            StopReason::ConsecutiveFailures { failures: 5 },
            StopReason::InvalidEvents { lines: 3 },
            StopReason::Interrupted,
            StopReason::HookBlocked {
                hook: "env-guard".into(),
                phase: "pre.loop.start".into(),
                why: "exit code 1".into(),
            },
            StopReason::AgentCannotStart {
                hat: "builder".into(),
                backend: "custom".into(),
                why: "could not start `./agent.sh`: Permission denied (os error 13)".into(),
            },
        ];
        for reason in &all {
            match reason {
                StopReason::Completed { .. }
                | StopReason::MaxIterations { .. }
                | StopReason::MaxRuntime { .. }
                | StopReason::MaxCost { .. }
                | StopReason::StaleLoop { .. }
                | StopReason::ConsecutiveFailures { .. }
                | StopReason::InvalidEvents { .. }
                | StopReason::Interrupted
                | StopReason::HookBlocked { .. }
                | StopReason::AgentCannotStart { .. } => {}
            }
        }
        all
    }

    pub fn class(&self) -> EndClass {
        match self {
            StopReason::Completed { .. } => EndClass::Completed,
            StopReason::ConsecutiveFailures { .. }
            | StopReason::InvalidEvents { .. }
            | StopReason::HookBlocked { .. }
            | StopReason::AgentCannotStart { .. } => EndClass::Failed,
            StopReason::MaxIterations { .. }
            | StopReason::MaxRuntime { .. }
            | StopReason::MaxCost { .. }
            | StopReason::StaleLoop { .. } => EndClass::LimitReached,
            StopReason::Interrupted => EndClass::Interrupted,
        }
    }

    /// The snake_case name used in JSON.
    pub fn name(&self) -> &'static str {
        match self {
            StopReason::Completed { .. } => "completed",
            StopReason::MaxIterations { .. } => "max_iterations",
            StopReason::MaxRuntime { .. } => "max_runtime",
            StopReason::MaxCost { .. } => "max_cost",
            StopReason::StaleLoop { .. } => "stale_loop",
            StopReason::ConsecutiveFailures { .. } => "consecutive_failures",
            StopReason::InvalidEvents { .. } => "invalid_events",
            StopReason::Interrupted => "interrupted",
            StopReason::HookBlocked { .. } => "hook_blocked",
            StopReason::AgentCannotStart { .. } => "agent_cannot_start",
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Completed {
                promise,
                signal: CompletionSignal::Event,
            } => write!(f, "completed: the agent emitted {promise}"),
            StopReason::Completed {
                promise,
                signal: CompletionSignal::FinalText,
            } => write!(
                f,
                "completed: the agent's final answer ended with {promise}"
            ),
            StopReason::Completed {
                promise,
                signal: CompletionSignal::DefaultPublishes,
            } => write!(
                f,
                "completed: the hat's default_publishes is {promise}, and the agent \
                 emitted nothing"
            ),
            StopReason::MaxIterations { limit } => write!(
                f,
                "iteration limit reached ({})",
                count(u64::from(*limit), "iteration", "iterations")
            ),
            StopReason::MaxRuntime { limit_secs } => write!(
                f,
                "runtime limit reached ({})",
                format_duration(Duration::from_secs(*limit_secs))
            ),
            StopReason::MaxCost { limit_usd } => {
                write!(f, "cost limit reached ({})", format_usd_limit(*limit_usd))
            }
            StopReason::StaleLoop { topic, repeats } => write!(
                f,
                "stale loop: `{topic}` was published {repeats} times in a row with the same \
                 payload"
            ),
            // `max_consecutive_failures: 1` stops at the first failure.
            StopReason::ConsecutiveFailures { failures: 1 } => f.write_str("1 iteration failed"),
            StopReason::ConsecutiveFailures { failures } => {
                write!(f, "{failures} iterations in a row failed")
            }
            StopReason::InvalidEvents { lines } => write!(
                f,
                "{lines} lines in a row in the event inbox were not events (write events \
                 with `ralph emit`)"
            ),
            StopReason::Interrupted => f.write_str("interrupted"),
            StopReason::HookBlocked { hook, phase, why } => {
                write!(f, "hook `{hook}` ({phase}) blocked the loop: {why}")
            }
            StopReason::AgentCannotStart { hat, backend, why } => write!(
                f,
                "the agent of hat `{hat}` ({backend}) cannot be started: {why}; starting it \
                 again would fail the same way, so the loop stopped at once (fix it, then \
                 `ralph run --continue` goes on)"
            ),
        }
    }
}

/// `1h 02m`, `3m 05s`, `12.3s`, `850ms`: short, for people.
pub fn format_duration(d: Duration) -> String {
    let secs = d.as_secs();
    if secs >= 3600 {
        format!("{}h {:02}m", secs / 3600, (secs % 3600) / 60)
    } else if secs >= 60 {
        format!("{}m {:02}s", secs / 60, secs % 60)
    } else if secs >= 1 {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// The fewest decimals a dollar limit shows: cents, as people write amounts of money.
const USD_LIMIT_MIN_DECIMALS: usize = 2;

/// A configured dollar limit as the user set it: `$5.00`, `$0.015`, `$0.001`. Rounding
/// to cents would show a limit of 0.001 as `$0.00` and 0.015 as `$0.01`, a limit the
/// run never had, so every digit the value has is kept (Rust's shortest form that reads
/// back as the same number), padded to cents.
pub fn format_usd_limit(usd: f64) -> String {
    let digits = usd.to_string();
    let decimals = digits.split_once('.').map_or(0, |(_, frac)| frac.len());
    if decimals >= USD_LIMIT_MIN_DECIMALS || !usd.is_finite() {
        format!("${digits}")
    } else {
        format!("${usd:.USD_LIMIT_MIN_DECIMALS$}")
    }
}

#[cfg(test)]
#[path = "outcome_tests.rs"]
mod tests;
