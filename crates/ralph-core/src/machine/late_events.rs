//! Events read from the inbox after the loop stopped: the loop reads it one last time as
//! it closes it (`crate::store::RunDir::lock_inbox`), and finds what a gate or a hook of
//! the last iteration, or a person meanwhile, published after that iteration's events
//! were read. `ralph emit` told them "published": they are not dropped unsaid.

use super::notice::Notice;
use super::{Machine, StopReason};
use crate::inbox::InboxLine;

/// How many of the late events' topics the notice names: a script could emit thousands.
const LATE_TOPICS_SHOWN: usize = 10;

impl Machine {
    /// Takes `lines`, read from the inbox once the loop has stopped. No agent runs: all
    /// are from outside. They cannot change how the run ended; a run that can be
    /// continued queues them for `--continue`, as it queues any event from outside
    /// (the promise among them dropped, with its notice), and a completed run, which
    /// cannot be, leaves them. Either way a notice names them.
    pub fn read_after_end(&mut self, lines: Vec<InboxLine>) {
        let (inbox, _invalid) = self.read_inbox(lines, None);
        let late = inbox.outside;
        if late.is_empty() {
            return;
        }
        let kept = !matches!(self.state.end, Some(StopReason::Completed { .. }));
        if kept {
            self.publish_outside(&late);
        }
        self.notices.push(Notice::EventsAfterEnd {
            topics: (late.iter().take(LATE_TOPICS_SHOWN))
                .map(|e| e.topic.clone())
                .collect(),
            count: late.len(),
            kept,
        });
    }
}

#[cfg(test)]
#[path = "late_events_tests.rs"]
mod tests;
