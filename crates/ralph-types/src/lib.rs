//! ralph's shared vocabulary: the small closed sets and plain values that the loop core,
//! the agent supervisor and the CLI all speak, in the manner of codex-rs's
//! `codex-protocol`.
//!
//! Nothing here does I/O and nothing depends on a runtime, so the sans-IO core can use
//! these types without depending on the crate that starts processes. What lives here:
//! which agents ralph knows and their names ([`BackendKind`], the one list of names, which
//! [`StreamFormat`] and the CLI's values derive from), how a custom agent takes its
//! prompt ([`PromptMode`]), how a gate's or hook's command is written ([`Invocation`]), the configured [`Deadlines`] with their defaults, how a run
//! ended ([`Termination`]), the names of the environment variables ralph sets for
//! agents ([`env`](mod@env)), one process's identity across pid reuse
//! ([`ProcessIdentity`]), and where the user's own files go ([`user_dirs`]: read from
//! the environment, never from the workspace).

mod backend;
mod deadlines;
pub mod env;
mod format;
mod invocation;
mod named;
mod process;
mod prompt_mode;
mod temporary;
mod termination;
pub mod user_dirs;

pub use backend::{BackendKind, DEFAULT_PRIORITY, UnknownBackend};
pub use deadlines::{
    DEFAULT_EXIT_GRACE, DEFAULT_IDLE_TIMEOUT, DEFAULT_ITERATION_TIMEOUT, DEFAULT_KILL_GRACE,
    DEFAULT_STARTUP_TIMEOUT, Deadlines,
};
pub use format::{StreamFormat, UnknownFormat};
pub use invocation::{Invocation, SHELL};
pub use process::ProcessIdentity;
pub use prompt_mode::{PromptMode, UnknownPromptMode};
pub use temporary::TEMPORARY_PREFIX;
pub use termination::{SpawnFailure, Termination};
