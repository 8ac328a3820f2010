//! Exit codes: the one place that decides them.

use std::process::ExitCode;

use ralph_core::machine::EndClass;

/// How a command ended, as far as the exit code is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The task completed (or the command did what was asked).
    Success,
    /// Something failed: a config error, an unreadable input, too many failed iterations.
    Failed,
    /// A limit stopped the loop: iterations, runtime, cost, or a stale loop.
    LimitReached,
    /// The user interrupted it (Ctrl-C).
    Interrupted,
}

impl Outcome {
    /// How a loop's end maps onto a command outcome.
    pub(crate) fn of_loop(class: EndClass) -> Outcome {
        match class {
            EndClass::Completed => Outcome::Success,
            EndClass::Failed => Outcome::Failed,
            EndClass::LimitReached => Outcome::LimitReached,
            EndClass::Interrupted => Outcome::Interrupted,
        }
    }
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
