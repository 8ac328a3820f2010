//! What a ralph killed with SIGKILL left running, found and stopped by the next ralph in
//! the workspace.
//!
//! A SIGKILLed ralph cannot stop anything: its agent dies of the death signal, but what
//! the agent started is reparented elsewhere and goes on. The run shell records who ran
//! the agent ([`own_identity`]) and the agent itself before and at each spawn; the next
//! ralph, holding the workspace lock, lets the core decide from that record whether the
//! recorder is dead, and then calls [`stop_leftovers`], which stops what is provably
//! the dead ralph's through the same tree and teardown as a live run's leftovers (see
//! the `tree` module for the proof it asks of each process). Before a directory the dead
//! ralph's agent worked in is deleted, what works in it is stopped too, marked or not
//! (the `left_in` module).

use std::time::Duration;

use ralph_types::ProcessIdentity;
use ralph_types::env::agent_run_owner;

use super::left_in::{Deleting, FoundThere};
use super::teardown::clean_up;
use super::tree::{AgentTree, identity_of as proc_identity, is_gone};

/// How long leftovers get between SIGTERM and SIGKILL: short, since they were already
/// orphaned and nobody waits for what they write.
pub const LEFTOVER_KILL_GRACE: Duration = Duration::from_secs(2);

/// Where the kernel names the current boot; start times count from it.
const BOOT_ID_PATH: &str = "/proc/sys/kernel/random/boot_id";

/// Most of the boot id read (a UUID and a newline).
const BOOT_ID_MAX_BYTES: usize = 64;

/// What [`stop_leftovers`] found and did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoppedLeftovers {
    /// Processes that were signalled and are gone.
    pub stopped: usize,
    /// Processes still running after SIGKILL and the reap timeout (uninterruptible
    /// sleep).
    pub survivors: usize,
}

/// This ralph process, as the record names it (`None` where `/proc` cannot tell).
pub fn own_identity() -> Option<ProcessIdentity> {
    proc_identity(nix::unistd::getpid().as_raw())
}

/// The running process that has `pid` now (`None` if there is none, or only a zombie).
pub fn identity_of(pid: i32) -> Option<ProcessIdentity> {
    proc_identity(pid)
}

/// The id of the current boot (`None` where the kernel does not say).
pub fn boot_id() -> Option<String> {
    let text = std::fs::read(BOOT_ID_PATH).ok()?;
    let text = String::from_utf8(text.into_iter().take(BOOT_ID_MAX_BYTES).collect()).ok()?;
    Some(text.trim().to_owned()).filter(|t| !t.is_empty())
}

/// Stops what the dead ralph `owner` left running: SIGTERM, [`LEFTOVER_KILL_GRACE`] (or
/// `kill_grace`), SIGKILL. `agent` is the agent it ran last, whose process group is
/// stopped too once proven to be that agent's. With `deleting`, a directory about to be
/// deleted, the processes of this user without a terminal that started after `owner`
/// and work inside it are stopped too: nothing else may lead to one that cleared its
/// environment; those nothing else led to are told first (`deleting.tell`). Call it only
/// for an `owner` that is dead (the core decides); processes of a live ralph are never
/// looked at by anyone else.
pub async fn stop_leftovers(
    owner: ProcessIdentity,
    agent: Option<ProcessIdentity>,
    kill_grace: Duration,
    deleting: Option<Deleting<'_>>,
) -> StoppedLeftovers {
    let owner_marker = agent_run_owner(owner);
    let dir = deleting.as_ref().map(|d| d.dir);
    let mut tree = AgentTree::stale(&owner_marker, owner.start_ticks, agent, dir);
    if let Some(deleting) = deleting {
        // Looked at once before anything is signalled, to name them first.
        tree.collect();
        if let Some((dir, there)) = tree.found_there()
            && !there.is_empty()
        {
            (deleting.tell)(&FoundThere::new(dir, there));
        }
    }
    clean_up(&mut tree, None, kill_grace, None).await;
    tree.collect();
    let survivors = tree.known().iter().filter(|&&pid| !is_gone(pid)).count();
    StoppedLeftovers {
        stopped: tree.signalled_count().saturating_sub(survivors),
        survivors,
    }
}

#[cfg(test)]
#[path = "leftovers_tests.rs"]
mod tests;
