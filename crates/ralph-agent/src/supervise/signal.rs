//! The only place that sends signals. Refuses to signal ralph itself, its own process
//! group, its parent, or pid/pgid 0, 1 and negatives (which the kernel would read as
//! "every process I can reach"), so no bug elsewhere can turn a stop into killing ralph or
//! the user's shell (upstream ralph's Ctrl-C path `killpg`ed its own group).

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::{Pid, getpgrp, getpid, getppid};

/// A signal that was not sent because its target is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SignalError {
    #[error("refusing to signal protected target {0}")]
    Protected(i32),
    #[error("signal failed: {0}")]
    Os(Errno),
}

fn protected_group(pgid: i32) -> bool {
    pgid <= 1 || pgid == getpgrp().as_raw() || pgid == getpid().as_raw()
}

fn protected_pid(pid: i32) -> bool {
    pid <= 1 || pid == getpid().as_raw() || pid == getppid().as_raw()
}

/// Sends `signal` to every process of group `pgid` (`None` probes for existence).
pub(crate) fn signal_group(pgid: i32, signal: Option<Signal>) -> Result<(), SignalError> {
    if protected_group(pgid) {
        return Err(SignalError::Protected(pgid));
    }
    killpg(Pid::from_raw(pgid), signal).map_err(SignalError::Os)
}

/// Sends `signal` to one process (`None` probes for existence).
pub(crate) fn signal_pid(pid: i32, signal: Option<Signal>) -> Result<(), SignalError> {
    if protected_pid(pid) {
        return Err(SignalError::Protected(pid));
    }
    kill(Pid::from_raw(pid), signal).map_err(SignalError::Os)
}

/// True while group `pgid` has members (zombies included).
pub(crate) fn group_exists(pgid: i32) -> bool {
    signal_group(pgid, None).is_ok()
}

#[cfg(test)]
#[path = "signal_tests.rs"]
mod tests;
