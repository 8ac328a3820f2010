//! What a failed hook does to the loop: the decision from `on_error` and
//! `suspend_mode`, and the bounded retry schedule. Pure, so every rule is tested without
//! a process.

use std::time::Duration;

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

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
