//! Routing: which hat the next iteration runs, and with which events.

use std::collections::VecDeque;

use super::notice::Notice;
use super::{DEFAULT_HAT, EXHAUSTED_SUFFIX, Machine};
use crate::event::Event;
use crate::topic::TASK_RESUME;

/// The most characters of a dropped event's payload that `<hat>.exhausted` repeats: enough
/// to say what the hat was asked, without carrying a long hand-over twice.
const DROPPED_PAYLOAD_CHARS: usize = 200;

impl Machine {
    /// Picks the hat for the next iteration and takes its events off the queue.
    pub(super) fn select(&mut self) -> (String, Vec<Event>) {
        // Each hop drains one exhausted hat; past one hop per hat (exhausted hats
        // triggering on each other's `.exhausted`), the default hat takes over.
        let mut hops = 0;
        loop {
            if self.state.pending.is_empty() {
                self.state.pending.push_back(Event::new(TASK_RESUME));
            }
            let head = &self.state.pending[0];
            let head_says_exhausted = self.says_exhausted(head);
            let target = match self.rules.route_event(head) {
                Some(hat) if hops <= self.rules.hats.len() => Some(hat.clone()),
                Some(_) | None => None,
            };
            let Some(hat) = target else {
                let events = self.take_routed(None, hops > self.rules.hats.len());
                return (DEFAULT_HAT.to_owned(), events);
            };
            let used = self.state.activations.get(&hat.id).copied().unwrap_or(0);
            match hat.max_activations {
                // ralph's own word that a hat is used up, taken by a hat that is used up
                // too (a `*` hat takes its own): dropped again, it would reach the
                // coordinator as "dropped: <hat>.exhausted", the real topics only in a
                // quote of a quote. The coordinator gets it as it is.
                Some(max) if used >= max && head_says_exhausted => {
                    let head = self.state.pending.pop_front().into_iter();
                    let events = head.chain(self.take_routed(None, false)).collect();
                    return (DEFAULT_HAT.to_owned(), events);
                }
                Some(max) if used >= max => {
                    let dropped = self.take_routed(Some(&hat.id), false);
                    let exhausted = Event::with_text(
                        format!("{}{EXHAUSTED_SUFFIX}", hat.id),
                        format!(
                            "hat `{}` reached max_activations ({max}); dropped: {}",
                            hat.id,
                            dropped
                                .iter()
                                .map(dropped_text)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    );
                    let payloads: Vec<Option<String>> = dropped.iter().map(payload_start).collect();
                    let topics: Vec<String> = dropped.into_iter().map(|e| e.topic).collect();
                    // Seen, for `required_events`, but not counted toward stale
                    // detection: ralph's own event between an agent's repeats of one
                    // hand-over to this hat would reset the count, and the agent could
                    // hand over in vain until the iteration limit.
                    self.state.seen_topics.insert(exhausted.topic.clone());
                    self.state.pending.push_front(exhausted);
                    self.notices.push(Notice::HatExhausted {
                        hat: hat.id.clone(),
                        max_activations: max,
                        dropped: topics,
                        payloads,
                    });
                    hops += 1;
                }
                Some(_) | None => return (hat.id.clone(), self.take_routed(Some(&hat.id), false)),
            }
        }
    }

    /// The hats that used up their `max_activations`: events for them are dropped, which
    /// the coordinator's prompt says so that it stops handing work to them.
    pub fn exhausted_hats(&self) -> Vec<String> {
        let used = |id: &str| self.state.activations.get(id).copied().unwrap_or(0);
        self.rules
            .hats
            .iter()
            .filter(|h| h.max_activations.is_some_and(|max| used(&h.id) >= max))
            .map(|h| h.id.clone())
            .collect()
    }

    /// Whether `event` is a `<hat>.exhausted` for one of the run's hats: the word ralph
    /// publishes when a hat is used up.
    fn says_exhausted(&self, event: &Event) -> bool {
        (event.topic.strip_suffix(EXHAUSTED_SUFFIX)).is_some_and(|id| self.rules.hat(id).is_some())
    }

    /// Removes and returns the pending events routed to `hat` (`None`: the default
    /// hat), keeping the others in order. With `head_only`, only the first event.
    fn take_routed(&mut self, hat: Option<&str>, head_only: bool) -> Vec<Event> {
        if head_only {
            return self.state.pending.pop_front().into_iter().collect();
        }
        let pending = std::mem::take(&mut self.state.pending);
        let (taken, kept): (VecDeque<Event>, VecDeque<Event>) = pending
            .into_iter()
            .partition(|e| self.rules.route_event(e).map(|h| h.id.as_str()) == hat);
        self.state.pending = kept;
        taken.into()
    }
}

/// How `<hat>.exhausted` names one dropped event: its topic, and the start of its
/// payload on one line, so that the coordinator still learns what the hat was asked.
fn dropped_text(event: &Event) -> String {
    match payload_start(event) {
        Some(start) => format!("{} ({start})", event.topic),
        None => event.topic.clone(),
    }
}

/// The start of `event`'s payload on one line, at most [`DROPPED_PAYLOAD_CHARS`]
/// characters with `…` when cut: what `<hat>.exhausted` and the `hat_exhausted` notice
/// quote of a dropped event.
fn payload_start(event: &Event) -> Option<String> {
    let payload = event.payload_text()?;
    let line = payload.split_whitespace().collect::<Vec<_>>().join(" ");
    let start: String = line.chars().take(DROPPED_PAYLOAD_CHARS).collect();
    let cut = if start.len() < line.len() { "…" } else { "" };
    Some(format!("{start}{cut}"))
}
