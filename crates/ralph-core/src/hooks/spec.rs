//! The resolved `hooks:` section: each hook with the section's defaults applied.

use std::path::PathBuf;
use std::time::Duration;

use ralph_types::Invocation;

use super::phase::HookPhase;

/// `hooks.defaults.timeout_seconds` when unset (ralph-orchestrator's value).
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(30);
/// `hooks.defaults.max_output_bytes` when unset (ralph-orchestrator's value).
pub const DEFAULT_HOOK_MAX_OUTPUT_BYTES: u32 = 8192;
/// The largest `max_output_bytes` accepted: what a hook's stdout may put in memory and,
/// through `mutate`, into every later prompt.
pub const MAX_HOOK_OUTPUT_BYTES: u64 = 1024 * 1024;

/// What a failing hook (non-zero exit, timeout, cannot start, unusable `mutate` answer)
/// does to the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnError {
    /// Say so and go on.
    Warn,
    /// Stop the loop with a failure naming the hook (exit 1).
    Block,
    /// Hold the loop as its `suspend_mode` says.
    Suspend,
}

impl OnError {
    pub const ALL: [OnError; 3] = [OnError::Warn, OnError::Block, OnError::Suspend];

    pub fn name(self) -> &'static str {
        match self {
            OnError::Warn => "warn",
            OnError::Block => "block",
            OnError::Suspend => "suspend",
        }
    }
}

/// How a suspending hook holds the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuspendMode {
    /// Wait until `ralph hooks resume` is run in the workspace, then go on.
    WaitForResume,
    /// Run the hook again after a short backoff, a bounded number of times; if it still
    /// fails, stop the loop as `block` does.
    RetryBackoff,
    /// Wait for `ralph hooks resume`, then run the hook again (and wait again if it
    /// still fails).
    WaitThenRetry,
}

impl SuspendMode {
    pub const ALL: [SuspendMode; 3] = [
        SuspendMode::WaitForResume,
        SuspendMode::RetryBackoff,
        SuspendMode::WaitThenRetry,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SuspendMode::WaitForResume => "wait_for_resume",
            SuspendMode::RetryBackoff => "retry_backoff",
            SuspendMode::WaitThenRetry => "wait_then_retry",
        }
    }
}

/// `mutate.format`: the one format a hook's answer can have.
pub const MUTATE_FORMAT_JSON: &str = "json";

/// One configured hook, defaults applied.
#[derive(Clone, Debug, PartialEq)]
pub struct HookSpec {
    pub name: String,
    pub command: Invocation,
    /// Relative to the workspace; `None`: the workspace.
    pub cwd: Option<PathBuf>,
    /// Added to ralph's environment, in file order.
    pub env: Vec<(String, String)>,
    pub timeout: Duration,
    /// The most of the hook's stdout kept (for `mutate`); the log file has it all.
    pub max_output_bytes: u64,
    pub on_error: OnError,
    pub suspend_mode: SuspendMode,
    /// Whether the hook's JSON answer on stdout adds metadata to later prompts.
    pub mutate: bool,
}

/// `hooks.defaults`: what a hook that does not say uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HookDefaults {
    pub timeout: Duration,
    pub max_output_bytes: u64,
    pub suspend_mode: SuspendMode,
}

impl Default for HookDefaults {
    fn default() -> Self {
        HookDefaults {
            timeout: DEFAULT_HOOK_TIMEOUT,
            max_output_bytes: u64::from(DEFAULT_HOOK_MAX_OUTPUT_BYTES),
            suspend_mode: SuspendMode::WaitForResume,
        }
    }
}

/// The `hooks:` section.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HooksConfig {
    /// `hooks.enabled`: without `true`, no hook runs.
    pub enabled: bool,
    /// Already applied to each hook; kept for `--dry-run`.
    pub defaults: HookDefaults,
    /// Each phase with its hooks in declaration order, phases in file order.
    pub events: Vec<(HookPhase, Vec<HookSpec>)>,
}

impl HooksConfig {
    /// The hooks that run at `phase`, in declaration order (none when disabled).
    pub fn at(&self, phase: HookPhase) -> impl Iterator<Item = &HookSpec> {
        self.events
            .iter()
            .filter(move |(p, _)| self.enabled && *p == phase)
            .flat_map(|(_, hooks)| hooks)
    }

    /// Every configured hook with its phase, in file order.
    pub fn all(&self) -> impl Iterator<Item = (HookPhase, &HookSpec)> {
        self.events
            .iter()
            .flat_map(|(phase, hooks)| hooks.iter().map(move |h| (*phase, h)))
    }

    /// Whether any hook would run.
    pub fn any(&self) -> bool {
        self.enabled && self.all().next().is_some()
    }
}
