//! No orphans even after `kill -9` of ralph: the glue between the record the store keeps
//! (`ralph_core::store::AgentRecord`, what the core decides from it) and the supervisor
//! that reads `/proc` and signals (`ralph_agent::supervise::stop_leftovers`).
//!
//! While an agent may run, its run directory holds a record of this ralph and the agent
//! ([`AgentRecorder`]); it is removed once the agent and all it started are gone. A
//! ralph killed with SIGKILL cannot remove it: the next `ralph run` (or `--continue`) in
//! the workspace finds it after taking the lock and stops what is left ([`stop_stale`]).

use std::cell::Cell;

use ralph_agent::supervise::{LEFTOVER_KILL_GRACE, boot_id, identity_of, own_identity};
use ralph_core::machine::Notice;
use ralph_core::store::{AgentRecord, Host, RalphDir, RunDir};
use ralph_types::ProcessIdentity;

use crate::diagnostic::diagnostic;

/// Stops what a killed ralph's agent left running in this workspace, if anything, and
/// says so; the notice is for the run's events. Call with the workspace lock held, so
/// that the recorded ralph cannot be one that runs here now.
pub(crate) async fn stop_stale(ralph_dir: &RalphDir) -> Option<Notice> {
    // No current run (or a damaged marker, said elsewhere): no record to read.
    let run_dir = ralph_dir.current_run().ok().flatten()?;
    let record = match run_dir.agent_record() {
        Ok(record) => record?,
        Err(e) => {
            diagnostic(format_args!(
                "warning: ignored the agent record `{}`: {e}",
                run_dir.agent_record_path().display()
            ));
            let _ = run_dir.clear_agent_record();
            return None;
        }
    };
    let boot = boot_id();
    let name = ralph_core::store::this_host();
    let host = Host {
        boot_id: boot.as_deref(),
        at_ralphs_pid: identity_of(record.ralph.pid),
        name: name.as_deref(),
    };
    if host.at_ralphs_pid == Some(record.ralph) {
        // That ralph still runs (the workspace was copied while it ran): its record and
        // its processes are its own.
        return None;
    }
    let leftovers = record.leftovers(&host);
    let found = match leftovers {
        Some(l) => {
            ralph_agent::supervise::stop_leftovers(l.ralph, l.agent, LEFTOVER_KILL_GRACE).await
        }
        None => Default::default(),
    };
    let _ = run_dir.clear_agent_record();
    if found.stopped + found.survivors == 0 {
        return None;
    }
    let notice = Notice::LeftoversStopped {
        ralph_pid: record.ralph.pid,
        stopped: found.stopped,
        survivors: found.survivors,
    };
    diagnostic(format_args!("{notice}"));
    Some(notice)
}

/// Keeps the run's agent record while an agent may run.
pub(crate) struct AgentRecorder {
    /// This ralph's record; `None` where `/proc` cannot name this process or the boot.
    record: Option<AgentRecord>,
    warned: Cell<bool>,
}

impl AgentRecorder {
    pub(crate) fn for_this_process() -> AgentRecorder {
        let record = boot_id()
            .zip(own_identity())
            .map(|(boot, me)| AgentRecord::new(boot, me));
        AgentRecorder {
            record,
            warned: Cell::new(false),
        }
    }

    /// Before the spawn: names this ralph, so that even a kill right after the fork
    /// leaves a record (the agent's processes carry this ralph's marker).
    pub(crate) fn before_spawn(&self, run_dir: &RunDir) {
        if let Some(record) = &self.record {
            self.write(run_dir, record);
        }
    }

    /// At the spawn: adds the agent, whose group is then stopped too.
    pub(crate) fn at_spawn(&self, run_dir: &RunDir, agent: ProcessIdentity) {
        if let Some(record) = &self.record {
            let record = AgentRecord {
                agent: Some(agent),
                ..record.clone()
            };
            self.write(run_dir, &record);
        }
    }

    /// The agent and everything it started are gone: nothing to record.
    pub(crate) fn after_reap(&self, run_dir: &RunDir) {
        if self.record.is_some()
            && let Err(e) = run_dir.clear_agent_record()
        {
            self.warn(run_dir, &e);
        }
    }

    fn write(&self, run_dir: &RunDir, record: &AgentRecord) {
        if let Err(e) = run_dir.record_agent(record) {
            self.warn(run_dir, &e);
        }
    }

    /// Once per run: a record that cannot be kept costs only the clean-up after a kill.
    fn warn(&self, run_dir: &RunDir, e: &std::io::Error) {
        if !self.warned.replace(true) {
            diagnostic(format_args!(
                "warning: cannot keep the agent record `{}` ({e}): if ralph is killed \
                 with SIGKILL, what the agent started is not stopped by the next run",
                run_dir.agent_record_path().display()
            ));
        }
    }
}
