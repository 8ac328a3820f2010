//! Who runs a run's agent, recorded so that the next ralph in the workspace can stop what
//! the agent left running if this ralph is killed with SIGKILL (which leaves it no
//! chance to stop anything itself).
//!
//! `runs/<id>/agent.json` exists while the loop runs: written at its start (naming this
//! ralph, whose marker every agent, gate and hook it starts carries), again at each
//! agent's spawn (adding the agent) and after its reap (naming the ralph only), and
//! removed when the loop ends. A ralph that starts in the workspace and,
//! holding the lock, still finds the file knows that the ralph it names died without
//! removing it; [`AgentRecord::leftovers`] decides what may then be stopped, from what
//! the caller read of the machine ([`Host`]). Finding and signalling the processes is the
//! supervisor's (`ralph_agent::supervise::stop_leftovers`). The file is the workspace's,
//! which anything may write: it only ever names a ralph, and the supervisor stops only
//! processes that prove they are that ralph's.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use ralph_types::ProcessIdentity;
use serde::{Deserialize, Serialize};

use super::{Durability, RunDir, replace};
use crate::fsafe::{self, Access, Links};

/// The record's file, in the run's directory.
pub const AGENT_FILE: &str = "agent.json";

/// The version of `agent.json`'s layout; a record of another version is ignored.
pub const AGENT_RECORD_FORMAT: u32 = 1;

/// The most of `agent.json` read: it holds two identities and a boot id.
const MAX_AGENT_RECORD_BYTES: u64 = 4 * 1024;

/// Who runs the run's agent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentRecord {
    pub format: u32,
    /// The boot the identities belong to (`/proc/sys/kernel/random/boot_id`): start
    /// times count from it, and a reboot ended every process.
    pub boot_id: String,
    /// The ralph process that runs the agent.
    pub ralph: ProcessIdentity,
    /// The agent once started; its pid is also its process group.
    pub agent: Option<ProcessIdentity>,
    /// The host it ran on. Containers on one node share its boot id, so a workspace
    /// restored into another pod there would otherwise pass for the same machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// What the machine says now, as far as [`AgentRecord::leftovers`] needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Host<'a> {
    /// The current boot (`None` when unknown).
    pub boot_id: Option<&'a str>,
    /// The running process that has the recorded ralph's pid now, if any.
    pub at_ralphs_pid: Option<ProcessIdentity>,
    /// This host's name (`None` when unknown).
    pub name: Option<&'a str>,
}

/// What a dead ralph may have left: processes marked as started by `ralph`, and the
/// process group of `agent`, the agent it ran last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leftovers {
    pub ralph: ProcessIdentity,
    pub agent: Option<ProcessIdentity>,
}

impl AgentRecord {
    /// A record of `ralph` (before its agent starts).
    pub fn new(boot_id: String, ralph: ProcessIdentity) -> AgentRecord {
        AgentRecord {
            format: AGENT_RECORD_FORMAT,
            boot_id,
            ralph,
            agent: None,
            host: super::this_host(),
        }
    }

    /// What may be stopped on the strength of this record, on `host`: nothing when the
    /// machine rebooted since (everything of that boot is gone) or cannot say which boot
    /// it is, when the record names another host (a workspace restored elsewhere), when
    /// the recorded ralph still runs (a copied workspace, a record naming another live
    /// ralph), or when the record is not one this version writes.
    pub fn leftovers(&self, host: &Host<'_>) -> Option<Leftovers> {
        let other_host = matches!((self.host.as_deref(), host.name), (Some(a), Some(b)) if a != b);
        let same_boot = host.boot_id == Some(self.boot_id.as_str()) && !other_host;
        let ralph_alive = host.at_ralphs_pid == Some(self.ralph);
        // pid 1 and below name init or "every process"; nothing ralph ever was.
        let plausible = self.ralph.pid > 1;
        if self.format != AGENT_RECORD_FORMAT || !same_boot || ralph_alive || !plausible {
            return None;
        }
        // An agent is started by its ralph, so never before it.
        let agent = self
            .agent
            .filter(|a| a.pid > 1 && a.start_ticks >= self.ralph.start_ticks);
        Some(Leftovers {
            ralph: self.ralph,
            agent,
        })
    }
}

impl RunDir {
    pub fn agent_record_path(&self) -> std::path::PathBuf {
        self.path.join(AGENT_FILE)
    }

    /// The record's file, to be written again and again: see [`AgentRecordFile`].
    pub fn agent_record_file(&self) -> AgentRecordFile {
        AgentRecordFile {
            path: self.agent_record_path(),
            file: None,
        }
    }

    /// Removes the record: nothing of this run's agent is left. Needs no disk space.
    pub fn clear_agent_record(&self) -> io::Result<()> {
        let path = self.agent_record_path();
        fsafe::check_ralph_dirs(&path)?;
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// The record a ralph left, if any; a damaged one is an `InvalidData` error.
    pub fn agent_record(&self) -> io::Result<Option<AgentRecord>> {
        let text = fsafe::read_to_string(
            &self.agent_record_path(),
            Links::Refuse,
            MAX_AGENT_RECORD_BYTES,
            "a run's agent record",
        );
        match text {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// Every record is padded with blanks (which JSON allows after a value) to this width,
/// so that a record replaces the one before it in place, with one write of the same
/// length: a kill cannot leave half of one there (a write within a page is whole or not
/// at all), and no new file is created for each agent. Creating a file costs hundreds of
/// microseconds on a nearly full ext4, and the record changes twice an iteration. A
/// record is about 200 bytes: two identities, a boot id and a host name (at most 64).
const AGENT_RECORD_WIDTH: usize = 1024;

/// The run's agent record, rewritten in place after its first, atomic, write.
pub struct AgentRecordFile {
    path: PathBuf,
    /// The file as this ralph wrote it first; `None` before, or after a record wider
    /// than [`AGENT_RECORD_WIDTH`] (then replaced atomically each time).
    file: Option<File>,
}

impl AgentRecordFile {
    /// Writes the record (atomic against a crash of ralph; not flushed to disk, since a
    /// power loss ends the processes it names).
    pub fn write(&mut self, record: &AgentRecord) -> io::Result<()> {
        let mut bytes = serde_json::to_vec(record).map_err(io::Error::other)?;
        let fits = bytes.len() <= AGENT_RECORD_WIDTH;
        if fits {
            bytes.resize(AGENT_RECORD_WIDTH, b' ');
            if let Some(file) = &self.file {
                return file.write_all_at(&bytes, 0);
            }
        }
        self.file = None;
        replace(&self.path, &bytes, Durability::Atomic)?;
        // Not kept open, the next record is written as this one was: still correct.
        self.file = fits
            .then(|| fsafe::open(&self.path, Access::new().write(true), Links::Refuse).ok())
            .flatten();
        Ok(())
    }
}

#[cfg(test)]
#[path = "leftovers_tests.rs"]
mod tests;
