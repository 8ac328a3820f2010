//! The deadlines of one agent run as configured (`cli.*_timeout_seconds`,
//! `cli.exit_grace_seconds`, and per hat), with every default defined here once: the
//! configuration, `ralph init`'s template, the docs and the supervisor all read these.

use std::time::Duration;

/// Default `cli.startup_timeout_seconds`: npm-installed agent CLIs can take tens of
/// seconds to print anything on a cold start.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(120);
/// Default `cli.idle_timeout_seconds`: longer than the longest tool call an agent runs
/// silently (Claude Code's Bash tool stops at ten minutes), so healthy work is never
/// killed for being quiet.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// Default `cli.iteration_timeout_seconds`: the wall clock of one iteration.
pub const DEFAULT_ITERATION_TIMEOUT: Duration = Duration::from_secs(60 * 60);
/// Default `cli.exit_grace_seconds`: time to exit after the agent's final event.
pub const DEFAULT_EXIT_GRACE: Duration = Duration::from_secs(5);
/// Time between SIGTERM and SIGKILL when ralph stops an agent (not configurable).
pub const DEFAULT_KILL_GRACE: Duration = Duration::from_secs(3);

/// The supervision deadlines for one agent run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadlines {
    /// No output at all within this long after start.
    pub startup: Duration,
    /// No output for this long.
    pub idle: Duration,
    /// The whole iteration.
    pub iteration: Duration,
    /// Time to exit once the agent has emitted its final event.
    pub exit_grace: Duration,
}

impl Default for Deadlines {
    fn default() -> Self {
        Deadlines {
            startup: DEFAULT_STARTUP_TIMEOUT,
            idle: DEFAULT_IDLE_TIMEOUT,
            iteration: DEFAULT_ITERATION_TIMEOUT,
            exit_grace: DEFAULT_EXIT_GRACE,
        }
    }
}
