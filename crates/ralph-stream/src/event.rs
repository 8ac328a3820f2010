//! The normalized agent events every parser produces and the rest of ralph consumes.
//!
//! Events borrow their text from the line being parsed (or the parser's scratch buffer)
//! so the hot path allocates nothing; [`AgentEvent::into_owned`] detaches one. The JSON
//! form (`#[serde(tag = "type")]`, snake_case) is a public contract: `ralph inspect
//! --events` and `ralph run --output json` print it, and docs/events.md documents it.

use std::borrow::Cow;

use serde::Serialize;
use serde::Serializer;

/// One thing an agent did, said or reported.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent<'a> {
    /// The agent started a session.
    SessionStarted {
        session_id: Option<Cow<'a, str>>,
        model: Option<Cow<'a, str>>,
        provider: Option<Cow<'a, str>>,
    },
    /// A user message entered the agent's conversation: the prompt, then each message
    /// the agent read during its run (a `ralph steer` message it took mid-turn). Only
    /// agents that show these emit it: pi, and Claude Code when steered.
    UserMessage { text: Cow<'a, str> },
    /// A piece of the assistant's visible answer, in order.
    TextDelta { text: Cow<'a, str> },
    /// A piece of the assistant's reasoning.
    ThinkingDelta { text: Cow<'a, str> },
    /// A tool began to run. `args` is the raw JSON of its input.
    ToolCallStarted {
        id: Cow<'a, str>,
        name: Cow<'a, str>,
        #[serde(serialize_with = "serialize_raw_json")]
        args: Cow<'a, str>,
        /// The tool call this one runs under (a sub-agent's tools), when known.
        parent_id: Option<Cow<'a, str>>,
    },
    /// A tool finished. Matched to its start by `id`: tools may run in parallel.
    ToolCallFinished {
        id: Cow<'a, str>,
        name: Option<Cow<'a, str>>,
        output: Cow<'a, str>,
        is_error: bool,
    },
    /// An assistant message ended: its full text and how it ended.
    MessageFinished {
        text: Cow<'a, str>,
        stop: Stop,
        error: Option<Cow<'a, str>>,
    },
    /// One model call finished and reported its usage.
    TurnFinished {
        usage: Usage<'a>,
        /// True when the model call failed (its tokens may still have been billed).
        is_error: bool,
    },
    /// The agent is about to retry a failed model call.
    RetryStarted {
        attempt: Option<u32>,
        max_attempts: Option<u32>,
        delay_ms: Option<u64>,
        error: Option<Cow<'a, str>>,
    },
    /// The agent's retrying ended, successfully or not.
    RetryFinished {
        success: bool,
        attempt: Option<u32>,
        error: Option<Cow<'a, str>>,
    },
    /// The agent compacted (summarized) its context.
    Compaction {
        phase: Phase,
        reason: Option<Cow<'a, str>>,
        error: Option<Cow<'a, str>>,
    },
    /// The provider reported a rate-limit window.
    RateLimit {
        status: Option<Cow<'a, str>>,
        /// When the limit resets, in Unix seconds.
        resets_at: Option<u64>,
    },
    /// The agent says its run is over (its terminal event).
    RunFinished {
        is_error: bool,
        error: Option<Cow<'a, str>>,
        /// Turns of the part of the run this event closes.
        turns: Option<u32>,
        duration_ms: Option<u64>,
        /// Session totals so far, when the agent reports them (they replace, never add
        /// to, earlier totals of the same session: a second Claude `result` repeats the
        /// cumulative cost; see `SessionSummary::begin_session` for several sessions).
        totals: Option<Usage<'a>>,
    },
    /// A line that is not JSON (or not a JSON object).
    NonJson { line: Cow<'a, str> },
    /// A JSON event of a type (or sub-type) this parser does not know.
    Unknown { event_type: Cow<'a, str> },
    /// A line longer than the framing cap, skipped.
    OversizeLine { len: u64 },
}

/// How an assistant message ended, normalized across agents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// The model finished its answer.
    Completed,
    /// The model asked for tools; the run goes on.
    ToolUse,
    /// The model hit its output limit.
    Length,
    /// The model call failed.
    Error,
    /// The run was aborted.
    Aborted,
    /// A stop reason this parser does not know, or none was given.
    Other,
}

impl Stop {
    /// True for the stops that mean the message failed.
    pub fn is_failure(self) -> bool {
        match self {
            Stop::Error | Stop::Aborted => true,
            Stop::Completed | Stop::ToolUse | Stop::Length | Stop::Other => false,
        }
    }
}

/// Phase of a compaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Started,
    Finished,
}

/// Token counts of one turn or one session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

// The counts are whatever the agent's stream says: sums saturate rather than wrap (or
// panic, with overflow checks on).
impl Tokens {
    pub fn total(&self) -> u64 {
        self.input
            .saturating_add(self.output)
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write)
    }

    pub fn add(&mut self, other: &Tokens) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
        self.cache_write = self.cache_write.saturating_add(other.cache_write);
    }
}

