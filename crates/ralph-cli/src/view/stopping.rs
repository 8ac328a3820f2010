//! What ralph says when asked to stop: the same words on stderr (Ctrl-C, SIGTERM) and in
//! the full-screen view's status line.

use ralph_agent::{Running, StopLevel};

/// What ralph says when a stop at `level` is asked for while `what` runs (`None`: between
/// the loop's steps, as in a rate-limit wait, where it only ends the loop); `hint` says
/// how to insist. `None` when there is nothing to say.
pub(crate) fn stop_message(level: StopLevel, what: Option<Running>, hint: &str) -> Option<String> {
    let name = what.map(|what| match what {
        Running::Agent => "the agent",
        Running::Gate => "the gate",
        Running::Hook => "the hook",
    });
    match (level, name) {
        (StopLevel::None, _) => None,
        (StopLevel::Graceful, Some(name)) => {
            Some(format!("stopping {name} and ending the loop ({hint})"))
        }
        (StopLevel::Graceful, None) => Some("ending the loop".to_owned()),
        (StopLevel::Immediate, Some(name)) => Some(format!("killing {name} now")),
        (StopLevel::Immediate, None) => None,
    }
}

#[cfg(test)]
#[path = "stopping_tests.rs"]
mod tests;
