//! Finding every process an agent started, through `/proc` (Linux).
//!
//! Three nets, because agents escape in three ways:
//! - the agent's process group (`pgid` = agent pid) catches ordinary children and
//!   background jobs, even after the agent itself exited;
//! - the parent chain (a process whose parent is a member is a member) catches children
//!   that moved to another group or session (`setsid`, pi's detached bash tool) while
//!   their parent lives;
//! - ralph is made a child subreaper, so orphans of the agent's tree are reparented to
//!   ralph instead of init; an orphan that left the group is recognised by the marker
//!   variable every agent run gets in its environment ([`MARKER_VAR`]), or, when it has
//!   none of this ralph's markers (it cleared its environment: `env -i`), by being a child
//!   of ralph that ralph did not start (the `own_children` module) and that started after
//!   the agent.
//!
//! Only processes that started no earlier than the agent count (by their start time: the
//! pid counter may wrap around during a long run, so a member's pid can be anywhere
//! relative to the agent's). A look reads every process's `stat`, so a teardown first
//! makes sure there can be anything to find (`nothing_can_be_left`), which is how most
//! iterations end.
//!
//! Each live look also reaps the adopted orphans that already exited (zombies: children
//! of ralph it did not start, so no wait of ralph's is for them), whichever run they came
//! from, as the `orphans` module does between looks.
//!
//! Not caught: a process that escaped the group, then cleared or replaced its
//! environment, and whose parent outlives the look; and, when several runs go on at once,
//! an orphan without a marker is taken by the first run that looks (it is still stopped).
//!
//! The same nets, tightened, find what a ralph killed with SIGKILL left behind
//! ([`AgentTree::stale`]): its orphans were reparented elsewhere, so only a process that
//! carries the dead ralph's marker and started after it counts, its group only once such a
//! process (or the recorded agent itself, by pid and start time) proves the group is the
//! agent's, and then their descendants. A reused pid or group id alone proves nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Once;

use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::{Pid, getpid};
use ralph_types::ProcessIdentity;

use super::left_in;
use super::orphans::{self, Ralph};
use super::own_children;

/// The environment variable that marks every process of one agent run.
pub(crate) use ralph_types::env::AGENT_RUN as MARKER_VAR;

/// The fields of `/proc/<pid>/stat` ralph needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ProcStat {
    pub(crate) pid: i32,
    pub(crate) ppid: i32,
    pub(crate) pgid: i32,
    pub(crate) state: u8,
    /// The controlling terminal (field 7): 0 for none.
    pub(crate) tty_nr: i32,
    /// Clock ticks since boot when the process started (field 22).
    pub(crate) start_ticks: u64,
}

/// Fields between the controlling terminal (field 7) and the start time (field 22).
const FIELDS_BEFORE_START: usize = 22 - 7 - 1;

impl ProcStat {
    pub(crate) fn is_dead(&self) -> bool {
        matches!(self.state, b'Z' | b'X' | b'x')
    }
}

/// Parses `/proc/<pid>/stat`. The command name may contain spaces and `)`, so fields are
/// read after the last `)`.
pub(crate) fn parse_stat(pid: i32, data: &[u8]) -> Option<ProcStat> {
    let close = memchr::memrchr(b')', data)?;
    let mut fields = data[close + 1..]
        .split(|b| *b == b' ')
        .filter(|f| !f.is_empty());
    let state = *fields.next()?.first()?;
    let mut number = || -> Option<i32> { std::str::from_utf8(fields.next()?).ok()?.parse().ok() };
    let ppid = number()?;
    let pgid = number()?;
    let _session = number()?;
    let tty_nr = number()?;
    let start_ticks = std::str::from_utf8(fields.nth(FIELDS_BEFORE_START)?)
        .ok()?
        .parse()
        .ok()?;
    Some(ProcStat {
        pid,
        ppid,
        pgid,
        state,
        tty_nr,
        start_ticks,
    })
}

