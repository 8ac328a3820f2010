//! The gates' part of finishing an iteration: which events need checking, and what
//! their results change (verified events go through, refused ones are replaced by
//! `gate.failed`, a refused completion is remembered for the final verdict).

use super::completion::completion_signal;
use super::gate::{GatePlan, GateResult, Verdict, gate_failed_payload};
use super::iteration::{Iteration, IterationReport};
use super::notice::Notice;
use super::outcome::IterationOutcome;
use super::refusal::CompletionRefusal;
use super::{DEFAULT_HAT, Machine};
use crate::event::Event;
use crate::inbox::{InboxLine, from_agent};
use crate::topic::GATE_FAILED;

/// What the gates decided about an iteration's events.
#[derive(Debug, Default)]
pub(super) struct Checked {
    pub(super) verified: Vec<String>,
    pub(super) withheld: Vec<String>,
}

impl Machine {
    /// The gates `report` needs before its events are believed: for each event the
    /// iteration would publish (the agent's events, the completion signal once the
    /// required events are in, or the hat's `default_publishes`), the gates guarding it.
    /// Ask before [`Machine::finish`], run what [`GatePlan::next_gate`] says, and put the
    /// results in the report.
    pub fn gate_plan(&self, iteration: &Iteration, report: &IterationReport) -> GatePlan {
        if self.rules.gates.is_empty() {
            return GatePlan::default();
        }
        let promise = self.rules.event_loop.completion_promise.as_str();
        let events: Vec<Event> = report
            .inbox
            .iter()
            .filter_map(|line| match line {
                // Gates check what the hat's agent claims; an event from outside is
                // published as given (see `Machine::publish_outside`).
                InboxLine::Event { event, sender }
                    if from_agent(sender.as_deref(), report.agent_run.as_deref()) =>
                {
                    Some(event.clone())
                }
                InboxLine::Event { .. } | InboxLine::Invalid { .. } => None,
            })
            .chain(report.tagged().cloned())
            .collect();
        let default = self
            .rules
            .hat(&iteration.hat)
            .and_then(|h| h.default_publishes.as_deref());
        let completion = completion_signal(
            promise,
            &events,
            &report.outcome,
            report.final_text.as_deref(),
            report.final_cut_at_length,
            default,
        );
        let mut topics: Vec<&str> = events
            .iter()
            .map(|e| e.topic.as_str())
            .filter(|t| *t != promise)
            .collect();
        let default = default.filter(|_| {
            topics.is_empty()
                && completion.is_none()
                && report.outcome == IterationOutcome::Succeeded
        });
        topics.extend(default);
        // The required events and the open tasks come first: a completion they refuse
        // needs no gate.
        let required_in = self
            .rules
            .event_loop
            .required_events
            .iter()
            .all(|t| self.state.seen_topics.contains(t) || topics.contains(&t.as_str()));
        if completion.is_some() && required_in && report.unfinished_tasks.is_empty() {
            topics.push(promise);
        }
        GatePlan::new(&self.rules.gates, topics)
    }

    /// Applies the gates' results: publishes `gate.failed` for each refused event
    /// (addressed to the hat that published it, at the front of the queue) and returns
    /// which topics went through verified and which were withheld.
    pub(super) fn apply_gates(
        &mut self,
        iteration: &Iteration,
        plan: &GatePlan,
        results: &[GateResult],
    ) -> Checked {
        for result in results {
            let totals = self.state.gates.entry(result.gate.clone()).or_default();
            totals.runs += 1;
            totals.passed += u32::from(result.passed());
            totals.duration_ms += result.duration_ms;
            totals.last = Some(result.end);
            totals.last_iteration = iteration.number;
        }
        let mut checked = Checked::default();
        let mut failed = Vec::new();
        for guarded in &plan.guarded {
            let topic = guarded.topic.clone();
            match plan.verdict(&topic, results) {
                Some(Verdict::Verified) => checked.verified.push(topic),
                Some(Verdict::Refused(result)) => {
                    if topic == self.rules.event_loop.completion_promise {
                        self.state.refusal = Some(CompletionRefusal::Gate {
                            gate: result.gate.clone(),
                            end: result.end,
                            exit_code: result.exit_code,
                        });
                    }
                    failed.push((topic.clone(), result));
                    checked.withheld.push(topic);
                }
                Some(Verdict::Unchecked) => checked.withheld.push(topic),
                None => {}
            }
        }
        let to = (iteration.hat != DEFAULT_HAT).then(|| iteration.hat.clone());
        for (topic, result) in failed.into_iter().rev() {
            let command = self
                .rules
                .gates
                .iter()
                .find(|g| g.name == result.gate)
                .map_or("", |g| g.command.as_str());
            let event = Event {
                topic: GATE_FAILED.to_owned(),
                payload: Some(gate_failed_payload(result, &topic, command)),
                to: to.clone(),
            };
            // Known to `required_events`, but not counted for stale detection: the
            // agent is told why and tries again, which is progress, not a loop.
            self.state.seen_topics.insert(GATE_FAILED.to_owned());
            self.state.pending.push_front(event);
            self.notices.push(Notice::EventWithheld {
                topic,
                gate: result.gate.clone(),
                hat: iteration.hat.clone(),
            });
        }
        checked
    }
}
