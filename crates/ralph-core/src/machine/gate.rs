//! Gates: commands ralph runs itself, after an iteration, before it believes an event.
//!
//! The machine decides and the shell runs. For an iteration's result the machine makes a
//! [`GatePlan`]: each event that some gate guards (the agent's events, the completion
//! signal, a hat's `default_publishes`) with its gates in declaration order. The shell
//! asks the plan for the next gate to run ([`GatePlan::next_gate`]) until it says none,
//! runs each (a gate guarding two events runs once), and hands the results back in the
//! [`IterationReport`](super::IterationReport). [`Machine::finish`](super::Machine::finish)
//! then publishes each event whose gates all passed (recorded as verified) and withholds
//! the others, publishing [`GATE_FAILED`](crate::topic::GATE_FAILED) instead, addressed to
//! the hat whose event was refused.

use serde::{Deserialize, Serialize};

use crate::config::ResolvedConfig;

/// The most lines of a failed gate's output kept for the agent and the views.
pub const GATE_OUTPUT_MAX_LINES: usize = 60;
/// The most bytes of a failed gate's output kept (the lines are cut from the front).
pub const GATE_OUTPUT_MAX_BYTES: usize = 8 * 1024;

/// One configured gate, as the machine sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateRule {
    pub name: String,
    /// The command as the user wrote it (for the agent and the views).
    pub command: String,
    /// The topics it guards.
    pub before: Vec<String>,
}

impl GateRule {
    /// The gates of `config`.
    pub fn from_config(config: &ResolvedConfig) -> Vec<GateRule> {
        config
            .gates
            .iter()
            .map(|g| GateRule {
                name: g.name.clone(),
                command: g.run.to_string(),
                before: g.before.clone(),
            })
            .collect()
    }
}

/// How a gate run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateEnd {
    /// Exit code 0.
    Passed,
    /// Any other exit code, or killed by a signal it was not sent by ralph.
    Exit,
    /// Stopped at its `timeout_seconds`.
    Timeout,
    /// Could not be started (not found, not executable).
    Spawn,
    /// Stopped by Ctrl-C: it neither passed nor failed.
    Interrupted,
    /// Stopped when the run's `max_runtime_seconds` ran out: it neither passed nor
    /// failed, and the run ends at its limit.
    RuntimeLimit,
}

impl GateEnd {
    pub fn name(self) -> &'static str {
        match self {
            GateEnd::Passed => "passed",
            GateEnd::Exit => "exit",
            GateEnd::Timeout => "timeout",
            GateEnd::Spawn => "spawn",
            GateEnd::Interrupted => "interrupted",
            GateEnd::RuntimeLimit => "runtime_limit",
        }
    }
}

/// What one gate run said. Written by hand (see its `Serialize`): `output` is there
/// whenever the gate failed, even empty.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct GateResult {
    pub gate: String,
    /// The event it was run for (the first guarded event that needed it; empty for
    /// `ralph gates`). (empty for `ralph gates`).
    pub event: String,
    /// `passed`, or why it failed: `exit`, `timeout`, `spawn` (or `interrupted`,
    /// `runtime_limit`).
    #[serde(rename = "reason")]
    pub end: GateEnd,
    /// The exit code, when it exited by itself.
    pub exit_code: Option<i32>,
    pub duration_ms: u64,
    /// The end of its output (stdout and stderr), escape sequences removed; kept when
    /// it failed (empty when it printed nothing).
    #[serde(default)]
    pub output: String,
    /// How many lines its whole output had (as many as its log has), of which `output`
    /// is the end; 0 in records written before ralph counted them.
    #[serde(default)]
    pub output_lines: u64,
    /// Its log file, relative to the workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
}

impl GateResult {
    pub fn passed(&self) -> bool {
        self.end == GateEnd::Passed
    }
}

