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
    let long =
        |error: &Option<Cow<'_, str>>| error.as_ref().is_some_and(|e| e.len() > MAX_ERROR_BYTES);
    match event {
        AgentEvent::MessageFinished { text, stop, error } if long(error) => {
            on_event(&AgentEvent::MessageFinished {
                text: Cow::Borrowed(text),
                stop: *stop,
                error: cut_opt(error),
            });
        }
        AgentEvent::RetryStarted {
            attempt,
            max_attempts,
            delay_ms,
            error,
        } if long(error) => on_event(&AgentEvent::RetryStarted {
            attempt: *attempt,
            max_attempts: *max_attempts,
            delay_ms: *delay_ms,
            error: cut_opt(error),
        }),
        AgentEvent::RetryFinished {
            success,
            attempt,
            error,
        } if long(error) => on_event(&AgentEvent::RetryFinished {
            success: *success,
            attempt: *attempt,
            error: cut_opt(error),
        }),
        AgentEvent::Compaction {
            phase,
            reason,
            error,
        } if long(error) => on_event(&AgentEvent::Compaction {
            phase: *phase,
            reason: reason.as_deref().map(Cow::Borrowed),
            error: cut_opt(error),
        }),
        AgentEvent::RunFinished {
            is_error,
            error,
            turns,
            duration_ms,
            totals,
        } if long(error) => on_event(&AgentEvent::RunFinished {
            is_error: *is_error,
            error: cut_opt(error),
            turns: *turns,
            duration_ms: *duration_ms,
            totals: totals.clone(),
        }),
        event => on_event(event),
    }
}

fn cut_opt<'e>(error: &'e Option<Cow<'_, str>>) -> Option<Cow<'e, str>> {
    error.as_deref().map(cut)
}

/// The head of `error`, at most [`MAX_ERROR_BYTES`] of it on a character boundary, and how
/// many bytes were left out.
fn cut(error: &str) -> Cow<'_, str> {
    let mut end = MAX_ERROR_BYTES.min(error.len());
    while !error.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!(
        "{}… ({} more bytes)",
        &error[..end],
        error.len() - end
    ))
}

#[cfg(test)]
#[path = "bounded_tests.rs"]
mod tests;
