//! An agent that could not be started at all: whether starting it again could go
//! otherwise. Retries are for what passes (a busy system, a file being written); a
//! program the system refuses to run (not executable, not a program, an interpreter that
//! is not there) is refused again at once, and so is a prompt no agent can take (too
//! long for an argument, a NUL byte: the iteration handed back builds the same one), so
//! the loop stops on the first such failure with its cause, instead of failing
//! `max_consecutive_failures` times in a row in a second and saying only that
//! iterations failed.

use nix::errno::Errno;
use ralph_types::SpawnFailure;

use super::{Iteration, IterationReport, Machine, Notice, StopReason};

/// The causes that do not pass by themselves: the program (or its interpreter, or a
/// directory on its path) is not there, may not be run, or is no program. Anything else
/// (EAGAIN, ENOMEM, ETXTBSY, EMFILE, an error with no number) counts as an ordinary
/// failure, which the next iteration may not meet.
const LASTING: [Errno; 6] = [
    Errno::ENOENT,
    Errno::EACCES,
    Errno::EPERM,
    Errno::ENOEXEC,
    Errno::ENOTDIR,
    Errno::ELOOP,
];

/// Whether starting the same program again would fail the same way.
pub(super) fn lasts(failure: &SpawnFailure) -> bool {
    failure
        .errno
        .is_some_and(|errno| LASTING.contains(&Errno::from_raw(errno)))
}

impl Machine {
    /// The stop for an iteration whose agent could not be started for a cause that
    /// lasts; `None` when it started, or may start next time.
    pub(super) fn cannot_start(
        &self,
        iteration: &Iteration,
        report: &IterationReport,
    ) -> Option<StopReason> {
        let why = match &report.unstartable {
            Some(why) => why.clone(),
            None => report
                .start_failure
                .as_ref()
                .filter(|f| lasts(f))?
                .to_string(),
        };
        Some(StopReason::AgentCannotStart {
            hat: iteration.hat.clone(),
            backend: report.backend.clone(),
            why,
        })
    }

    /// Takes back the `events_requeued` notice of an iteration the loop stops on because
    /// its agent cannot start: its events are kept for `--continue`, but nothing in this
    /// run gets them again, and the stop itself says how to resume.
    pub(super) fn unsay_requeued(&mut self) {
        (self.notices).retain(|n| !matches!(n, Notice::EventsRequeued { .. }));
    }
}

#[cfg(test)]
#[path = "start_failure_tests.rs"]
mod tests;
