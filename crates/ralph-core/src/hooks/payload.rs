//! The JSON a hook reads on stdin. Its shape is ralph-orchestrator's (`schema_version`,
//! `phase`, `event`, `phase_event`, `timestamp`, `loop`, `iteration`, `context`,
//! `metadata.accumulated`), so hook scripts written for it keep working; ralph adds
//! what its own boundaries know at the top level (`run_id`, `hat`, `backend`, the
//! `events` the iteration handles, the run's `totals`, and at the loop's end its `stop`).

use serde_json::{Value, json};

use super::mutate::Metadata;
use super::phase::HookPhase;
use crate::event::Event;
use crate::machine::StopReason;
use crate::run_event::Totals;

/// The payload's format; bumped when a field changes meaning.
pub const PAYLOAD_SCHEMA_VERSION: u32 = 1;

/// The active hat named in `context.active_hat` outside an iteration (before the first
/// one, at the loop's end without hats).
pub const NO_HAT: &str = "ralph";

/// What one boundary knows.
#[derive(Debug, Clone)]
pub struct PayloadInput<'a> {
    pub phase: HookPhase,
    pub run_id: &'a str,
    pub workspace: &'a str,
    /// ralph's process id.
    pub pid: u32,
    pub timestamp_ms: u64,
    /// The iteration about to run, or the last one run (0 before the first).
    pub iteration: u32,
    pub max_iterations: u32,
    /// The iteration's hat (with iteration phases).
    pub hat: Option<&'a str>,
    pub backend: Option<&'a str>,
    /// The events the iteration handles (with iteration phases).
    pub events: &'a [Event],
    pub totals: Totals,
    /// Why the loop stops (with `loop.complete` and `loop.error`).
    pub stop: Option<&'a StopReason>,
    pub metadata: &'a Metadata,
}

/// The payload for `input`.
pub fn build(input: &PayloadInput<'_>) -> Value {
    let events: Vec<Value> = input
        .events
        .iter()
        .map(|e| json!({"topic": e.topic, "payload": e.payload}))
        .collect();
    json!({
        "schema_version": PAYLOAD_SCHEMA_VERSION,
        "phase": input.phase.when(),
        "event": input.phase.event(),
        "phase_event": input.phase.name(),
        "timestamp": rfc3339(input.timestamp_ms),
        "loop": {
            "id": input.run_id,
            "is_primary": true,
            "workspace": input.workspace,
            "repo_root": input.workspace,
            "pid": input.pid,
        },
        "iteration": {"current": input.iteration, "max": input.max_iterations},
        "context": {
            "active_hat": input.hat.unwrap_or(NO_HAT),
            "selected_hat": input.hat,
            "selected_task": null,
            "termination_reason": input.stop.map(StopReason::name),
            "human_interact": null,
        },
        "metadata": {"accumulated": input.metadata},
        "run_id": input.run_id,
        "hat": input.hat,
        "backend": input.backend,
        "events": events,
        "totals": input.totals,
        "stop": input.stop.map(|s| json!({
            "reason": s.name(),
            "message": s.to_string(),
            "outcome": s.class(),
        })),
    })
}

/// `2026-02-28T21:47:00.123Z`.
fn rfc3339(ms: u64) -> String {
    let c = crate::time_text::Civil::of_unix_millis(ms);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        c.year,
        c.month,
        c.day,
        c.hour,
        c.minute,
        c.second,
        ms % 1000
    )
}

#[cfg(test)]
#[path = "payload_tests.rs"]
mod tests;