impl std::ops::AddAssign for Tokens {
    fn add_assign(&mut self, other: Tokens) {
        self.add(&other);
    }
}

/// What kind of number a cost is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CostKind {
    /// The agent reported it.
    Reported,
    /// ralph computed it from a price list.
    Estimated,
    /// Nobody knows: no cost was given, or a cost of 0 came with tokens (custom models
    /// report 0; that means unpriced, not free).
    #[default]
    Unknown,
}

impl CostKind {
    /// The kind of a sum of two costs: as weak as its weakest part.
    pub fn combine(self, other: CostKind) -> CostKind {
        match (self, other) {
            (CostKind::Unknown, _) | (_, CostKind::Unknown) => CostKind::Unknown,
            (CostKind::Estimated, _) | (_, CostKind::Estimated) => CostKind::Estimated,
            (CostKind::Reported, CostKind::Reported) => CostKind::Reported,
        }
    }
}

/// Usage of a turn (or totals of a session): tokens, cost and what the cost is worth.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Usage<'a> {
    pub tokens: Tokens,
    /// `None` when the cost is unknown.
    pub cost_usd: Option<f64>,
    pub cost_kind: CostKind,
    /// The model that produced it, when known.
    pub model: Option<Cow<'a, str>>,
}

impl<'a> Usage<'a> {
    /// Usage as an agent reported it, applying the rule that a zero cost with non-zero
    /// tokens is unknown rather than free.
    pub fn reported(tokens: Tokens, cost_usd: Option<f64>, model: Option<Cow<'a, str>>) -> Self {
        let cost_usd = cost_usd.filter(|&c| c > 0.0 || tokens.total() == 0);
        Self::priced(tokens, cost_usd, CostKind::Reported, model)
    }

    /// Usage priced by ralph from a price table: estimated when a price was found,
    /// unknown when not.
    pub fn estimated(tokens: Tokens, cost_usd: Option<f64>, model: Option<Cow<'a, str>>) -> Self {
        Self::priced(tokens, cost_usd, CostKind::Estimated, model)
    }

    /// Usage whose cost is of `known` kind when there is one, and unknown otherwise.
    fn priced(
        tokens: Tokens,
        cost_usd: Option<f64>,
        known: CostKind,
        model: Option<Cow<'a, str>>,
    ) -> Self {
        Usage {
            tokens,
            cost_usd,
            cost_kind: if cost_usd.is_some() {
                known
            } else {
                CostKind::Unknown
            },
            model,
        }
    }

    pub fn into_owned(self) -> Usage<'static> {
        Usage {
            tokens: self.tokens,
            cost_usd: self.cost_usd,
            cost_kind: self.cost_kind,
            model: owned_opt(self.model),
        }
    }
}

