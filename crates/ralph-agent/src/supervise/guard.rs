//! The last line of defence: if a run is dropped before its teardown finished (the
//! caller's future was cancelled, or ralph panicked and unwinds), SIGKILL the agent's
//! group and every known process of its tree. Synchronous and non-blocking, as `Drop`
//! must be; the agent itself is also killed and reaped by tokio's `kill_on_drop`.

use nix::sys::signal::Signal;

use super::teardown::signal_tree;
use super::tree::AgentTree;

pub(crate) struct KillOnDrop {
    pub(crate) tree: AgentTree,
    /// The agent's pid while it has not been reaped (signalling it later could hit a
    /// recycled pid).
    pub(crate) agent_running: Option<i32>,
    armed: bool,
}

impl KillOnDrop {
    pub(crate) fn new(tree: AgentTree, agent_pid: i32) -> KillOnDrop {
        KillOnDrop {
            tree,
            agent_running: Some(agent_pid),
            armed: true,
        }
    }

    /// Teardown completed: nothing left to kill.
    pub(crate) fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if self.armed {
            signal_tree(&mut self.tree, Signal::SIGKILL, self.agent_running);
        }
    }
}
