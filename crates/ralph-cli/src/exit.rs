//! Exit codes: the one place that decides them.

use std::process::ExitCode;

/// How a command ended, as far as the exit code is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The task completed (or the command did what was asked).
    Success,
    /// Something failed: a config error, an unreadable input, too many failed iterations.
    Failed,
    #[expect(dead_code, reason = "`ralph run` ends with it")]
    /// A limit stopped the loop: iterations, runtime, cost, or a stale loop.
    LimitReached,
    #[expect(dead_code, reason = "`ralph run` ends with it")]
    /// The user interrupted it (Ctrl-C).
    Interrupted,
}

/// The exit code for an outcome: 0, 1, 2 or 130 (128 + SIGINT, as shells report it).
pub(crate) fn code(outcome: Outcome) -> ExitCode {
    ExitCode::from(number(outcome))
}

pub(crate) fn number(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Success => 0,
        Outcome::Failed => 1,
        Outcome::LimitReached => 2,
        Outcome::Interrupted => 130,
    }
}