impl AgentEvent<'_> {
    /// A copy that borrows nothing, for keeping past the line it came from.
    pub fn into_owned(self) -> AgentEvent<'static> {
        match self {
            AgentEvent::SessionStarted {
                session_id,
                model,
                provider,
            } => AgentEvent::SessionStarted {
                session_id: owned_opt(session_id),
                model: owned_opt(model),
                provider: owned_opt(provider),
            },
            AgentEvent::TextDelta { text } => AgentEvent::TextDelta { text: owned(text) },
            AgentEvent::ThinkingDelta { text } => AgentEvent::ThinkingDelta { text: owned(text) },
            AgentEvent::ToolCallStarted {
                id,
                name,
                args,
                parent_id,
            } => AgentEvent::ToolCallStarted {
                id: owned(id),
                name: owned(name),
                args: owned(args),
                parent_id: owned_opt(parent_id),
            },
            AgentEvent::ToolCallFinished {
                id,
                name,
                output,
                is_error,
            } => AgentEvent::ToolCallFinished {
                id: owned(id),
                name: owned_opt(name),
                output: owned(output),
                is_error,
            },
            AgentEvent::MessageFinished { text, stop, error } => AgentEvent::MessageFinished {
                text: owned(text),
                stop,
                error: owned_opt(error),
            },
            AgentEvent::TurnFinished { usage, is_error } => AgentEvent::TurnFinished {
                usage: usage.into_owned(),
                is_error,
            },
            AgentEvent::RetryStarted {
                attempt,
                max_attempts,
                delay_ms,
                error,
            } => AgentEvent::RetryStarted {
                attempt,
                max_attempts,
                delay_ms,
                error: owned_opt(error),
            },
            AgentEvent::RetryFinished {
                success,
                attempt,
                error,
            } => AgentEvent::RetryFinished {
                success,
                attempt,
                error: owned_opt(error),
            },
            AgentEvent::Compaction {
                phase,
                reason,
                error,
            } => AgentEvent::Compaction {
                phase,
                reason: owned_opt(reason),
                error: owned_opt(error),
            },
            AgentEvent::RateLimit { status, resets_at } => AgentEvent::RateLimit {
                status: owned_opt(status),
                resets_at,
            },
            AgentEvent::RunFinished {
                is_error,
                error,
                turns,
                duration_ms,
                totals,
            } => AgentEvent::RunFinished {
                is_error,
                error: owned_opt(error),
                turns,
                duration_ms,
                totals: totals.map(Usage::into_owned),
            },
            AgentEvent::NonJson { line } => AgentEvent::NonJson { line: owned(line) },
            AgentEvent::UserMessage { text } => AgentEvent::UserMessage { text: owned(text) },
            AgentEvent::Unknown { event_type } => AgentEvent::Unknown {
                event_type: owned(event_type),
            },
            AgentEvent::OversizeLine { len } => AgentEvent::OversizeLine { len },
        }
    }
}

fn owned(s: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(s.into_owned())
}

fn owned_opt(s: Option<Cow<'_, str>>) -> Option<Cow<'static, str>> {
    s.map(owned)
}

/// Writes tool arguments as the JSON value they are, or as a string when the agent's
/// JSON does not survive a strict parser (a lone surrogate, say): the output must stay
/// valid JSON whatever the agent wrote.
#[expect(
    clippy::ptr_arg,
    reason = "serde's serialize_with passes the field by reference"
)]
fn serialize_raw_json<S: Serializer>(raw: &Cow<'_, str>, serializer: S) -> Result<S::Ok, S::Error> {
    // A full parse, not `RawValue`: only a full parse rejects lone surrogates.
    match serde_json::from_str::<serde_json::Value>(raw) {
        Ok(value) => value.serialize(serializer),
        Err(_) => serializer.serialize_str(raw),
    }
}

#[cfg(test)]
#[path = "event_tests.rs"]
mod tests;
