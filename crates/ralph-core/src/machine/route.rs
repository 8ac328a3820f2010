//! Routing: which hat the next iteration runs, and with which events.

use std::collections::VecDeque;

use super::notice::Notice;
use super::{DEFAULT_HAT, EXHAUSTED_SUFFIX, Machine};
use crate::event::Event;
use crate::topic::TASK_RESUME;

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
                Some(max) if used >= max => {
                    let dropped = self.take_routed(Some(&hat.id), false);
                    let topics: Vec<String> = dropped.into_iter().map(|e| e.topic).collect();
                    let exhausted = Event::with_text(
                        format!("{}{EXHAUSTED_SUFFIX}", hat.id),
                        format!(
                            "hat `{}` reached max_activations ({max}); dropped: {}",
                            hat.id,
                            topics.join(", ")
                        ),
                    );
                    self.record_published(&exhausted);
                    self.state.pending.push_front(exhausted);
                    self.notices.push(Notice::HatExhausted {
                        hat: hat.id.clone(),
                        max_activations: max,
                        dropped: topics,
                    });
                    hops += 1;
                }
                Some(_) | None => return (hat.id.clone(), self.take_routed(Some(&hat.id), false)),
            }
        }
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
