//! Stopping an agent's whole tree: SIGTERM to the group and to every known process
//! outside it, a grace period, SIGKILL, and reaping until nothing is left.

use std::time::{Duration, Instant};

use nix::sys::signal::Signal;

use super::signal::{signal_group, signal_pid};
use super::stop::{StopLevel, StopRequests};
use super::tree::{AgentTree, is_gone};

/// After SIGKILL, how long ralph waits for the tree to disappear before giving up (a
/// process stuck in uninterruptible sleep cannot die sooner). Meanwhile every process of
/// the tree it finds is killed again at each look: a process that kept forking until it
/// was killed leaves children that were being started as the first SIGKILL went out.
pub const REAP_TIMEOUT: Duration = Duration::from_secs(5);
/// First pause between liveness polls while waiting for a tree to exit; doubles up to
/// [`POLL_MAX`].
const POLL_START: Duration = Duration::from_millis(2);
const POLL_MAX: Duration = Duration::from_millis(50);

/// Sends `signal` to the agent's group and to every process of its tree, after refreshing
/// the tree. `agent_pid` adds the agent itself while it runs (in case it left its group).
pub(crate) fn signal_tree(tree: &mut AgentTree, signal: Signal, agent_pid: Option<i32>) {
    tree.collect();
    signal_collected(tree, signal, agent_pid);
}

/// [`signal_tree`] without refreshing the tree first.
fn signal_collected(tree: &mut AgentTree, signal: Signal, agent_pid: Option<i32>) {
    // ESRCH (already gone) and refusals are fine here: the liveness checks decide.
    if let Some(pgid) = tree.group() {
        let _ = signal_group(pgid, Some(signal));
    }
    if let Some(pid) = agent_pid {
        let _ = signal_pid(pid, Some(signal));
    }
    for &pid in tree.known() {
        let _ = signal_pid(pid, Some(signal));
    }
    tree.note_signalled();
}

/// Waits until nothing of the tree runs, reaping adopted orphans; false at `until`, or as
/// soon as `stop` asks for an immediate stop (a second Ctrl-C: what is left is killed now,
/// not at the end of the grace). With `again`, what is found alive at each look gets that
/// signal again (those found since the last look get it for the first time).
async fn wait_until_gone(
    tree: &mut AgentTree,
    until: Instant,
    stop: &mut Option<StopRequests>,
    again: Option<Signal>,
) -> bool {
    let mut pause = POLL_START;
    loop {
        tree.collect();
        // Look before reaping: a process that dies between a reap and the look would
        // otherwise count as gone while it stays ralph's unreaped zombie.
        let alive = tree.anything_alive();
        if let (true, Some(signal)) = (alive, again) {
            signal_collected(tree, signal, None);
        }
        tree.reap_adopted();
        if !alive {
            return true;
        }
        let now = Instant::now();
        if now >= until {
            return false;
        }
        tokio::select! {
            () = tokio::time::sleep(pause.min(until - now)) => {}
            () = immediate(stop) => return false,
        }
        pause = (pause * 2).min(POLL_MAX);
    }
}

/// Completes once `stop` asks for an immediate stop; never without stop requests.
async fn immediate(stop: &mut Option<StopRequests>) {
    let Some(stop) = stop else {
        return std::future::pending().await;
    };
    while stop.current() < StopLevel::Immediate {
        stop.changed().await;
    }
}

/// Stops whatever the agent left running after the agent itself was reaped. `term_sent`
/// is when SIGTERM already went to the tree (the grace then counts from there). An
/// immediate request from `stop`, made before or during the grace, cuts the grace short:
/// the supervisor no longer takes stop requests once the agent itself was reaped, so a
/// second Ctrl-C that came then is honoured here.
///
/// Returns what still runs after SIGKILL and [`REAP_TIMEOUT`] (empty almost always).
pub(crate) async fn clean_up(
    tree: &mut AgentTree,
    term_sent: Option<Instant>,
    kill_grace: Duration,
    mut stop: Option<StopRequests>,
) -> Vec<i32> {
    tree.collect();
    let alive = tree.anything_alive();
    tree.reap_adopted();
    if !alive {
        return Vec::new();
    }
    signal_tree(tree, Signal::SIGTERM, None);
    let kill_at = term_sent.unwrap_or_else(Instant::now) + kill_grace;
    if wait_until_gone(tree, kill_at, &mut stop, None).await {
        return Vec::new();
    }
    signal_tree(tree, Signal::SIGKILL, None);
    let until = Instant::now() + REAP_TIMEOUT;
    if wait_until_gone(tree, until, &mut None, Some(Signal::SIGKILL)).await {
        return Vec::new();
    }
    tree.known()
        .iter()
        .copied()
        .filter(|&pid| !is_gone(pid))
        .collect()
}
