//! Telling the user about processes of a run that outlived SIGKILL.
//!
//! A run's teardown kills what it finds until nothing is left or [`REAP_TIMEOUT`] has
//! passed; what still runs then (a process stuck in uninterruptible sleep, one that kept
//! escaping) is left behind, and the user must hear of it, with enough to find it. The
//! supervisor has no terminal of its own: whoever shows messages sets
//! [`on_survivors`], as `ralph` does at its start.
//!
//! [`REAP_TIMEOUT`]: super::REAP_TIMEOUT

use std::ffi::OsStr;
use std::fmt;
use std::sync::OnceLock;

/// At most this many survivors are named; the rest are counted.
pub const SURVIVORS_NAMED: usize = 5;

/// Processes of one run still running after its teardown gave up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Survivors {
    /// What the run started (the agent's, gate's or hook's program).
    pub program: String,
    /// Each survivor's pid and command name (empty when it could not be read).
    pub processes: Vec<(i32, String)>,
}

impl Survivors {
    pub(crate) fn new(program: &OsStr, pids: &[i32]) -> Survivors {
        Survivors {
            program: program.to_string_lossy().into_owned(),
            processes: pids.iter().map(|&pid| (pid, command_name(pid))).collect(),
        }
    }
}

impl fmt::Display for Survivors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.processes.len();
        let (these, run) = if count == 1 {
            ("1 process".to_owned(), "runs")
        } else {
            (format!("{count} processes"), "run")
        };
        write!(
            f,
            "{these} that `{}` started did not stop even on SIGKILL and still {run}: ",
            self.program
        )?;
        write_named(f, &self.processes, SURVIVORS_NAMED)?;
        f.write_str("; stop them with `kill -9 <pid>` once they can be stopped")
    }
}

/// Who hears of survivors; until it is set, nobody.
static REPORT: OnceLock<fn(&Survivors)> = OnceLock::new();

/// Sets what is called with the survivors of a run's teardown. Only the first call
/// counts.
pub fn on_survivors(report: fn(&Survivors)) {
    let _ = REPORT.set(report);
}

/// Tells whoever listens about `pids`, the survivors of a run of `program` (nothing when
/// there are none).
pub(crate) fn report(program: &OsStr, pids: &[i32]) {
    if let (false, Some(report)) = (pids.is_empty(), REPORT.get()) {
        report(&Survivors::new(program, pids));
    }
}

/// `processes` (pid, command name) as a message names them: the first `most`, then how
/// many more.
pub(crate) fn write_named(
    f: &mut fmt::Formatter<'_>,
    processes: &[(i32, String)],
    most: usize,
) -> fmt::Result {
    for (i, (pid, name)) in processes.iter().take(most).enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "pid {pid}")?;
        if !name.is_empty() {
            write!(f, " ({name})")?;
        }
    }
    if processes.len() > most {
        write!(f, " and {} more", processes.len() - most)?;
    }
    Ok(())
}

/// The command name the kernel keeps for `pid` (`/proc/<pid>/comm`).
pub(crate) fn command_name(pid: i32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|name| name.trim_end().to_owned())
        .unwrap_or_default()
}

#[cfg(test)]
#[path = "survivors_tests.rs"]
mod tests;
