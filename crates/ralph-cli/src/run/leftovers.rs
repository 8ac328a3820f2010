//! No orphans even after `kill -9` of ralph: the glue between the record the store keeps
//! (`ralph_core::store::AgentRecord`, what the core decides from it) and the supervisor
//! that reads `/proc` and signals (`ralph_agent::supervise::stop_leftovers`).
//!
//! While the loop runs, its run directory holds a record of this ralph ([`AgentRecorder`],
//! held by [`RecordHeld`]), naming the agent too while one runs; it is removed when the
//! loop ends. Every child ralph starts (agents, gates, hooks, probes) carries this ralph's
//! marker, so a record kept for the whole loop, not only while an agent runs, also covers
//! a gate or a hook that was running when ralph was killed. A ralph killed with SIGKILL
//! cannot remove it: the next `ralph run` (or `--continue`) in the workspace finds it
//! after taking the lock and stops what is left ([`stop_stale`]).

use std::cell::{Cell, RefCell};

use ralph_agent::supervise::{LEFTOVER_KILL_GRACE, boot_id, identity_of, own_identity};
use ralph_core::machine::Notice;
use ralph_core::store::{AgentRecord, AgentRecordFile, Host, RalphDir, RunDir};
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
    /// The record's file while held, updated in place.
    file: RefCell<Option<AgentRecordFile>>,
    warned: Cell<bool>,
}

impl AgentRecorder {
    pub(crate) fn for_this_process() -> AgentRecorder {
        let record = boot_id()
            .zip(own_identity())
            .map(|(boot, me)| AgentRecord::new(boot, me));
        AgentRecorder {
            record,
            file: RefCell::new(None),
            warned: Cell::new(false),
        }
    }

    /// Names this ralph in the run's record until the returned guard is dropped (at the
    /// loop's end): whatever ralph starts meanwhile carries its marker.
    pub(crate) fn hold(&self, run_dir: &RunDir) -> RecordHeld {
        *self.file.borrow_mut() = Some(run_dir.agent_record_file());
        self.name_only_this_ralph(run_dir);
        RecordHeld {
            run_dir: self.record.as_ref().map(|_| run_dir.clone()),
        }
    }

    /// A record that names this ralph only: even a kill right after an agent's fork
    /// leaves one (the agent's processes carry this ralph's marker).
    fn name_only_this_ralph(&self, run_dir: &RunDir) {
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

    /// The agent and everything it started are gone: the record names this ralph only
    /// again, for the gates and hooks that may follow.
    pub(crate) fn after_reap(&self, run_dir: &RunDir) {
        self.name_only_this_ralph(run_dir);
    }

    fn write(&self, run_dir: &RunDir, record: &AgentRecord) {
        let written = match self.file.borrow_mut().as_mut() {
            Some(file) => file.write(record),
            None => run_dir.record_agent(record),
        };
        if let Err(e) = written {
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

/// Removes the run's record when the loop ends, however it ends (an error, a panic).
pub(crate) struct RecordHeld {
    /// `None` when this ralph keeps no record.
    run_dir: Option<RunDir>,
}

impl Drop for RecordHeld {
    fn drop(&mut self) {
        if let Some(run_dir) = &self.run_dir
            && let Err(e) = run_dir.clear_agent_record()
        {
            diagnostic(format_args!(
                "warning: cannot remove the agent record `{}`: {e}",
                run_dir.agent_record_path().display()
            ));
        }
    }
}
