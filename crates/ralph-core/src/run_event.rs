//! What a run tells its observers, in order: the loop started, each iteration started,
//! every normalized agent event as it streams, the events the agent emitted, the
//! iteration finished (outcome and usage), notices, and the loop finished (why, totals,
//! exit code).
//!
//! The JSON form of [`RunEvent`] (`#[serde(tag = "type")]`, snake_case) is a public
//! contract: `ralph run --output json` prints one per line, and docs/run-events.md
//! documents it. Agent events are nested unchanged, in the schema of docs/events.md.

use ralph_stream::AgentEvent;
use serde::Serialize;

use crate::event::Event;
use crate::hooks::policy::{HookAction, HookFailure};
use crate::steer::SteerVia;
use ralph_stream::{CostKind, Tokens};

use crate::machine::{
    CompletionSignal, EndClass, GateResult, IterationOutcome, Notice, StopReason,
};

/// The longest line of a run's record (`run-events.jsonl`, or `--output json` kept) a
/// reader holds. A run event carries at most one agent line (itself at most
/// [`ralph_stream::DEFAULT_MAX_LINE_BYTES`]) decoded and escaped again as JSON: twice
/// that leaves room for the escapes real agent output makes. Anything longer was not
/// written by ralph (the record is a file the agent can write into), and is skipped
/// without being held.
pub const MAX_RECORD_LINE_BYTES: usize = 2 * ralph_stream::DEFAULT_MAX_LINE_BYTES;

/// One thing that happened in a run.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RunEvent<'a> {
    LoopStarted {
        run_id: &'a str,
        /// True for `ralph run --continue`.
        resumed: bool,
        workspace: &'a str,
        /// The run's directory (inbox, history, state, summary).
        run_dir: &'a str,
        /// The backend of iterations whose hat names none (resolved when `auto`).
        backend: &'a str,
        /// Configured hat ids, in order (empty: one default hat).
        hats: Vec<&'a str>,
        limits: Limits<'a>,
        /// Where a continued run starts from.
        totals: Totals,
    },
    IterationStarted {
        iteration: u32,
        /// 1, or more when the attempts before it at this iteration ended on a
        /// provider's limit and ran again (they keep the iteration's number).
        attempt: u32,
        max_iterations: u32,
        hat: &'a str,
        hat_name: &'a str,
        backend: &'a str,
        /// The events the hat handles.
        events: &'a [Event],
        /// The iteration's wall-clock deadline.
        wall_secs: u64,
        started_at_ms: u64,
        /// The run's time so far, as its runtime limit counts it: rate-limit waits,
        /// gates and hooks included.
        elapsed_ms: u64,
    },
    /// A normalized agent event (docs/events.md), as it arrives.
    Agent {
        iteration: u32,
        event: &'a AgentEvent<'a>,
    },
    /// The events the agent emitted during an iteration, in order, and those published
    /// meanwhile from outside it.
    EventsEmitted {
        iteration: u32,
        events: &'a [Event],
        /// How many of `events`, the last ones, the agent wrote as `<event>` tags in its
        /// answer (the others it emitted with `ralph emit`).
        from_tags: u32,
        /// Published while the iteration ran by others than its agent (a person, a gate,
        /// a hook, a script): routed to the hats, never credited to this one.
        outside: &'a [Event],
        invalid_lines: u32,
        /// Topics published only after their gates passed.
        verified: &'a [String],
        /// Topics a gate refused: not published (`gate.failed` was instead).
        withheld: &'a [String],
    },
    /// The backend the next iteration (of `hat`) runs on is limited: the loop waits this
    /// long before starting it.
    RateLimitWait {
        iteration: u32,
        /// The hat whose iteration waits.
        hat: &'a str,
        wait_secs: u64,
        /// When the limit resets, in Unix seconds, when the agent said.
        resets_at: Option<u64>,
        message: &'a str,
    },
    /// A message sent with `ralph steer` reached the loop.
    SteerReceived {
        /// The iteration it concerns: the one whose agent took it, or whose prompt will
        /// carry it.
        iteration: u32,
        /// The request's id (also in `steering.jsonl`).
        id: &'a str,
        message: &'a str,
        /// `true` when it waits for a prompt, `false` when the running agent took it.
        queued: bool,
        /// Where it went, as `ralph steer` prints it (`queued for iteration 2`).
        went: &'a str,
    },
    /// A steering message reached the agent: mid-turn, or in the prompt of `iteration`.
    SteerDelivered {
        iteration: u32,
        id: &'a str,
        via: SteerVia,
        /// Where: the backend's input (`pi mid-turn`) or `prompt`.
        to: &'a str,
    },
    /// The next attempt of a hat runs on another of its backends than its last one
    /// (`on_rate_limit: failover`): on a `fallback` backend because the one before is
    /// limited, or back on an earlier one (the primary) whose limit is over.
    Failover {
        iteration: u32,
        hat: &'a str,
        /// The backend of the hat's last attempt, and which of its backends that was
        /// (0 the primary, `n` the `n`th of `fallback`).
        from: &'a str,
        from_fallback: u32,
        /// The backend this attempt runs on.
        to: &'a str,
        to_fallback: u32,
    },
    /// A gate started (`iteration` is null for `ralph gates`).
    GateStarted {
        iteration: Option<u32>,
        gate: &'a str,
        /// The event it checks (null for `ralph gates`).
        event: Option<&'a str>,
        command: &'a str,
    },
    /// A gate ended.
    GateFinished {
        iteration: Option<u32>,
        passed: bool,
        #[serde(flatten)]
        result: &'a GateResult,
    },
    IterationFinished {
        iteration: u32,
        hat: &'a str,
        backend: &'a str,
        model: Option<&'a str>,
        outcome: &'a IterationOutcome,
        duration_ms: u64,
        #[serde(serialize_with = "usd_opt")]
        cost_usd: Option<f64>,
        cost_kind: CostKind,
        tokens: Tokens,
        /// False when the agent reported no token counts (Copilot): `tokens` is then
        /// zero because nobody counted, not because none were used.
        tokens_known: bool,
        turns: u32,
        /// Present when this iteration signalled completion (and it was accepted).
        completion: Option<CompletionSignal>,
        /// The end of the agent's stderr, when the iteration failed.
        stderr_tail: Option<&'a str>,
        /// The run so far.
        totals: Totals,
    },
    /// A decision worth knowing about (see [`Notice`]); `iteration` is the one it
    /// concerns, when there is one.
    Notice {
        iteration: Option<u32>,
        #[serde(flatten)]
        notice: &'a Notice,
    },
    LoopFinished {
        /// The machine-readable reason and its details.
        #[serde(flatten)]
        reason: &'a StopReason,
        /// The reason in words.
        message: String,
        outcome: EndClass,
        exit_code: u8,
        totals: Totals,
        summary_path: &'a str,
        /// Where the workspace's repository stands at the end (what a batch job hands
        /// on: the branch to push, the commit to review); absent outside a repository.
        #[serde(skip_serializing_if = "Option::is_none")]
        git: Option<&'a GitHead>,
    },
    /// ralph could not start or go on with the run (a configuration error, the workspace
    /// lock, a file it cannot write): the last line, instead of `loop_finished`, so a
    /// program reading the output learns why it ended.
    Error {
        /// The error as ralph says it on stderr.
        message: &'a str,
        exit_code: u8,
    },
    /// A hook started (docs/hooks.md).
    HookStarted {
        /// Its phase (`pre.loop.start`).
        phase: &'a str,
        hook: &'a str,
        /// The iteration about to run or last run; `None` before the first.
        iteration: Option<u32>,
        /// 1, then one more for each retry at this boundary.
        attempt: u32,
        /// The command as configured.
        command: &'a str,
    },
    /// A hook ended, and what ralph does about it.
    HookFinished {
        phase: &'a str,
        hook: &'a str,
        iteration: Option<u32>,
        attempt: u32,
        passed: bool,
        /// How it failed, when it did.
        failure: Option<HookFailure>,
        exit_code: Option<i32>,
        /// Why it failed, in words.
        message: Option<&'a str>,
        duration_ms: u64,
        action: HookAction,
        /// The last lines of its output, when it failed.
        output_tail: Option<&'a str>,
        /// Its full output, relative to the workspace.
        log_path: &'a str,
    },
}

