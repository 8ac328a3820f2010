//! How an iteration ended, as both views mark it: `✓` succeeded, `✗` failed, `■` stopped
//! by something that is not the agent's failure (a cost or runtime limit, the user, a
//! provider's rate limit). The full-screen view marks its iterations with these too, so
//! a mark means the same wherever it is seen (docs/cli.md's legend).

use ralph_core::machine::IterationOutcome;

/// Lines of a failed agent's stderr shown under its end (the line view's footer, the
/// full-screen view's transcript).
pub(crate) const STDERR_LINES: usize = 5;

/// The three ways the views tell an iteration's end apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    Succeeded,
    Failed,
    Stopped,
}

impl Ending {
    pub(crate) fn of(outcome: &IterationOutcome) -> Ending {
        match outcome {
            IterationOutcome::Succeeded => Ending::Succeeded,
            IterationOutcome::Failed { .. } => Ending::Failed,
            IterationOutcome::StoppedAtCostLimit
            | IterationOutcome::StoppedAtRuntimeLimit
            | IterationOutcome::Interrupted
            | IterationOutcome::RateLimited { .. } => Ending::Stopped,
        }
    }

    pub(crate) fn mark(self) -> &'static str {
        match self {
            Ending::Succeeded => "✓",
            Ending::Failed => "✗",
            Ending::Stopped => "■",
        }
    }
}
