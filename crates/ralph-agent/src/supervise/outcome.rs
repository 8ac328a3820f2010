//! The typed result of one supervised run. How it ended ([`Termination`]) is shared
//! vocabulary and lives in `ralph-types`; the process details stay here.

use std::time::Duration;

pub use ralph_types::{SpawnFailure, Termination};

/// How the child process itself ended, whoever caused it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChildStatus {
    Code(i32),
    Signal(i32),
}

/// Everything the caller needs after a supervised process ran: how it ended and what it
/// wrote (not to be confused with the loop's `IterationOutcome`, which judges an
/// iteration from this and its stream).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessOutcome {
    pub termination: Termination,
    /// The child's own exit status, when it was reaped.
    pub child_status: Option<ChildStatus>,
    /// The child's pid (also its process group id).
    pub pid: Option<u32>,
    /// From spawn to the end of the teardown, less the time ralph paused it (Ctrl-Z).
    pub wall: Duration,
    /// Time from spawn to the first stdout byte, less the time ralph paused it (Ctrl-Z).
    pub time_to_first_byte: Option<Duration>,
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    /// The last bytes of stderr (lossy UTF-8), for error reports.
    pub stderr_tail: String,
    /// True when stdin was `/dev/null` or every prompt byte was written before it closed.
    pub stdin_complete: bool,
    /// Processes other than the agent itself that ralph signalled while stopping the run
    /// or cleaning up after it (children, background jobs, detached grandchildren).
    pub leftovers_signalled: usize,
    /// Ralph sent the agent SIGTERM or SIGKILL (a deadline, a stop its abort command did
    /// not end in time): it did not end on its own.
    pub signalled: bool,
    /// The `RALPH_AGENT_RUN` token the child was started with (`None` when none was):
    /// what `ralph emit` run by it, or by anything it started, records as the sender.
    pub agent_run: Option<String>,
}
