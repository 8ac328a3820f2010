//! What waits in the queue, by the hat it would go to: what the coordinator's prompt
//! shows of other hats' work, and what a run that completes leaves unhandled.
//!
//! A run completes when its agent says the task is done, whatever waits in the queue:
//! the agent may know better (a review it no longer needs), and a run that refused to
//! complete over a queue it cannot empty would run to its limit. So the queue does not
//! hold completion back; it is only said, so that a hat's work dropped at the end is
//! never silent.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use serde::{Deserialize, Serialize};

use super::notice::Notice;
use super::{DEFAULT_HAT, Machine};

/// How many (hat, topic) groups the notice of a completion over a queue names: a script
/// could have emitted thousands of topics.
pub const QUEUED_GROUPS_SHOWN: usize = 10;

/// Events of one topic waiting for one hat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueuedEvents {
    /// The hat the events would go to ([`DEFAULT_HAT`] for those no hat triggers on).
    pub hat: String,
    pub topic: String,
    pub count: usize,
}

impl Machine {
    /// The queue, grouped by the hat each event would go to and its topic, in the order
    /// the groups first appear.
    pub fn queued_by_hat(&self) -> Vec<QueuedEvents> {
        let mut groups: Vec<QueuedEvents> = Vec::new();
        // Where each group is: a queue can hold thousands of events of as many topics.
        let mut index: HashMap<(&str, &str), usize> = HashMap::new();
        for event in &self.state.pending {
            let hat = (self.rules.route_event(event)).map_or(DEFAULT_HAT, |h| h.id.as_str());
            match index.entry((hat, event.topic.as_str())) {
                Entry::Occupied(at) => groups[*at.get()].count += 1,
                Entry::Vacant(at) => {
                    at.insert(groups.len());
                    groups.push(QueuedEvents {
                        hat: hat.to_owned(),
                        topic: event.topic.clone(),
                        count: 1,
                    });
                }
            }
        }
        groups
    }

    /// Says what the queue still holds as the run completes: no iteration will take it.
    pub(super) fn note_queue_at_completion(&mut self) {
        if self.state.pending.is_empty() {
            return;
        }
        let mut pending = self.queued_by_hat();
        pending.truncate(QUEUED_GROUPS_SHOWN);
        self.notices.push(Notice::EventsPendingAtCompletion {
            pending,
            count: self.state.pending.len(),
        });
    }
}

#[cfg(test)]
#[path = "queued_tests.rs"]
mod tests;
