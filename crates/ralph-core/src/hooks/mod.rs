//! Lifecycle hooks, compatible with ralph-orchestrator's `hooks:` section: commands ralph
//! runs at the loop's boundaries with a JSON payload on stdin.
//!
//! The core decides, the CLI runs: [`phase`] names the twelve boundaries, [`spec`] is
//! the resolved configuration, [`payload`] builds what a hook reads, [`policy`] says
//! what a failure does (`warn`, `block`, `suspend` and its modes, the retry schedule),
//! [`mutate`] merges a hook's JSON answer into the run's metadata and renders it for the
//! prompt, and [`resume`] is the file signal `ralph hooks resume` sends a suspended loop.
//! The run shell (`ralph-cli/src/run/hooks.rs`) starts each hook through the shared
//! command runner.

pub mod mutate;
pub mod payload;
pub mod phase;
pub mod policy;
pub mod resume;
pub mod spec;

pub use phase::HookPhase;
pub use spec::{HookSpec, HooksConfig, OnError, SuspendMode};
