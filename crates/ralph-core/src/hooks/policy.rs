//! What a failed hook does to the loop: the decision from `on_error` and
//! `suspend_mode`, and the bounded retry schedule. Pure, so every rule is tested without
//! a process.

use std::time::Duration;

use ralph_types::Termination;
use serde::Serialize;

use super::spec::{HookSpec, OnError, SuspendMode};

/// The pauses before each retry of a `suspend_mode: retry_backoff` hook
/// (ralph-orchestrator's schedule). Its length bounds the retries: after the last one a
/// still failing hook stops the loop as `block` does.
pub const RETRY_BACKOFF: [Duration; 3] = [
    Duration::from_millis(100),
    Duration::from_millis(200),
    Duration::from_millis(400),
];

/// How often a suspended loop looks for `ralph hooks resume`'s signal (and for Ctrl-C).
pub const RESUME_POLL_INTERVAL: Duration = Duration::from_millis(200);

/// What to do after a hook failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterFailure {
    /// Report it and go on.
    Warn,
    /// Stop the loop with a failure naming the hook.
    Block,
    /// Wait for `ralph hooks resume`; then run the hook again if `retry`, else go on.
    WaitForResume { retry: bool },
    /// Run the hook again after `delay`.
    Retry { delay: Duration },
}

/// The decision for `hook`, which has failed `failures` times in a row at this
/// boundary (1 for its first run).
pub fn after_failure(hook: &HookSpec, failures: u32) -> AfterFailure {
    match (hook.on_error, hook.suspend_mode) {
        (OnError::Warn, _) => AfterFailure::Warn,
        (OnError::Block, _) => AfterFailure::Block,
        (OnError::Suspend, SuspendMode::WaitForResume) => {
            AfterFailure::WaitForResume { retry: false }
        }
        (OnError::Suspend, SuspendMode::WaitThenRetry) => {
            AfterFailure::WaitForResume { retry: true }
        }
        (OnError::Suspend, SuspendMode::RetryBackoff) => {
            let retry = usize::try_from(failures.saturating_sub(1)).unwrap_or(usize::MAX);
            match RETRY_BACKOFF.get(retry) {
                Some(&delay) => AfterFailure::Retry { delay },
                None => AfterFailure::Block,
            }
        }
    }
}

impl AfterFailure {
    /// What the run event reports.
    pub fn action(self) -> HookAction {
        match self {
            AfterFailure::Warn => HookAction::Warn,
            AfterFailure::Block => HookAction::Block,
            AfterFailure::WaitForResume { .. } => HookAction::Suspend,
            AfterFailure::Retry { .. } => HookAction::Retry,
        }
    }
}

/// What ralph does after a hook ran (`hook_finished`'s `action`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HookAction {
    /// It passed: go on.
    Continue,
    /// It failed with `on_error: warn`: go on.
    Warn,
    /// It failed and stops the loop.
    Block,
    /// It failed and runs again after a backoff.
    Retry,
    /// It failed and the loop waits for `ralph hooks resume`.
    Suspend,
    /// Ctrl-C, or the run's `max_runtime_seconds` running out, stopped it: the run ends.
    Stop,
}

/// How a hook failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HookFailure {
    /// It exited with a code other than 0.
    Exit,
    /// It ran past `timeout_seconds` and was stopped.
    Timeout,
    /// It could not be started (a missing or non-executable command).
    Spawn,
    /// A signal ralph did not send ended it, or its status was lost.
    Signal,
    /// Its `mutate` answer could not be used.
    Answer,
    /// Ctrl-C stopped it.
    Interrupted,
    /// The run's `max_runtime_seconds` ran out while it ran: it was stopped, and the run
    /// ends at its limit.
    RuntimeLimit,
}

/// How a hook's process ended, judged: `None` when it passed (exit code 0).
pub fn failure_of(termination: &Termination) -> Option<HookFailure> {
    match termination {
        Termination::Exited { code: 0 } => None,
        Termination::Exited { .. } => Some(HookFailure::Exit),
        // Only the total deadline applies to a hook; the others are listed for
        // completeness of the match.
        Termination::WallClockTimeout | Termination::StartupTimeout | Termination::IdleTimeout => {
            Some(HookFailure::Timeout)
        }
        Termination::FailedToStart { .. } => Some(HookFailure::Spawn),
        Termination::Interrupted | Termination::StoppedByCaller => Some(HookFailure::Interrupted),
        Termination::Signaled { .. }
        | Termination::StatusLost
        | Termination::StoppedAfterFinish => Some(HookFailure::Signal),
    }
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
