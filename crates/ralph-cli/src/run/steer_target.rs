//! Where a steering message goes mid-turn: the running agent's input, while an iteration
//! runs on a backend that takes messages then. The launch code sets the slot when such an
//! agent starts and clears it when the agent ends; the steering watcher (`run/steer.rs`)
//! consults it for every message not sent with `--next`. Empty, every message is queued
//! for the next iteration's prompt.

use std::sync::{Arc, Mutex};

use ralph_agent::LiveInput;

use super::lock;

/// The running agent's input for steering messages, while an iteration runs on a backend
/// that takes them mid-turn (set by the launch code, cleared when the agent ends).
pub(crate) trait SteerTarget: Send + Sync {
    /// Hands `message` to the agent now. `Ok(label)` names where it went (e.g. "pi mid-turn");
    /// `Err(())` when the agent cannot take it any more (its turn ended, its input closed):
    /// the caller then queues the message for the next iteration.
    fn deliver(&self, message: &str) -> Result<String, ()>;
}

/// pi in RPC mode and Claude Code on stream-json input: the message is queued on the
/// agent's open stdin (never blocking the watcher), refused once its turn has ended.
impl SteerTarget for LiveInput {
    fn deliver(&self, message: &str) -> Result<String, ()> {
        self.steer(message)
            .map(|()| self.target().to_owned())
            .map_err(|_| ())
    }
}

/// The slot the loop consults: the current [`SteerTarget`], if any. Cloning shares it.
#[derive(Clone, Default)]
pub(crate) struct SteerSlot(Arc<Mutex<Option<Arc<dyn SteerTarget>>>>);

impl SteerSlot {
    /// From now on, messages go to `target`.
    pub(crate) fn set(&self, target: Arc<dyn SteerTarget>) {
        *lock(&self.0) = Some(target);
    }

    /// The agent ended: messages are queued again.
    pub(crate) fn clear(&self) {
        *lock(&self.0) = None;
    }

    /// Hands `message` to the current target: where it went, or `None` when there is no
    /// target or it refused (the caller queues the message).
    pub(crate) fn deliver(&self, message: &str) -> Option<String> {
        // Cloned out of the lock: a slow target must not hold up `set` and `clear`.
        let target = lock(&self.0).clone()?;
        target.deliver(message).ok()
    }
}

impl std::fmt::Debug for SteerSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let set = lock(&self.0).is_some();
        f.debug_struct("SteerSlot").field("set", &set).finish()
    }
}
