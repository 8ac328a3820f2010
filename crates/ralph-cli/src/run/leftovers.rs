//! No orphans even after `kill -9` of ralph: the glue between the record the store keeps
//! (`ralph_core::store::AgentRecord`, what the core decides from it) and the supervisor
//! that reads `/proc` and signals (`ralph_agent::supervise::stop_leftovers`).
//!
//! While the loop runs, its run directory holds a record of this ralph ([`AgentRecorder`]),
//! naming the agent too while one runs; it is removed when the loop ends. Every child ralph starts (agents, gates, hooks, probes) carries this ralph's
//! marker, so a record kept for the whole loop, not only while an agent runs, also covers
//! a gate or a hook that was running when ralph was killed. A ralph killed with SIGKILL
//! cannot remove it: the next `ralph run` (or `--continue`) in the workspace finds it
//! after taking the lock and stops what is left ([`stop_stale`]).

use std::cell::{Cell, RefCell};
use std::path::Path;

use ralph_agent::supervise::{
    Deleting, FoundThere, LEFTOVER_KILL_GRACE, boot_id, identity_of, own_identity,
};
use ralph_core::machine::Notice;
use ralph_core::store::{AgentRecord, AgentRecordFile, Host, RalphDir, RunDir};
use ralph_types::ProcessIdentity;

use crate::diagnostic::diagnostic;

/// What a killed ralph left in the workspace's current run.
#[derive(Debug, Default)]
pub(crate) struct Stale {
    /// The processes it left running were stopped: the notice for the run's events.
    pub(crate) notice: Option<Notice>,
    /// A ralph was killed while it ran the current run's loop (its record was left).
    pub(crate) killed: bool,
}

/// What becomes of a killed ralph's record once what it left running is stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Record {
    /// Removed: the run starting here takes over (`ralph run`), or the workspace goes
    /// (`ralph runs rm`).
    Clear,
    /// Kept for a `ralph run --continue` that may follow (after `ralph runs land`): it
    /// tells that run its ralph was killed mid-iteration, so that the iteration ends
    /// with what its agent had emitted. Looked up again, its processes are gone.
    Keep,
}

/// Stops what a killed ralph's agent left running in this workspace, if anything, and
/// says so; with `deleting`, a directory about to be deleted (by `ralph runs rm`), what
/// works there too, though it carries no mark of that ralph (it cleared its environment).
/// Call with the workspace lock held, so that the recorded ralph cannot be one that runs
/// here now.
pub(crate) async fn stop_stale(ralph_dir: &RalphDir, deleting: Option<&Path>) -> Stale {
    stop_stale_then(ralph_dir, deleting, Record::Clear).await
}

/// [`stop_stale`], with the killed ralph's record then cleared or kept (`record`).
pub(crate) async fn stop_stale_then(
    ralph_dir: &RalphDir,
    deleting: Option<&Path>,
    then: Record,
) -> Stale {
    // No current run (or a damaged marker, said elsewhere): no record to read.
    let Some(run_dir) = ralph_dir.current_run().ok().flatten() else {
        return Stale::default();
    };
    let record = match run_dir.agent_record() {
        Ok(Some(record)) => record,
        Ok(None) => return Stale::default(),
        Err(e) => {
            diagnostic(format_args!(
                "warning: ignored the agent record `{}`: {e}",
                run_dir.agent_record_path().display()
            ));
            let _ = run_dir.clear_agent_record();
            return Stale::default();
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
        return Stale::default();
    }
    let leftovers = record.leftovers(&host);
    let found = match leftovers {
        Some(l) => {
            // What nothing but the directory leads to (it may be the user's own) is named
            // before it goes.
            let mut tell = |found: &FoundThere| diagnostic(format_args!("{found}"));
            let deleting = deleting.map(|dir| Deleting {
                dir,
                tell: &mut tell,
            });
            ralph_agent::supervise::stop_leftovers(l.ralph, l.agent, LEFTOVER_KILL_GRACE, deleting)
                .await
        }
        None => Default::default(),
    };
    if then == Record::Clear {
        let _ = run_dir.clear_agent_record();
    }
    if found.stopped + found.survivors == 0 {
        return Stale {
            notice: None,
            killed: true,
        };
    }
    let notice = Notice::LeftoversStopped {
        ralph_pid: record.ralph.pid,
        stopped: found.stopped,
        survivors: found.survivors,
    };
    diagnostic(format_args!("{notice}"));
    Stale {
        notice: Some(notice),
        killed: true,
    }
}

/// Keeps the run's record of this ralph, naming its agent while one runs, from the
/// loop's start until it is dropped (the loop's end, however it ends: an error, a
/// panic), which removes it. The only writer of the record: nothing can write it
/// before it is held or after it is gone.
pub(crate) struct AgentRecorder {
    run_dir: RunDir,
    /// This ralph's record; `None` where `/proc` cannot name this process or the boot:
    /// then nothing is written, and nothing removed.
    record: Option<AgentRecord>,
    /// The record's file, updated in place.
    file: RefCell<AgentRecordFile>,
    warned: Cell<bool>,
}

impl AgentRecorder {
    /// Names this ralph in `run_dir`'s record until the recorder is dropped: whatever
    /// ralph starts meanwhile carries its marker.
    pub(crate) fn hold(run_dir: &RunDir) -> AgentRecorder {
        let record = boot_id()
            .zip(own_identity())
            .map(|(boot, me)| AgentRecord::new(boot, me));
        let recorder = AgentRecorder {
            run_dir: run_dir.clone(),
            record,
            file: RefCell::new(run_dir.agent_record_file()),
            warned: Cell::new(false),
        };
        recorder.name_only_this_ralph();
        recorder
    }

    /// A record that names this ralph only: even a kill right after an agent's fork
    /// leaves one (the agent's processes carry this ralph's marker).
    fn name_only_this_ralph(&self) {
        if let Some(record) = &self.record {
            self.write(record);
        }
    }

    /// At the spawn: adds the agent, whose group is then stopped too.
    pub(crate) fn at_spawn(&self, agent: ProcessIdentity) {
        if let Some(record) = &self.record {
            let record = AgentRecord {
                agent: Some(agent),
                ..record.clone()
            };
            self.write(&record);
        }
    }

    /// The agent and everything it started are gone: the record names this ralph only
    /// again, for the gates and hooks that may follow.
    pub(crate) fn after_reap(&self) {
        self.name_only_this_ralph();
    }

    fn write(&self, record: &AgentRecord) {
        if let Err(e) = self.file.borrow_mut().write(record) {
            self.warn(&e);
        }
    }

    /// Once per run: a record that cannot be kept costs only the clean-up after a kill.
    fn warn(&self, e: &std::io::Error) {
        if !self.warned.replace(true) {
            diagnostic(format_args!(
                "warning: cannot keep the agent record `{}` ({e}): if ralph is killed \
                 with SIGKILL, what the agent started is not stopped by the next run",
                self.run_dir.agent_record_path().display()
            ));
        }
    }
}

impl Drop for AgentRecorder {
    fn drop(&mut self) {
        if self.record.is_some()
            && let Err(e) = self.run_dir.clear_agent_record()
        {
            diagnostic(format_args!(
                "warning: cannot remove the agent record `{}`: {e}",
                self.run_dir.agent_record_path().display()
            ));
        }
    }
}
