//! Exit codes: the one place that decides them.

use std::process::ExitCode;

use ralph_core::machine::EndClass;

/// How a command ended, as far as the exit code is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CommandOutcome {
    /// The task completed (or the command did what was asked).
    Success,
    /// Something failed: a config error, an unreadable input, too many failed iterations.
    Failed,
    /// A limit stopped the loop: iterations, runtime, cost, or a stale loop.
    LimitReached,
    /// The user interrupted it (Ctrl-C).
    Interrupted,
}

impl CommandOutcome {
    /// How a loop's end maps onto a command outcome.
    pub(crate) fn of_loop(class: EndClass) -> CommandOutcome {
        match class {
            EndClass::Completed => CommandOutcome::Success,
            EndClass::Failed => CommandOutcome::Failed,
            EndClass::LimitReached => CommandOutcome::LimitReached,
            EndClass::Interrupted => CommandOutcome::Interrupted,
        }
    }
}

impl CommandOutcome {
    /// The outcome of a command that could not write all of its output for another
    /// reason than a reader that closed the pipe (a full disk): it did not do all that
    /// was asked, so a success fails; any other outcome already says more, and stands.
    pub(crate) fn output_lost(self) -> CommandOutcome {
        match self {
            CommandOutcome::Success => CommandOutcome::Failed,
            other => other,
        }
    }
}

/// The exit code for an outcome: 0, 1, 2 or 130 (128 + SIGINT, as shells report it).
pub(crate) fn code(outcome: CommandOutcome) -> ExitCode {
    ExitCode::from(number(outcome))
}

pub(crate) fn number(outcome: CommandOutcome) -> u8 {
    match outcome {
        CommandOutcome::Success => 0,
        CommandOutcome::Failed => 1,
        CommandOutcome::LimitReached => 2,
        CommandOutcome::Interrupted => 130,
    }
}

#[cfg(test)]
#[path = "exit_tests.rs"]
mod tests;