pub(crate) fn read_stat(pid: i32) -> Option<ProcStat> {
    let data = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(pid, &data)
}

/// True when `pid` no longer runs (gone, or a zombie waiting to be reaped).
pub(crate) fn is_gone(pid: i32) -> bool {
    read_stat(pid).is_none_or(|s| s.is_dead())
}

/// The running (not zombie) process that has `pid` now, if any.
pub(crate) fn identity_of(pid: i32) -> Option<ProcessIdentity> {
    read_stat(pid)
        .filter(|s| !s.is_dead())
        .map(|s| ProcessIdentity {
            pid,
            start_ticks: s.start_ticks,
        })
}

/// Makes ralph a child subreaper, once per process: orphans of agent trees are
/// reparented to ralph, where [`AgentTree`] finds and reaps them. Best effort.
pub(crate) fn become_subreaper() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        #[cfg(target_os = "linux")]
        {
            let _ = nix::sys::prctl::set_child_subreaper(true);
        }
    });
}

/// Every pid listed in `/proc`.
pub(crate) fn all_pids() -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

/// Whose processes a tree gathers.
#[derive(Clone, Debug)]
enum Reach {
    /// This ralph's own run: the agent's group, the agent's descendants, and orphans ralph
    /// adopted that carry the run's marker; all started at or after `not_before`, the
    /// agent's start.
    Live { not_before: u64 },
    /// What a dead ralph left: processes that carry its marker and started no earlier than
    /// `not_before`, the recorded group once proven the agent's, and their descendants.
    Stale {
        not_before: u64,
        /// The recorded agent (the group's leader), if one was recorded.
        leader: Option<ProcessIdentity>,
        /// Set once a member proved that the group is the agent's.
        group_proven: bool,
        /// A directory (resolved) about to be deleted: what works in it counts too (see
        /// the `left_in` module).
        inside: Option<PathBuf>,
    },
}

/// One agent run's processes.
#[derive(Clone, Debug)]
pub(crate) struct AgentTree {
    agent_pid: i32,
    pgid: i32,
    reach: Reach,
    /// `\0RALPH_AGENT_RUN=<token>\0` (a live run) or `\0RALPH_AGENT_RUN=<owner>-` (every run
    /// of a dead ralph), searched in `/proc/<pid>/environ`.
    needle: Vec<u8>,
    /// `\0RALPH_AGENT_RUN=<owner>-`: the marker of any run of this ralph (a live run), which
    /// says that an orphan carrying it but not `needle` is another run's.
    any_run: Vec<u8>,
    /// Pids currently believed to belong to the run (the agent itself excluded).
    known: BTreeSet<i32>,
    /// Those of [`AgentTree::known`] found only by working in the directory about to be
    /// deleted (a dead ralph's tree; see the `left_in` module).
    found_there: BTreeSet<i32>,
    /// Every pid ever signalled, for the outcome's count.
    seen: BTreeSet<i32>,
}

impl AgentTree {
    /// The tree of the running agent `agent_pid` (ralph's child, not yet reaped: its start
    /// time is read now), whose group is `pgid` and whose marker holds `token`.
    pub(crate) fn new(agent_pid: i32, pgid: i32, token: &str) -> AgentTree {
        let mut needle = marker_needle(token);
        needle.push(0);
        let owner = token.rsplit_once('-').map_or(token, |(owner, _)| owner);
        let mut any_run = marker_needle(owner);
        any_run.push(b'-');
        // Unreadable: every process is looked at, as before the agent existed.
        let not_before = read_stat(agent_pid).map_or(0, |s| s.start_ticks);
        AgentTree {
            agent_pid,
            pgid,
            reach: Reach::Live { not_before },
            needle,
            any_run,
            known: BTreeSet::new(),
            found_there: BTreeSet::new(),
            seen: BTreeSet::new(),
        }
    }

