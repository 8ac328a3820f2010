//! What an iteration's result changes: usage totals, the invalid-line streak, and the
//! events published for the next hats (the agent's, the hat's `default_publishes`, or
//! its own input again after a failure; the gates' part is in `gate_check.rs`).

use super::iteration::{Iteration, IterationReport};
use super::notice::Notice;
use super::outcome::{CompletionSignal, IterationOutcome};
use super::spend::Spend;
use super::state::Repeat;
use super::{Machine, millis, promise_dropped};
use crate::event::Event;
use crate::inbox::{InboxLine, from_agent};
use crate::topic::TASK_RESUME;

/// An iteration's valid inbox events, by who sent them.
#[derive(Debug, Default)]
pub(super) struct Inbox {
    /// Sent by the iteration's agent (or anything it started).
    pub(super) agent: Vec<Event>,
    /// Sent by anyone else.
    pub(super) outside: Vec<Event>,
}

impl Machine {
    /// Adds the iteration's usage to the run's and the hat's totals; gives the
    /// unknown-cost notice once. An attempt that ended on a provider's limit and runs
    /// again (`runs_again`) is not one of the hat's iterations, as it is not one of the
    /// run's; what it spent still counts.
    pub(super) fn account(
        &mut self,
        iteration: &Iteration,
        report: &IterationReport,
        runs_again: bool,
    ) {
        let usage = &report.usage;
        // As `max_consecutive_failures` counts them: a provider's limit is one under
        // `on_rate_limit: fail`.
        let failed =
            report.outcome.is_failure() || self.limit_is_failure(&iteration.hat, &report.outcome);
        // Interrupted (or refused by the provider's limit) before the model answered
        // and with no tokens counted, an iteration spent nothing anyone reported: its
        // cost is not unknown, it is none. Calling it unknown made every later total
        // "at least" and gave the budget warning after a mere Ctrl-C. Once the model
        // answered, it was billed, reported or not.
        let stopped_early = matches!(
            report.outcome,
            IterationOutcome::Interrupted | IterationOutcome::RateLimited { .. }
        );
        let spent_nothing =
            stopped_early && usage.turns == 0 && usage.tokens.total() == 0 && !usage.answered;
        let spend = Spend::of(usage, spent_nothing, runs_again);
        let s = &mut self.state;
        s.spend += spend;
        let hat = s.hats.entry(iteration.hat.clone()).or_default();
        hat.iterations = hat.iterations.saturating_add(u32::from(!runs_again));
        hat.failures = hat.failures.saturating_add(u32::from(failed));
        hat.duration_ms = hat.duration_ms.saturating_add(millis(report.duration));
        hat.spend += spend;
        let unpriced = spend.unpriced_iterations > 0;
        if unpriced && self.rules.event_loop.max_cost_usd.is_some() && !s.cost_notice_given {
            s.cost_notice_given = true;
            self.notices.push(Notice::CostUnknown {
                backend: report.backend.clone(),
            });
        }
    }

    /// The valid events, in order, split into the agent's (sent by `agent_run`) and
    /// those from outside, and the number of invalid lines; tracks the streak of invalid
    /// lines.
    pub(super) fn read_inbox(
        &mut self,
        lines: Vec<InboxLine>,
        agent_run: Option<&str>,
    ) -> (Inbox, u32) {
        let mut inbox = Inbox::default();
        let mut invalid = 0;
        for line in lines {
            match line {
                InboxLine::Event { event, sender } => {
                    self.state.consecutive_invalid_lines = 0;
                    if from_agent(sender.as_deref(), agent_run) {
                        inbox.agent.push(event);
                    } else {
                        inbox.outside.push(event);
                    }
                }
                InboxLine::Invalid { error, excerpt } => {
                    self.state.consecutive_invalid_lines =
                        self.state.consecutive_invalid_lines.saturating_add(1);
                    invalid += 1;
                    self.notices.push(Notice::InvalidLine { error, excerpt });
                }
            }
        }
        (inbox, invalid)
    }

    /// Publishes the events that came from outside the iteration's agent: each goes to
    /// the hat that triggers on it, as the agent's would, so a person can still steer the
    /// loop with `ralph emit`. They are not the hat's: its hand-over, its default topic
    /// and its completion are judged on its agent's events alone. The completion promise
    /// from outside is dropped with a notice: a run completes when its agent says so.
    pub(super) fn publish_outside(&mut self, outside: &[Event]) {
        let promise = &self.rules.event_loop.completion_promise;
        for event in outside {
            if event.topic == *promise {
                self.notices.push(Notice::PromiseFromOutside {
                    promise: promise.clone(),
                });
                continue;
            }
            // Seen, for `required_events`; not counted toward stale detection, which
            // watches the agents repeating themselves.
            self.state.seen_topics.insert(event.topic.clone());
            self.state.pending.push_back(event.clone());
        }
    }

