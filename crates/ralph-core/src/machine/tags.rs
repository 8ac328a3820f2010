//! The events an agent wrote as ralph-orchestrator's `<event>` tags in its answer (see
//! `crate::event_tag`): its own, after those it emitted, with a word that `ralph emit` is
//! the way.

use super::Machine;
use super::notice::Notice;
use crate::event::Event;
use crate::event_tag::Tag;

impl Machine {
    /// Appends the events of the accepted `tags` to `events` (the agent's, so far those
    /// of its `ralph emit`), and returns how many there were. The first accepted tag of
    /// the run says that it was read from a tag; each refused one says why.
    pub(super) fn take_tags(&mut self, tags: Vec<Tag>, events: &mut Vec<Event>) -> u32 {
        let mut taken: u32 = 0;
        for tag in tags {
            match tag {
                Ok(event) => {
                    if !self.state.tag_notice_given {
                        self.state.tag_notice_given = true;
                        self.notices.push(Notice::LegacyEventTag {
                            topic: event.topic.clone(),
                        });
                    }
                    events.push(event);
                    taken = taken.saturating_add(1);
                }
                Err(refused) => {
                    self.notices.push(Notice::EventTagIgnored {
                        topic: refused.topic,
                        reason: refused.why.to_string(),
                    });
                }
            }
        }
        taken
    }
}

#[cfg(test)]
#[path = "tags_tests.rs"]
mod tests;