    /// What a dead ralph's agents left: processes marked with a token of `owner` (see
    /// `ralph_types::env::agent_run_owner`) that started at or after `not_before` ticks,
    /// and the group of `leader`, the agent that ran last, once it is proven to be that;
    /// with `inside`, what works in that directory too (see the `left_in` module).
    pub(crate) fn stale(
        owner: &str,
        not_before: u64,
        leader: Option<ProcessIdentity>,
        inside: Option<&Path>,
    ) -> AgentTree {
        let mut needle = marker_needle(owner);
        needle.push(b'-');
        AgentTree {
            // No agent of this ralph runs: nothing is taken for one by its pid.
            agent_pid: 0,
            pgid: leader.map_or(0, |l| l.pid),
            reach: Reach::Stale {
                not_before,
                leader,
                group_proven: false,
                // Unresolvable (gone already): nothing can work in it.
                inside: inside.and_then(|dir| dir.canonicalize().ok()),
            },
            any_run: needle.clone(),
            needle,
            known: BTreeSet::new(),
            found_there: BTreeSet::new(),
            seen: BTreeSet::new(),
        }
    }

    pub(crate) fn pgid(&self) -> i32 {
        self.pgid
    }

    /// The process group a stop signals: always the agent's in a live run; a dead
    /// ralph's only once proven its agent's.
    pub(crate) fn group(&self) -> Option<i32> {
        match self.reach {
            Reach::Live { .. } => Some(self.pgid),
            Reach::Stale { group_proven, .. } => group_proven.then_some(self.pgid),
        }
    }

    pub(crate) fn known(&self) -> &BTreeSet<i32> {
        &self.known
    }

    /// Of [`AgentTree::known`], those found only by where they work, and that directory.
    pub(crate) fn found_there(&self) -> Option<(&Path, &BTreeSet<i32>)> {
        match &self.reach {
            Reach::Stale {
                inside: Some(dir), ..
            } => Some((dir, &self.found_there)),
            _ => None,
        }
    }

    /// Records that every known process was just signalled.
    pub(crate) fn note_signalled(&mut self) {
        self.seen.extend(self.known.iter().copied());
    }

    /// How many distinct processes besides the agent were ever signalled.
    pub(crate) fn signalled_count(&self) -> usize {
        self.seen.len()
    }

    fn carries_marker(&self, pid: i32) -> bool {
        carries(&self.needle, pid)
    }

    /// Adds every process that currently belongs to the run to the known set.
    pub(crate) fn collect(&mut self) {
        if let Reach::Stale { .. } = self.reach {
            self.collect_stale();
            return;
        }
        if self.known.is_empty() && nothing_can_be_left(self.pgid) {
            return;
        }
        let (needle, any_run) = (self.needle.clone(), self.any_run.clone());
        orphans::look(|stats, ralph| {
            self.collect_among(stats, ralph, |pid| Mark::of(pid, &needle, &any_run));
        });
    }

    /// [`collect`](Self::collect) of a live run from `stats`, every process there is, as
    /// seen by `ralph`; `mark` tells which marker a process carries.
    fn collect_among(&mut self, stats: &[ProcStat], ralph: &Ralph<'_>, mark: impl Fn(i32) -> Mark) {
        let Reach::Live { not_before } = self.reach else {
            return;
        };
        let stats: Vec<ProcStat> = stats
            .iter()
            .filter(|s| s.pid != self.agent_pid && s.start_ticks >= not_before)
            .copied()
            .collect();
        let mut members: BTreeSet<i32> = self.known.clone();
        members.insert(self.agent_pid);
        for s in &stats {
            let adopted_escapee = s.ppid == ralph.pid
                && s.pgid != self.pgid
                && match mark(s.pid) {
                    Mark::ThisRun => true,
                    Mark::OtherRun => false,
                    // A child of ralph that ralph did not start, nor its job.
                    Mark::None => !ralph.started.contains(&s.pid) && s.pgid != ralph.group,
                };
            if s.pgid == self.pgid || adopted_escapee {
                members.insert(s.pid);
            }
        }
        close_over_children(&mut members, &stats);
        members.remove(&self.agent_pid);
        self.known = members;
    }