    /// Publishes what the iteration produced; returns the default topic published for
    /// the hat (its `default_publishes`, `default`), if any.
    pub(super) fn publish(
        &mut self,
        iteration: &Iteration,
        events: &[Event],
        outcome: &IterationOutcome,
        completion: Option<CompletionSignal>,
        held_back: bool,
        default: Option<String>,
    ) -> Option<String> {
        let promise = self.rules.event_loop.completion_promise.clone();
        let last = events.len().checked_sub(1);
        let mut published = 0;
        for (i, event) in events.iter().enumerate() {
            if event.topic == promise {
                if Some(i) != last {
                    self.notices.push(Notice::PromiseNotLast {
                        promise: promise.clone(),
                    });
                } else if completion == Some(CompletionSignal::Event) {
                    // The completion signal itself: counted for stale detection (an
                    // agent repeating a refused promise is stuck), never routed.
                    self.record_published(event);
                } else if let Some(dropped) = promise_dropped(&promise, outcome) {
                    // The attempt failed, or a limit cut it short; the run may go on: say
                    // why the promise the agent saw itself give did not count.
                    self.notices.push(dropped);
                }
                // Last, but the iteration did not succeed (interrupted: the run stops, and
                // its reason says enough): nothing followed the promise.
                continue;
            }
            self.record_published(event);
            self.state.pending.push_back(event.clone());
            published += 1;
        }
        if completion == Some(CompletionSignal::DefaultPublishes) {
            // Published for the hat, as a signal: counted, never routed.
            return default.map(|topic| self.publish_default(&iteration.hat, topic, false));
        }
        // A gate held an event back: the hat did hand over, and `gate.failed` goes out
        // in its place, so neither its default topic nor its input is published again.
        if published > 0 || completion.is_some() || held_back {
            return None;
        }
        match outcome {
            IterationOutcome::Succeeded => {
                default.map(|topic| self.publish_default(&iteration.hat, topic, true))
            }
            IterationOutcome::Failed { .. }
            | IterationOutcome::StoppedAtCostLimit
            | IterationOutcome::StoppedAtRuntimeLimit
            | IterationOutcome::Interrupted
            | IterationOutcome::RateLimited { .. } => {
                // The hat did not hand over: it gets its events again.
                let requeue: Vec<Event> = iteration
                    .events
                    .iter()
                    .filter(|e| e.topic != TASK_RESUME || e.payload.is_some())
                    .cloned()
                    .collect();
                // Stopped by the user, the hat spent nothing of its turns: as for an
                // iteration a hook kept from running, its activation is not counted, so
                // `--continue` gives it its events again even at `max_activations`.
                if *outcome == IterationOutcome::Interrupted
                    && let Some(n) = self.state.activations.get_mut(&iteration.hat)
                {
                    *n = n.saturating_sub(1);
                }
                // A provider's limit is not the hat failing to hand over: the footer
                // already says the attempt was limited, and it runs again as it was. Nor
                // is the user's Ctrl-C: the run stops there, its end says so and how to
                // resume, and `--continue` shows the hat starting again with its events.
                let limited = matches!(
                    outcome,
                    IterationOutcome::RateLimited { .. } | IterationOutcome::Interrupted
                );
                // A hat that used its last activation will not get them: the
                // `hat_exhausted` notice of the next iteration says where they go.
                let used = self.state.activations.get(&iteration.hat).copied();
                let spent = (self.rules.hats.iter())
                    .find(|h| h.id == iteration.hat)
                    .and_then(|h| h.max_activations)
                    .is_some_and(|max| used.unwrap_or(0) >= max);
                if !requeue.is_empty() && !limited && !spent {
                    self.notices.push(Notice::EventsRequeued {
                        hat: iteration.hat.clone(),
                        topics: requeue.iter().map(|e| e.topic.clone()).collect(),
                    });
                }
                for event in requeue.into_iter().rev() {
                    self.state.pending.push_front(event);
                }
                None
            }
        }
    }

    /// Publishes `topic`, the `default_publishes` of `hat`, for it, routed to the next hat
    /// when `routed` (not when it is the completion signal).
    fn publish_default(&mut self, hat: &str, topic: String, routed: bool) -> String {
        let event = Event::new(topic.clone());
        self.record_published(&event);
        if routed {
            self.state.pending.push_back(event);
        }
        self.notices.push(Notice::DefaultPublished {
            hat: hat.to_owned(),
            topic: topic.clone(),
        });
        topic
    }

    pub(super) fn record_published(&mut self, event: &Event) {
        self.state.seen_topics.insert(event.topic.clone());
        match &mut self.state.last_published {
            Some(repeat) if repeat.event == *event => repeat.count = repeat.count.saturating_add(1),
            other => {
                *other = Some(Repeat {
                    event: event.clone(),
                    count: 1,
                })
            }
        }
    }
}
