//! How a failed hook holds the loop: the pause before a retry (`retry_backoff`) and the
//! suspension until `ralph hooks resume` (`wait_for_resume`, `wait_then_retry`). Either
//! ends early on Ctrl-C, or, where the run's `max_runtime` bounds the hook (not at the
//! loop's end), when the runtime runs out.

use std::io;
use std::path::Path;
use std::time::Duration;

use tokio::time::Instant;

use ralph_agent::{StopController, StopLevel};
use ralph_core::hooks::policy::RESUME_POLL_INTERVAL;
use ralph_core::hooks::resume::ResumeSignal;

use super::run_clock::RuntimeLeft;
use crate::diagnostic::diagnostic;

/// How a hold ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Held {
    /// The pause is over, or `ralph hooks resume` came.
    Done,
    /// Ctrl-C.
    Interrupted,
    /// The run's runtime ran out.
    OutOfTime,
}

/// Why the hold should end now, if it should.
fn cut_short(stop: &StopController, runtime: Option<RuntimeLeft<'_>>) -> Option<Held> {
    if stop.current() > StopLevel::None {
        Some(Held::Interrupted)
    } else if runtime.is_some_and(|left| left.now().is_zero()) {
        Some(Held::OutOfTime)
    } else {
        None
    }
}

/// Sleeps `delay` unless Ctrl-C comes or the runtime runs out first. Woken by the stop
/// request itself or by the nearer of the two ends, never by a poll: a pause can last
/// minutes (`retry_backoff`), and the stop must still end it at once. The runtime's end
/// is looked at again on waking, because a Ctrl-Z meanwhile moves it on.
pub(super) async fn pause(
    delay: Duration,
    stop: &StopController,
    runtime: Option<RuntimeLeft<'_>>,
) -> Held {
    let until = Instant::now() + delay;
    let mut requests = stop.requests();
    loop {
        if let Some(held) = cut_short(stop, runtime) {
            return held;
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Held::Done;
        }
        let wake = runtime.map_or(left, |runtime| left.min(runtime.now()));
        tokio::select! {
            () = requests.stopped() => {}
            () = tokio::time::sleep(wake) => {}
        }
    }
}

/// Holds the loop, for hook `hook` at `phase` that failed for `why`, until `ralph hooks
/// resume` in `workspace`, Ctrl-C, or the runtime running out.
pub(super) async fn wait_for_resume(
    signal: &ResumeSignal,
    workspace: &Path,
    (hook, phase, why): (&str, &str, &str),
    stop: &StopController,
    runtime: Option<RuntimeLeft<'_>>,
) -> io::Result<Held> {
    signal.suspend(&format!("{phase} {hook}"))?;
    diagnostic(format_args!(
        "hook `{hook}` ({phase}) failed ({why}) and suspends the loop: run `ralph hooks \
         resume` in {} to go on",
        workspace.display()
    ));
    // `ralph hooks resume` leaves a file, so that is looked for on a poll; a stop
    // request wakes the wait at once.
    let mut requests = stop.requests();
    let held = loop {
        if let Some(held) = cut_short(stop, runtime) {
            break held;
        }
        if signal.take()? {
            break Held::Done;
        }
        tokio::select! {
            () = requests.stopped() => {}
            () = tokio::time::sleep(RESUME_POLL_INTERVAL) => {}
        }
    };
    signal.clear()?;
    if held == Held::OutOfTime {
        diagnostic(format_args!(
            "the run's runtime limit (max_runtime_seconds) ran out while hook `{hook}` \
             suspended the loop: the loop ends"
        ));
    }
    Ok(held)
}

#[cfg(test)]
#[path = "hook_hold_tests.rs"]
mod tests;