    /// [`collect`](Self::collect) for a dead ralph's leftovers: every process is read
    /// (they may be days old, past a pid wrap-around), and the known set is rebuilt from
    /// proof each time rather than kept.
    fn collect_stale(&mut self) {
        let Reach::Stale {
            not_before,
            leader,
            group_proven,
            ref inside,
        } = self.reach
        else {
            return;
        };
        let inside = inside.clone();
        let me = getpid().as_raw();
        let my_group = nix::unistd::getpgrp().as_raw();
        let stats: Vec<ProcStat> = all_pids()
            .into_iter()
            .filter(|&p| p != me)
            .filter_map(read_stat)
            .collect();
        // Never this ralph's own ancestry or job (a shell the dead ralph's agent left, from
        // which this ralph was started, and the pipeline around it), which the marker or
        // the group may include; nor what hangs only from those.
        let ancestors = ancestors_of(me, &stats);
        let stats: Vec<ProcStat> = stats
            .into_iter()
            .filter(|s| !ancestors.contains(&s.pid) && s.pgid != my_group)
            .collect();
        let mut members: BTreeSet<i32> = stats
            .iter()
            .filter(|s| s.start_ticks >= not_before && self.carries_marker(s.pid))
            .map(|s| s.pid)
            .collect();
        let proven = group_proven
            || leader.is_some_and(|leader| {
                stats.iter().any(|s| {
                    let is_leader = s.pid == leader.pid && s.start_ticks == leader.start_ticks;
                    is_leader || (s.pgid == leader.pid && members.contains(&s.pid))
                })
            });
        if proven {
            members.extend(stats.iter().filter(|s| s.pgid == self.pgid).map(|s| s.pid));
        }
        close_over_children(&mut members, &stats);
        // After the closure: their children are not taken for theirs.
        let mut there = BTreeSet::new();
        if let Some(dir) = &inside {
            there = left_in::working_in(dir, &stats, not_before);
            there.retain(|pid| members.insert(*pid));
        }
        // A zombie proves a group, but is nothing to stop: its reaper is another's.
        members.retain(|pid| stats.iter().any(|s| s.pid == *pid && !s.is_dead()));
        there.retain(|pid| members.contains(pid));
        self.found_there = there;
        self.reach = Reach::Stale {
            not_before,
            leader,
            group_proven: proven,
            inside,
        };
        self.known = members;
    }

    /// Reaps known processes that are ralph's children (adopted orphans). Never the agent
    /// itself: its status belongs to the supervisor's `wait`.
    pub(crate) fn reap_adopted(&mut self) {
        let started = own_children::started();
        self.known.retain(|&pid| {
            if started.contains(&pid) {
                // Its status is for the wait of whoever started it.
                return read_stat(pid).is_some();
            }
            match waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) => true,
                Ok(_) => false,
                // Not ralph's child (yet): keep it while it exists at all. A zombie
                // grandchild whose parent is still dying is reparented to ralph a moment
                // later, and must then be reaped here, not forgotten.
                Err(_) => read_stat(pid).is_some(),
            }
        });
    }

    /// True while any known process runs, or (in a live run) the group still has
    /// members. A dead ralph's group is read member by member at each collect instead:
    /// its zombies belong to another reaper, which may take its time.
    pub(crate) fn anything_alive(&self) -> bool {
        let group_alive = match self.reach {
            Reach::Live { .. } => super::signal::group_exists(self.pgid),
            Reach::Stale { .. } => false,
        };
        group_alive || self.known.iter().any(|&p| !is_gone(p))
    }
}

