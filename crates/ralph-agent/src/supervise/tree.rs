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
//!   variable every agent run gets in its environment ([`MARKER_VAR`]).
//!
//! Only processes created after the agent are read (pids since the agent's, using the
//! kernel's last allocated pid to handle wrap-around), so a teardown with nothing left
//! costs a directory listing, not a read of every process on the machine.
//!
//! Not caught: a process that escaped the group and cleared or replaced its environment
//! after its parent died; and a detached orphan that exits before it is ever seen stays a
//! zombie child of ralph until ralph exits (reaping unknown children could steal another
//! part of ralph's exit statuses).

use std::collections::BTreeSet;
use std::sync::Once;

use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::{Pid, getpid};

/// The environment variable that marks every process of one agent run.
pub(crate) use ralph_types::env::AGENT_RUN as MARKER_VAR;

/// The fields of `/proc/<pid>/stat` ralph needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ProcStat {
    pub(crate) pid: i32,
    pub(crate) ppid: i32,
    pub(crate) pgid: i32,
    pub(crate) state: u8,
}

impl ProcStat {
    fn is_dead(&self) -> bool {
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
    Some(ProcStat {
        pid,
        ppid,
        pgid,
        state,
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

/// Pids listed in `/proc` that were allocated after `since` (all pids when the kernel's
/// last pid is unknown).
fn pids_created_after(since: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let listed: Vec<i32> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    // Read after listing, so every listed pid is covered by the range.
    let last: Option<i32> = std::fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .ok()
        .and_then(|s| s.trim().parse().ok());
    listed
        .into_iter()
        .filter(|&p| match last {
            Some(last) if last >= since => p > since && p <= last,
            // Wrapped around pid_max since the agent started.
            Some(last) => p > since || p <= last,
            None => true,
        })
        .collect()
}

/// One agent run's processes.
#[derive(Clone, Debug)]
pub(crate) struct AgentTree {
    agent_pid: i32,
    pgid: i32,
    /// `\0RALPH_AGENT_RUN=<token>\0`, searched in `/proc/<pid>/environ`.
    needle: Vec<u8>,
    /// Pids currently believed to belong to the run (the agent itself excluded).
    known: BTreeSet<i32>,
    /// Every pid ever signalled, for the outcome's count.
    seen: BTreeSet<i32>,
}

impl AgentTree {
    pub(crate) fn new(agent_pid: i32, pgid: i32, token: &str) -> AgentTree {
        let mut needle = vec![0u8];
        needle.extend_from_slice(MARKER_VAR.as_bytes());
        needle.push(b'=');
        needle.extend_from_slice(token.as_bytes());
        needle.push(0);
        AgentTree {
            agent_pid,
            pgid,
            needle,
            known: BTreeSet::new(),
            seen: BTreeSet::new(),
        }
    }

    pub(crate) fn pgid(&self) -> i32 {
        self.pgid
    }

    pub(crate) fn known(&self) -> &BTreeSet<i32> {
        &self.known
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
        let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
            return false;
        };
        let mut hay = Vec::with_capacity(env.len() + 2);
        hay.push(0);
        hay.extend_from_slice(&env);
        hay.push(0);
        memchr::memmem::find(&hay, &self.needle).is_some()
    }

    /// Adds every process that currently belongs to the run to the known set.
    pub(crate) fn collect(&mut self) {
        let me = getpid().as_raw();
        let stats: Vec<ProcStat> = pids_created_after(self.agent_pid)
            .into_iter()
            .filter(|&p| p != self.agent_pid)
            .filter_map(read_stat)
            .collect();
        let mut members: BTreeSet<i32> = self.known.clone();
        members.insert(self.agent_pid);
        for s in &stats {
            let adopted_escapee = s.ppid == me && s.pgid != self.pgid && self.carries_marker(s.pid);
            if s.pgid == self.pgid || adopted_escapee {
                members.insert(s.pid);
            }
        }
        // Close over the parent relation until nothing changes.
        loop {
            let before = members.len();
            for s in &stats {
                if members.contains(&s.ppid) {
                    members.insert(s.pid);
                }
            }
            if members.len() == before {
                break;
            }
        }
        members.remove(&self.agent_pid);
        self.known = members;
    }

    /// Reaps known processes that are ralph's children (adopted orphans). Never the agent
    /// itself: its status belongs to the supervisor's `wait`.
    pub(crate) fn reap_adopted(&mut self) {
        self.known.retain(|&pid| {
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

    /// True while any known process runs, or the group still has members.
    pub(crate) fn anything_alive(&self) -> bool {
        super::signal::group_exists(self.pgid) || self.known.iter().any(|&p| !is_gone(p))
    }
}

#[cfg(test)]
#[path = "tree_tests.rs"]
mod tests;