/// The limits a run was started with.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Limits<'a> {
    pub max_iterations: u32,
    pub max_runtime_secs: u64,
    pub max_cost_usd: Option<f64>,
    pub max_consecutive_failures: u32,
    pub completion_promise: &'a str,
    pub required_events: &'a [String],
}

/// A run's totals so far.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Totals {
    pub iterations: u32,
    pub elapsed_ms: u64,
    /// The known cost.
    #[serde(serialize_with = "usd")]
    pub cost_usd: f64,
    /// False when some iteration's cost was not reported: `cost_usd` is then a lower
    /// bound.
    pub cost_complete: bool,
    /// True when some iteration's cost is ralph's estimate from its tokens (Codex, Gemini
    /// CLI, a Claude Code stopped before its `result`): `cost_usd` then includes estimates.
    pub cost_estimated: bool,
    pub tokens: Tokens,
    /// False when some iteration's agent reported no token counts: `tokens` is then a
    /// lower bound.
    pub tokens_complete: bool,
}

impl Totals {
    pub fn of(state: &crate::machine::LoopState) -> Totals {
        Totals {
            iterations: state.iterations,
            elapsed_ms: state.runtime_ms,
            cost_usd: state.spend.cost_usd,
            cost_complete: state.spend.cost_complete(),
            cost_estimated: state.spend.cost_estimated(),
            tokens: state.spend.tokens,
            tokens_complete: state.spend.tokens_complete(),
        }
    }
}

/// The branch and commit the workspace's repository is at.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct GitHead {
    /// `None` on a detached head.
    pub branch: Option<String>,
    /// The full hash; `None` before the first commit.
    pub commit: Option<String>,
}

/// Decimal places of the dollar amounts ralph adds up itself: a billionth of a dollar is
/// finer than any token's price, and it keeps sums of binary fractions
/// (`0.015629999999999998`) from reaching the output.
pub const USD_DECIMALS: i32 = 9;

/// `amount` rounded to [`USD_DECIMALS`] places.
pub fn round_usd(amount: f64) -> f64 {
    let scale = 10f64.powi(USD_DECIMALS);
    (amount * scale).round() / scale
}

/// Decimal places of a dollar amount shown to people: a hundredth of a cent, so that a
/// cheap model's iteration does not read as free.
pub const USD_SHOWN_DECIMALS: usize = 4;

/// `$0.0230`: a dollar amount as every view shows it, rounded as the run's files store it
/// ([`round_usd`]) before it is cut to [`USD_SHOWN_DECIMALS`] places, so that a sum held in
/// memory (`0.022949999…`) and the same sum read back from the files (`0.02295`) show the
/// same figure.
pub fn format_usd(amount: f64) -> String {
    format!("${:.USD_SHOWN_DECIMALS$}", round_usd(amount))
}

fn usd<S: serde::Serializer>(amount: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(round_usd(*amount))
}

fn usd_opt<S: serde::Serializer>(amount: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match amount {
        Some(amount) => serializer.serialize_some(&round_usd(*amount)),
        None => serializer.serialize_none(),
    }
}

#[cfg(test)]
#[path = "run_event_tests.rs"]
mod tests;
