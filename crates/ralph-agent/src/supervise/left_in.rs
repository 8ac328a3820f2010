//! What a killed ralph's agent left running in a directory about to be deleted, found by
//! where it works rather than by ralph's marks.
//!
//! A process that left the agent's group and session and cleared its environment
//! (`env -i setsid …`) carries nothing that leads back to the ralph that started it once
//! that ralph is dead (a live ralph adopts it as the subreaper). When the directory it
//! works in is about to be deleted (`ralph runs rm` of a worktree loop killed with
//! `kill -9`), that directory is the lead: left running, it would go on in a directory
//! that is gone. Taken are only the processes that
//! - work in the directory: their current directory or root is inside it;
//! - belong to this user;
//! - have no controlling terminal: a shell or an editor the user opened there has one,
//!   what an agent detached has none;
//! - started no earlier than the dead ralph.
//!
//! Their children are not taken for theirs unless they work there too: a server started
//! there (a terminal multiplexer's) would otherwise take the user's shells with it.

//!
//! One may still be the user's own: a terminal multiplexer's server started there while
//! the loop ran has no terminal either. Nothing ties it to the loop or sets it apart (the
//! dead ralph's time of death is not known, so neither is when its agent last started
//! anything), so each process found this way is named before it is stopped
//! ([`FoundThere`]), for the user to know what went and why.

use std::collections::BTreeSet;
use std::fmt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::survivors::{command_name, write_named};
use super::tree::ProcStat;

/// At most this many processes found working in the directory are named; the rest are
/// counted.
pub const FOUND_THERE_NAMED: usize = 5;

/// A directory about to be deleted, and who is told of the processes found working
/// there by nothing but that ([`FoundThere`]) before they are stopped.
pub struct Deleting<'a> {
    pub dir: &'a Path,
    pub tell: &'a mut dyn FnMut(&FoundThere),
}

/// The processes found working in a directory about to be deleted that nothing else
/// ties to the dead ralph, about to be stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundThere {
    /// The directory (resolved).
    pub dir: PathBuf,
    /// Each one's pid and command name (empty when it could not be read).
    pub processes: Vec<(i32, String)>,
}

impl FoundThere {
    pub(crate) fn new(dir: &Path, pids: &BTreeSet<i32>) -> FoundThere {
        FoundThere {
            dir: dir.to_path_buf(),
            processes: pids.iter().map(|&pid| (pid, command_name(pid))).collect(),
        }
    }
}

impl fmt::Display for FoundThere {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.processes.len();
        let (these, work, them) = match count {
            1 => ("1 process".to_owned(), "works", "it"),
            _ => (format!("{count} processes"), "work", "them"),
        };
        write!(
            f,
            "stopping {these} that {work} in `{}` (about to be deleted), started since the \
             killed ralph and without a terminal, though nothing else ties {them} to it: ",
            self.dir.display()
        )?;
        write_named(f, &self.processes, FOUND_THERE_NAMED)
    }
}

/// The links of `/proc/<pid>` that say where a process works.
const WHERE_IT_WORKS: [&str; 2] = ["cwd", "root"];

/// The processes among `stats` that work inside `dir` (resolved), as the module says.
pub(crate) fn working_in(dir: &Path, stats: &[ProcStat], not_before: u64) -> BTreeSet<i32> {
    // Read as the others' are: `/proc/self` is owned by this process's user.
    let Some(me) = owner("self") else {
        return BTreeSet::new();
    };
    stats
        .iter()
        .filter(|s| s.start_ticks >= not_before && s.tty_nr == 0 && !s.is_dead())
        .filter(|s| owner(&s.pid.to_string()) == Some(me))
        .filter(|s| works_in(s.pid, dir))
        .map(|s| s.pid)
        .collect()
}

/// The user a process runs as (its `/proc` directory's owner); `pid` may be `self`.
fn owner(pid: &str) -> Option<u32> {
    std::fs::metadata(format!("/proc/{pid}"))
        .ok()
        .map(|m| m.uid())
}

/// Whether the current directory or the root of `pid` is inside `dir`.
fn works_in(pid: i32, dir: &Path) -> bool {
    WHERE_IT_WORKS.iter().any(|link| {
        std::fs::read_link(format!("/proc/{pid}/{link}")).is_ok_and(|path| path.starts_with(dir))
    })
}

#[cfg(test)]
#[path = "left_in_tests.rs"]
mod tests;
