//! The orphans ralph adopts as a child subreaper, reaped once they exit.
//!
//! Nobody else waits for them, and each one that exited holds a pid (and a slot of the
//! user's process limit) until it is reaped: a tool that starts short detached jobs
//! (`(cmd &)`, `setsid`) leaves one per job. They are told apart from the children ralph
//! started itself, whose statuses ralph's own waits are for, by the record of ralph's
//! starts (the `own_children` module). They are reaped at each look at a tree (a teardown,
//! a Ctrl-Z) and, while a run goes on, every [`ORPHAN_REAP_INTERVAL`].

use std::collections::BTreeSet;
use std::time::Duration;

use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::{Pid, getpgrp, getpid};

use super::own_children;
use super::tree::{ProcStat, all_pids, read_stat};

/// While a run goes on, how often the orphans that exited meanwhile are reaped. When
/// ralph has no exited child, a round costs one system call.
pub const ORPHAN_REAP_INTERVAL: Duration = Duration::from_secs(1);

/// Ralph as a look sees it.
pub(crate) struct Ralph<'a> {
    pub(crate) pid: i32,
    /// Its own process group (its job), where an interactive session runs.
    pub(crate) group: i32,
    /// The children it started and has not reaped yet.
    pub(crate) started: &'a BTreeSet<i32>,
}

/// Reads every process and hands them to `decide` with ralph as it is, after reaping the
/// orphans that exited. The record of ralph's starts is held throughout: no child of
/// ralph's is started meanwhile, so every child of ralph seen here that is not recorded is
/// an adopted orphan.
pub(crate) fn look<R>(decide: impl FnOnce(&[ProcStat], &Ralph<'_>) -> R) -> R {
    let mut started = own_children::started();
    let listed = all_pids();
    // Not listed (not even as a zombie): reaped by whoever waited for it.
    started.retain(|pid| listed.contains(pid));
    let stats: Vec<ProcStat> = listed.into_iter().filter_map(read_stat).collect();
    let ralph = Ralph {
        pid: getpid().as_raw(),
        group: getpgrp().as_raw(),
        started: &started,
    };
    reap_exited(&stats, &ralph);
    decide(&stats, &ralph)
}

/// Reaps the children of ralph that exited and that it did not start (orphans it
/// adopted, from any run), outside its own process group.
fn reap_exited(stats: &[ProcStat], ralph: &Ralph<'_>) {
    for s in stats {
        let orphan =
            s.ppid == ralph.pid && s.pgid != ralph.group && !ralph.started.contains(&s.pid);
        if orphan && s.is_dead() {
            let _ = waitpid(Pid::from_raw(s.pid), Some(WaitPidFlag::WNOHANG));
        }
    }
}

/// Reaps the orphans that exited, every [`ORPHAN_REAP_INTERVAL`]; never completes.
pub(crate) async fn reap_while_running() {
    let mut rounds = tokio::time::interval(ORPHAN_REAP_INTERVAL);
    rounds.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        rounds.tick().await;
        if has_exited_child() {
            look(|_, _| ());
        }
    }
}

/// True when ralph has a child that exited and was not reaped yet (one of its own
/// awaiting its wait, or an orphan). Reaps nothing.
#[cfg(target_os = "linux")]
fn has_exited_child() -> bool {
    use nix::sys::wait::{Id, WaitStatus, waitid};
    // WNOWAIT leaves the exit status for whoever reaps it.
    let flags =
        WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT | WaitPidFlag::__WALL;
    !matches!(waitid(Id::All, flags), Ok(WaitStatus::StillAlive) | Err(_))
}

/// Elsewhere ralph is no subreaper: nothing to reap.
#[cfg(not(target_os = "linux"))]
fn has_exited_child() -> bool {
    false
}
