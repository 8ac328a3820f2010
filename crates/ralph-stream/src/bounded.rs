//! A ceiling on the error messages events carry.
//!
//! An agent repeats its provider's error in every retry event, and a provider's error can
//! be anything its server sends: a proxy's error page, or a gateway that echoes the whole
//! request (the prompt) in its 4xx body. Megabytes in each of a dozen retry events made
//! tens of megabytes of run record per iteration, and a failure reason that size in every
//! view. The agent's own output keeps the whole message (the run's transcript of its
//! stdout); an event carries its head, and says how much was left out.

use std::borrow::Cow;

use crate::event::AgentEvent;

/// The most bytes of one error message an event carries: more than any error meant for a
/// person, far less than a page.
pub const MAX_ERROR_BYTES: usize = 16 * 1024;

/// Hands `event` to `on_event`, its error message cut to [`MAX_ERROR_BYTES`] when longer.
pub(crate) fn deliver(event: &AgentEvent<'_>, on_event: &mut impl FnMut(&AgentEvent<'_>)) {
    let long = error_of(event).is_some_and(|e| e.len() > MAX_ERROR_BYTES);
    if !long {
        return on_event(event);
    }
    // Rare: a copy of the event (of its borrowed text, only the references) with the
    // message cut.
    let mut bounded = event.clone();
    if let Some(slot) = error_slot(&mut bounded)
        && let Some(error) = slot.take()
    {
        *slot = Some(cut(&error));
    }
    on_event(&bounded);
}

/// The error message `event` carries, if its kind carries one.
fn error_of<'e>(event: &'e AgentEvent<'_>) -> Option<&'e str> {
    match event {
        AgentEvent::MessageFinished { error, .. }
        | AgentEvent::RetryStarted { error, .. }
        | AgentEvent::RetryFinished { error, .. }
        | AgentEvent::Compaction { error, .. }
        | AgentEvent::RunFinished { error, .. } => error.as_deref(),
        _ => None,
    }
}

/// Where `event` keeps its error message, if its kind has one.
fn error_slot<'e, 'a>(event: &'e mut AgentEvent<'a>) -> Option<&'e mut Option<Cow<'a, str>>> {
    match event {
        AgentEvent::MessageFinished { error, .. }
        | AgentEvent::RetryStarted { error, .. }
        | AgentEvent::RetryFinished { error, .. }
        | AgentEvent::Compaction { error, .. }
        | AgentEvent::RunFinished { error, .. } => Some(error),
        _ => None,
    }
}

/// The head of `error`, at most [`MAX_ERROR_BYTES`] of it on a character boundary, and how
/// many bytes were left out.
fn cut(error: &str) -> Cow<'static, str> {
    let end = error.floor_char_boundary(MAX_ERROR_BYTES);
    Cow::Owned(format!(
        "{}… ({} more bytes)",
        &error[..end],
        error.len() - end
    ))
}

#[cfg(test)]
#[path = "bounded_tests.rs"]
mod tests;