/// `gate_finished` (and the history's record) promise `output` whenever the gate failed:
/// a gate stopped at its timeout, killed by a signal or interrupted may have printed
/// nothing, and a reader must not have to tell "nothing printed" from "passed" by a
/// missing key. A passed gate keeps none, as before. `skip_serializing_if` sees only the
/// field itself, hence this borrowed copy of the fields, in the same order.
impl Serialize for GateResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Written<'a> {
            gate: &'a str,
            event: &'a str,
            reason: GateEnd,
            exit_code: Option<i32>,
            duration_ms: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            output: Option<&'a str>,
            output_lines: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            log: Option<&'a str>,
        }
        Written {
            gate: &self.gate,
            event: &self.event,
            reason: self.end,
            exit_code: self.exit_code,
            duration_ms: self.duration_ms,
            output: (!self.passed()).then_some(self.output.as_str()),
            output_lines: self.output_lines,
            log: self.log.as_deref(),
        }
        .serialize(serializer)
    }
}

/// An event some gates guard, with those gates in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guarded {
    pub topic: String,
    pub gates: Vec<String>,
}

/// What an event's gates said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict<'a> {
    /// Every gate passed.
    Verified,
    /// This gate did not pass (the ones after it were not run).
    Refused(&'a GateResult),
    /// A gate has no result: it was not run (gates were stopped).
    Unchecked,
}

/// The gates an iteration's result needs, per guarded event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GatePlan {
    pub guarded: Vec<Guarded>,
}

impl GatePlan {
    /// The plan for `topics` (each once, in order) under `rules`.
    pub fn new<'a>(rules: &[GateRule], topics: impl IntoIterator<Item = &'a str>) -> GatePlan {
        let mut guarded: Vec<Guarded> = Vec::new();
        for topic in topics {
            if guarded.iter().any(|g| g.topic == topic) {
                continue;
            }
            let gates: Vec<String> = rules
                .iter()
                .filter(|r| r.before.iter().any(|t| t == topic))
                .map(|r| r.name.clone())
                .collect();
            if !gates.is_empty() {
                guarded.push(Guarded {
                    topic: topic.to_owned(),
                    gates,
                });
            }
        }
        GatePlan { guarded }
    }

    pub fn is_empty(&self) -> bool {
        self.guarded.is_empty()
    }

    /// The next gate to run, and the event it is run for, given the results so far;
    /// `None` once every guarded event is decided. An event's gates run in order, each
    /// only while the ones before it passed; a gate already run for another event is not
    /// run again.
    pub fn next_gate(&self, results: &[GateResult]) -> Option<(&str, &str)> {
        self.guarded.iter().find_map(|g| {
            for gate in &g.gates {
                match results.iter().find(|r| r.gate == *gate) {
                    Some(r) if r.passed() => continue,
                    Some(_) => return None,
                    None => return Some((gate.as_str(), g.topic.as_str())),
                }
            }
            None
        })
    }

    /// What `topic`'s gates said; `None` when no gate guards it.
    pub fn verdict<'r>(&self, topic: &str, results: &'r [GateResult]) -> Option<Verdict<'r>> {
        let guarded = self.guarded.iter().find(|g| g.topic == topic)?;
        for gate in &guarded.gates {
            match results.iter().find(|r| r.gate == *gate) {
                Some(r) if r.passed() => continue,
                Some(r) => return Some(Verdict::Refused(r)),
                None => return Some(Verdict::Unchecked),
            }
        }
        Some(Verdict::Verified)
    }
}

/// The payload of `gate.failed` for `result`, refusing `event`: what the agent needs to
/// fix the cause.
pub fn gate_failed_payload(result: &GateResult, event: &str, command: &str) -> serde_json::Value {
    serde_json::json!({
        "gate": result.gate,
        "event": event,
        "command": command,
        "exit_code": result.exit_code,
        "reason": result.end.name(),
        "output": result.output,
    })
}

#[cfg(test)]
#[path = "gate_tests.rs"]
mod tests;