/// True when a live run's tree is surely empty without reading `/proc`: its group has
/// no process left (not even a zombie) and ralph has no child at all. That is how most
/// iterations end, and listing `/proc` was most of their teardown (a tenth of the loop's
/// own CPU time, more on a machine with many processes).
///
/// Sound because every process of the tree has a parent chain that ends at a member of
/// the group, or at ralph: a process that left the group hangs from its parent while that
/// lives, and an orphan is reparented to ralph, the subreaper, never skipping a living
/// ancestor of the tree. Without the subreaper (the `prctl` failed) orphans go to init,
/// where [`AgentTree::collect`]'s full look does not find them either.
#[cfg(target_os = "linux")]
fn nothing_can_be_left(pgid: i32) -> bool {
    use nix::errno::Errno;
    use nix::sys::wait::{Id, waitid};
    let group_empty = matches!(
        nix::sys::signal::killpg(Pid::from_raw(pgid), None),
        Err(Errno::ESRCH)
    );
    // ECHILD: no child, running or exited; WNOWAIT leaves any exit status unreaped.
    let flags =
        WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT | WaitPidFlag::__WALL;
    group_empty && matches!(waitid(Id::All, flags), Err(Errno::ECHILD))
}

/// Elsewhere ralph always looks.
#[cfg(not(target_os = "linux"))]
fn nothing_can_be_left(_pgid: i32) -> bool {
    false
}

/// Which of this ralph's markers a process carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    /// The marker of the run being looked at.
    ThisRun,
    /// That of another run of this ralph.
    OtherRun,
    /// None (its environment was cleared, or cannot be read: a zombie has none).
    None,
}

impl Mark {
    fn of(pid: i32, this_run: &[u8], any_run: &[u8]) -> Mark {
        let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
            return Mark::None;
        };
        let mut hay = Vec::with_capacity(env.len() + 2);
        hay.push(0);
        hay.extend_from_slice(&env);
        hay.push(0);
        if memchr::memmem::find(&hay, this_run).is_some() {
            Mark::ThisRun
        } else if memchr::memmem::find(&hay, any_run).is_some() {
            Mark::OtherRun
        } else {
            Mark::None
        }
    }
}

/// True when the environment of `pid` holds `needle` (read with a `\0` before and after).
fn carries(needle: &[u8], pid: i32) -> bool {
    let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let mut hay = Vec::with_capacity(env.len() + 2);
    hay.push(0);
    hay.extend_from_slice(&env);
    hay.push(0);
    memchr::memmem::find(&hay, needle).is_some()
}

/// `\0RALPH_AGENT_RUN=<value>`, the start of the marker in an environment block.
fn marker_needle(value: &str) -> Vec<u8> {
    let mut needle = vec![0u8];
    needle.extend_from_slice(MARKER_VAR.as_bytes());
    needle.push(b'=');
    needle.extend_from_slice(value.as_bytes());
    needle
}

/// The parent of `pid`, its parent, and so on up to init.
pub(crate) fn ancestors_of(pid: i32, stats: &[ProcStat]) -> BTreeSet<i32> {
    let mut ancestors = BTreeSet::new();
    let mut next = read_stat(pid).map(|s| s.ppid);
    while let Some(parent) = next.filter(|&p| p > 1 && ancestors.insert(p)) {
        next = stats.iter().find(|s| s.pid == parent).map(|s| s.ppid);
    }
    ancestors
}

/// Adds the children of members, and theirs, until nothing changes: a process whose
/// parent is a member is one (its parent still runs, so the pid is not a reused one).
fn close_over_children(members: &mut BTreeSet<i32>, stats: &[ProcStat]) {
    loop {
        let before = members.len();
        for s in stats {
            if members.contains(&s.ppid) {
                members.insert(s.pid);
            }
        }
        if members.len() == before {
            break;
        }
    }
}

#[cfg(test)]
#[path = "tree_tests.rs"]
mod tests;
