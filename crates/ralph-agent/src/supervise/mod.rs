//! Child-process supervision: every agent process ralph starts is started, watched and
//! stopped here. Byte-level: nothing here knows the agents' output formats.
//!
//! Guarantees of [`run`]:
//! - the child runs in its own process group (its own session on a PTY), dies with ralph
//!   (`PR_SET_PDEATHSIG` on Linux), and never shares ralph's group, which is never
//!   signalled;
//! - stdin is `/dev/null`, a pipe that receives the prompt and is closed, or a live pipe
//!   ([`LiveStdin`]) that receives frames in order while the agent runs and is closed when
//!   the agent reports its terminal event, before any signal, and at the end of the run;
//! - when ralph must stop an agent whose live input has an abort command (budget,
//!   deadline, Ctrl-C), the command goes first and the agent gets [`ABORT_GRACE`] to
//!   finish before the signals;
//! - stdout reaches the sink as it arrives, every byte, including what was written before
//!   a kill; stderr is drained concurrently and kept as a bounded tail;
//! - the startup, inactivity, wall-clock and exit-grace deadlines are each reported as
//!   their own [`Termination`];
//! - every stop is SIGTERM to the group and to known processes outside it, the kill
//!   grace, then SIGKILL, again to whatever of the tree is found at each look until
//!   nothing is left or [`REAP_TIMEOUT`] passed (what outlives that is named to whoever
//!   set [`on_survivors`]), and reaping; after the run no process of the agent's tree that
//!   could be found is left (see the `tree` module for the exact reach), including
//!   SIGTERM-ignoring and `setsid` grandchildren;
//! - dropping the future (or a panic unwinding through it) SIGKILLs the tree.
//!
//! Side effects and limits: the first run makes the whole ralph process a child subreaper
//! (Linux), so orphans of any child ralph starts are reparented to ralph, and reaped here
//! once they exit. The children ralph starts itself are told apart from them by a record
//! of every start made here ([`run`], [`run_interactive`]): a child of ralph started
//! otherwise, outside ralph's own process group, may be reaped (its status lost) by the
//! next run's teardown. Poll [`run`] from a runtime thread that lives as long as
//! the run (not `spawn_blocking`): the death signal is tied to the forking thread. If
//! ralph is SIGKILLed, only the agent itself gets the death signal; its grandchildren are
//! then beyond this ralph's reach, and are stopped by the next one ([`stop_leftovers`],
//! from the record the run shell keeps through [`OutputSink::on_spawn`]). Pids are
//! signalled by number, so a process that exits and whose pid
//! is reused between ralph's scan and its signal could be hit (a window of microseconds).

mod child;
mod deadlines;
mod guard;
mod interactive;
mod left_in;
mod leftovers;
mod live;
mod orphans;
mod outcome;
mod own_children;
mod pause;
mod phase;
mod pty;
mod run;
mod signal;
mod sink;
mod spawn;
mod spec;
pub(crate) mod stderr_tail;
mod stop;
mod survivors;
mod teardown;
mod tree;
#[cfg(target_os = "linux")]
mod vfork;
#[cfg(target_os = "linux")]
mod waited;

pub use deadlines::RunDeadlines;
pub use interactive::run_interactive;
pub use left_in::{Deleting, FOUND_THERE_NAMED, FoundThere};
pub use leftovers::{
    LEFTOVER_KILL_GRACE, StoppedLeftovers, boot_id, identity_of, own_identity, stop_leftovers,
};
pub use live::LiveStdin;
#[cfg(test)]
pub(crate) use live::write_live;
pub use orphans::ORPHAN_REAP_INTERVAL;
pub use outcome::{ChildStatus, ProcessOutcome, SpawnFailure, Termination};
pub use phase::{ABORT_GRACE, POST_EXIT_DRAIN, RETRY_SETTLE};
pub use pty::{PTY_COLUMNS, PTY_ROWS};
pub use run::{FINAL_DRAIN_TIMEOUT, STDOUT_READ_BYTES, run};
pub use sink::{DiscardOutput, Flow, OutputSink};
pub use spawn::STDOUT_PIPE_BYTES;
pub use spec::{SpawnSpec, StdinSource};
pub use stderr_tail::STDERR_TAIL_BYTES;
pub use stop::{
    DOUBLE_INTERRUPT_WINDOW, Running, RunningGuard, StopController, StopLevel, StopRequests,
};
pub use survivors::{SURVIVORS_NAMED, Survivors, on_survivors};
pub use teardown::REAP_TIMEOUT;

/// The lock, even if a panicking holder poisoned it: the values stay whole, and a stop or
/// the agent's input must still work after a panic elsewhere.
fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
