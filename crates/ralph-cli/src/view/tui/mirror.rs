//! The run events as the TUI reads them back: an owned mirror of the JSON lines of
//! docs/run-events.md (`RunEvent` borrows and only serializes). `ralph run --tui` turns
//! each event into its JSON line and parses it here, exactly as `ralph watch` parses the
//! lines of `run-events.jsonl`: one code path from what happened to what is shown.
//!
//! Only the fields the view shows are read; unknown types and fields are skipped, as the
//! schema asks of readers.

use ralph_core::machine::IterationOutcome;
use ralph_stream::CostKind;
use serde::Deserialize;

use crate::view::term::ending::Ending;
use crate::view::term::tool_preview::one_line;

/// One line of `run-events.jsonl`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum RunLine {
    LoopStarted {
        run_id: String,
        run_dir: String,
        backend: String,
        limits: Limits,
        totals: Totals,
    },
    IterationStarted {
        iteration: u32,
        /// Absent from a record written before ralph said it: read as the first.
        #[serde(default = "first_attempt")]
        attempt: u32,
        max_iterations: u32,
        hat: String,
        backend: String,
        started_at_ms: u64,
        /// The run's time at the start: absent from a record written before ralph said it.
        #[serde(default)]
        elapsed_ms: Option<u64>,
    },
    Agent {
        iteration: u32,
        event: AgentLine,
    },
    EventsEmitted {
        iteration: u32,
        events: Vec<EmittedEvent>,
        /// How many of `events`, the last ones, were read from `<event>` tags: absent from
        /// a record written before ralph told them apart (none marked then).
        #[serde(default)]
        from_tags: u32,
        /// Absent from a record written before ralph told the agent's events apart.
        #[serde(default)]
        outside: Vec<EmittedEvent>,
        #[serde(default)]
        withheld: Vec<String>,
    },
    GateStarted {
        iteration: Option<u32>,
        gate: String,
        event: Option<String>,
        command: String,
    },
    GateFinished {
        iteration: Option<u32>,
        gate: String,
        passed: bool,
        reason: String,
        duration_ms: u64,
        exit_code: Option<i32>,
        #[serde(default)]
        output: Option<String>,
    },
    IterationFinished {
        iteration: u32,
        model: Option<String>,
        outcome: Outcome,
        duration_ms: u64,
        cost_usd: Option<f64>,
        /// What kind of number `cost_usd` is (a record that does not say: unknown).
        #[serde(default)]
        cost_kind: CostKind,
        tokens: Tokens,
        /// The end of the agent's stderr, when it failed.
        #[serde(default)]
        stderr_tail: Option<String>,
        #[serde(default = "counted")]
        tokens_known: bool,
        totals: Totals,
    },
    Notice {
        iteration: Option<u32>,
        /// The kind (`notice`) and its fields, read into a `Notice` where it is shown.
        #[serde(flatten)]
        notice: serde_json::Map<String, serde_json::Value>,
    },
    SteerReceived {
        message: String,
        went: String,
    },
    RateLimitWait {
        iteration: u32,
        /// Absent in a record from before it was written.
        #[serde(default)]
        hat: Option<String>,
        wait_secs: u64,
        resets_at: Option<u64>,
    },
    Failover {
        iteration: u32,
        from: String,
        from_fallback: u32,
        to: String,
        to_fallback: u32,
    },
    HookFinished {
        phase: String,
        hook: String,
        passed: bool,
        message: Option<String>,
    },
    LoopFinished {
        reason: String,
        message: String,
        totals: Totals,
    },
    Error {
        message: String,
    },
    #[serde(other)]
    Other,
}

/// A normalized agent event (docs/events.md), the parts the view shows.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum AgentLine {
    SessionStarted {
        model: Option<String>,
    },
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        text: String,
    },
    ToolCallStarted {
        id: String,
        name: String,
        args: serde_json::Value,
    },
    ToolCallFinished {
        id: String,
        output: String,
        is_error: bool,
    },
    MessageFinished {
        stop: String,
        error: Option<String>,
    },
    TurnFinished {
        usage: Usage,
    },
    RetryStarted {
        attempt: Option<u32>,
        error: Option<String>,
    },
    RunFinished {
        is_error: bool,
        error: Option<String>,
    },
    NonJson {
        line: String,
    },
    /// The prompt, then each message the agent read while it ran.
    UserMessage {
        text: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Limits {
    pub(crate) max_iterations: u32,
    pub(crate) max_runtime_secs: u64,
    pub(crate) max_cost_usd: Option<f64>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize)]
pub(crate) struct Tokens {
    pub(crate) input: u64,
    pub(crate) output: u64,
    pub(crate) cache_read: u64,
    pub(crate) cache_write: u64,
}

impl Tokens {
    /// The total; a record's numbers are any the file says, so it saturates.
    pub(crate) fn sum(&self) -> u64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write)
    }
}

#[derive(Clone, Copy, Debug, Deserialize)]
pub(crate) struct Totals {
    pub(crate) elapsed_ms: u64,
    pub(crate) cost_usd: f64,
    /// Whether every iteration's cost is known (`cost_usd` is then the cost, else the
    /// least it is). A record that does not say is read as saying so.
    #[serde(default = "known")]
    pub(crate) cost_complete: bool,
    /// Whether some iteration's cost is ralph's estimate (`cost_usd` is then one too). A
    /// record that does not say: none is.
    #[serde(default)]
    pub(crate) cost_estimated: bool,
    pub(crate) tokens: Tokens,
    /// False when some iteration's tokens nobody counted (a record from before it: all
    /// were).
    #[serde(default = "counted")]
    pub(crate) tokens_complete: bool,
}

/// What a record that does not say whether its tokens were counted means.
fn counted() -> bool {
    true
}

#[derive(Debug, Deserialize)]
pub(crate) struct Usage {
    pub(crate) model: Option<String>,
}

/// How an iteration ended: one ralph knows, or a status from a newer ralph's run.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum Outcome {
    Known(IterationOutcome),
    Other { status: String },
}

impl Outcome {
    /// How the line view marks it; a status this ralph does not know is not claimed to
    /// be a success, nor that it was not the agent's fault.
    pub(crate) fn ending(&self) -> Ending {
        match self {
            Outcome::Known(outcome) => Ending::of(outcome),
            Outcome::Other { .. } => Ending::Failed,
        }
    }

    /// The words the line view says it in (`stopped at the cost limit`), on one line: a
    /// failure's reason is the agent's text.
    pub(crate) fn words(&self) -> String {
        match self {
            Outcome::Known(outcome) => one_line(&outcome.to_string()),
            Outcome::Other { status } => one_line(status),
        }
    }

    /// [`Outcome::words`] without what follows them (`failed`, not `failed: exit code
    /// 1`), for a title with room for little more.
    pub(crate) fn short_words(&self) -> String {
        let mut words = self.words();
        if let Some(colon) = words.find(':') {
            words.truncate(colon);
        }
        words
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct EmittedEvent {
    pub(crate) topic: String,
    pub(crate) payload: serde_json::Value,
}

impl Default for Totals {
    fn default() -> Totals {
        Totals {
            elapsed_ms: 0,
            cost_usd: 0.0,
            cost_complete: true,
            cost_estimated: false,
            tokens: Tokens::default(),
            tokens_complete: true,
        }
    }
}

fn known() -> bool {
    true
}

/// The attempt a record that names none is: the first.
fn first_attempt() -> u32 {
    1
}
