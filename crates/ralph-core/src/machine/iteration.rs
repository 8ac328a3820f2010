//! An iteration as the machine hands it out, as the caller reports it back, and as the
//! history records it.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::gate::GateResult;
use super::outcome::{CompletionSignal, IterationOutcome};
use super::usage::Usage;
use crate::event::Event;
use crate::event_tag::Tag;
use crate::inbox::InboxLine;
use crate::steer::IterationSteering;
use ralph_stream::{CostKind, Tokens};

/// One iteration to run: which hat, with which events. Hand it back to
/// [`Machine::finish`](super::Machine::finish) with the result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Iteration {
    /// 1-based, counted over the whole run.
    pub number: u32,
    /// A hat id, or [`DEFAULT_HAT`](super::DEFAULT_HAT).
    pub hat: String,
    /// The events this hat handles, oldest first.
    pub events: Vec<Event>,
}

/// The wall-clock deadline of an iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WallPlan {
    pub wall: Duration,
    /// The hat's iteration timeout was cut to the runtime left: a wall-clock timeout
    /// then means `max_runtime_seconds`, not a hung agent.
    pub cut_to_runtime: bool,
}

/// What happened in an iteration, as the caller observed it.
#[derive(Clone, Debug, PartialEq)]
pub struct IterationReport {
    pub outcome: IterationOutcome,
    /// The final answer of the run (`SessionSummary::final_text`).
    pub final_text: Option<String>,
    /// The model's output-token limit cut the final answer short
    /// (`SessionSummary::final_cut_at_length`): a promise ending it does not count.
    pub final_cut_at_length: bool,
    pub usage: Usage,
    /// The inbox lines appended during the iteration, in order.
    pub inbox: Vec<InboxLine>,
    /// What the `<event>` tags in the agent's finished assistant messages stood for, in
    /// order ([`read_tags`](crate::event_tag::read_tags) of each): ralph-orchestrator's
    /// way of publishing, taken as the agent's events after those in `inbox`.
    pub tags: Vec<Tag>,
    /// The `RALPH_AGENT_RUN` token of the agent process that ran (`None` when none
    /// started): only the inbox lines it sent are the hat's; the others came from
    /// outside (a person, a gate, a hook, a script).
    pub agent_run: Option<String>,
    pub duration: Duration,
    /// The backend that ran (for records and notices).
    pub backend: String,
    /// Which of the hat's backends ran: 0 the primary, `n` the `n`th of its `fallback`
    /// (as [`Machine::pick_backend`](super::Machine::pick_backend) said).
    pub fallback: u32,
    /// When the iteration started, in Unix milliseconds (for records).
    pub started_at_ms: u64,
    /// The gates run after the agent, as [`GatePlan::next_gate`](super::GatePlan::next_gate)
    /// asked for them.
    pub gates: Vec<GateResult>,
    /// The run's tasks that are open or in progress (`id: title`), when `tasks.enabled`:
    /// a completion claim is refused while there are any.
    pub unfinished_tasks: Vec<String>,
    /// Why the agent could not be started, when it could not (`Termination::start_failure`):
    /// a cause that lasts stops the loop at once (`start_failure`).
    pub start_failure: Option<ralph_types::SpawnFailure>,
    /// Why no agent could be given this iteration, when its command line could not be
    /// built (a prompt over an argument's size limit, or holding a NUL byte): a cause
    /// that lasts, since the iteration it is handed back to builds the same prompt, so
    /// the loop stops at once (`start_failure`).
    pub unstartable: Option<String>,
}

impl IterationReport {
    /// The events read from the agent's `<event>` tags, in order.
    pub(super) fn tagged(&self) -> impl Iterator<Item = &Event> {
        self.tags.iter().flatten()
    }
}

/// One line of the history log: an iteration, as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IterationRecord {
    pub iteration: u32,
    pub hat: String,
    pub backend: String,
    /// The `fallback` backend that ran (1 for the first), when not the hat's primary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<u32>,
    pub model: Option<String>,
    pub outcome: IterationOutcome,
    pub started_at_ms: u64,
    pub duration_ms: u64,
    pub cost_usd: Option<f64>,
    pub cost_kind: CostKind,
    pub tokens: Tokens,
    /// Whether the agent reported token counts: `tokens` is zero, not counted, when not.
    #[serde(default = "super::usage::known")]
    pub tokens_known: bool,
    pub turns: u32,
    /// The events the hat was given.
    pub consumed: Vec<Event>,
    /// The events the agent emitted, in order (those read from `<event>` tags last).
    pub events: Vec<Event>,
    /// How many of `events`, the last ones, were read from `<event>` tags in the agent's
    /// answer rather than emitted with `ralph emit`.
    #[serde(default, skip_serializing_if = "super::state::is_zero")]
    pub from_tags: u32,
    /// The events published while the iteration ran by others than its agent (a person,
    /// a gate, a hook, a script: an inbox line without the agent's sender), in order:
    /// routed as any event, never credited to the hat (no hand-over, no completion).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outside: Vec<Event>,
    pub invalid_lines: u32,
    /// Published for the hat because it emitted nothing.
    #[serde(default)]
    pub default_published: Option<String>,
    /// The accepted completion signal, when this iteration completed the run.
    #[serde(default)]
    pub completion: Option<CompletionSignal>,
    /// The gates run after the agent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gates: Vec<GateResult>,
    /// Topics published only after their gates passed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verified: Vec<String>,
    /// Topics the agent published that a gate refused (or that were not checked because
    /// the run was stopped): not published.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub withheld: Vec<String>,
    /// What `ralph steer` did in this iteration (the shell fills it in after `finish`).
    #[serde(default, skip_serializing_if = "IterationSteering::is_empty")]
    pub steering: IterationSteering,
}
