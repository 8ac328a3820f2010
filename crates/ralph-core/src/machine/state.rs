//! The loop's state: everything a run has counted and queued, saved after every
//! iteration so `ralph run --continue` resumes exactly where the run stopped.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::failover::BackendLimit;
use super::gate::GateEnd;
use super::outcome::StopReason;
use super::rate_limit::{RateLimitStreak, RateLimitTally};
use super::refusal::CompletionRefusal;
use super::spend::Spend;
use crate::event::Event;

/// The counters, queue and totals of one run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LoopState {
    /// Iterations started and finished (an interrupted one included).
    pub iterations: u32,
    /// Time spent running, over every session of the run (`--continue` adds to it).
    pub runtime_ms: u64,
    /// The cost and tokens of every iteration (and attempt), over every session.
    #[serde(flatten)]
    pub spend: Spend,
    pub consecutive_failures: u32,
    pub consecutive_invalid_lines: u32,
    /// Events waiting for a hat, oldest first.
    pub pending: VecDeque<Event>,
    /// Every topic published so far (for `required_events`).
    pub seen_topics: BTreeSet<String>,
    /// Iterations each hat has run.
    pub activations: BTreeMap<String, u32>,
    /// The last event published and how many times in a row it was.
    pub last_published: Option<Repeat>,
    /// Totals per hat, for the summary.
    pub hats: BTreeMap<String, HatTotals>,
    /// Whether the unknown-cost notice was given.
    pub cost_notice_given: bool,
    /// Whether the notice that an event was read from an `<event>` tag was given.
    #[serde(default, skip_serializing_if = "is_false")]
    pub tag_notice_given: bool,
    /// Why the loop stopped, once it has.
    pub end: Option<StopReason>,
    /// Why the last iteration that counted as failed failed (a failure's reason, or the
    /// limit of a rate-limited one under `on_rate_limit: fail`): the verdict of a loop
    /// that stops on failures in a row says it, as the summary and `-q` show nothing else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_failure: Option<String>,
    /// Why the last refused completion claim was refused (the final verdict says it
    /// when the loop then ends otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<CompletionRefusal>,
    /// Provider limits hit in a row (cleared by an iteration that did not hit one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimitStreak>,
    /// The backends (of a hat's primary and `fallback`) limited until some time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub backend_limits: Vec<BackendLimit>,
    /// The waits for provider limits and the attempts moved to a fallback, for the
    /// summary.
    #[serde(default, skip_serializing_if = "RateLimitTally::is_empty")]
    pub rate_limit_tally: RateLimitTally,
    /// Which of its backends each hat ran its last attempt on (0 the primary), when
    /// it failed over at least once.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub backends: BTreeMap<String, u32>,
    /// What each gate did over the run, for the summary.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub gates: BTreeMap<String, GateTotals>,
}

/// What one gate did over a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GateTotals {
    pub runs: u32,
    pub passed: u32,
    pub duration_ms: u64,
    /// How its last run ended, and in which iteration.
    pub last: Option<GateEnd>,
    pub last_iteration: u32,
}

/// An event and how many times in a row it was published.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Repeat {
    pub event: Event,
    pub count: u32,
}

/// What one hat did over a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HatTotals {
    pub iterations: u32,
    pub failures: u32,
    pub duration_ms: u64,
    /// The cost and tokens of the hat's iterations (and attempts).
    #[serde(flatten)]
    pub spend: Spend,
}

pub(super) fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}
