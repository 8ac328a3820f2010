//! The completion rules: when an iteration says the task is done.
//!
//! Two signals, both strict on purpose (users lose money to loops that stop early and
//! to loops that never stop):
//! - the agent ran `ralph emit <promise>` and it was the **last** event of the
//!   iteration (an agent that emits the promise and then hands work on has not
//!   finished);
//! - fallback: the run **succeeded** and the last non-empty line of its final answer
//!   is exactly the promise (surrounding whitespace aside). The final answer is the
//!   last assistant message that did not fail, so tool output, thinking, the echoed
//!   prompt and text of failed or retried attempts never count; a sentence that
//!   mentions or quotes the promise does not either.
//!
//! A hat whose `default_publishes` is the promise completes the loop too when it
//! succeeds without emitting anything: the default is published for it, as any other
//! default is (a promise ralph would route as an ordinary event would never end the
//! loop).
//!
//! An interrupted iteration never completes: the user stopped it.

use super::outcome::{CompletionSignal, IterationOutcome};
use crate::event::Event;

/// The completion signal an iteration gave, if any. `events` are the valid events it
/// emitted, in order; `default` is its hat's `default_publishes`.
pub fn completion_signal(
    promise: &str,
    events: &[Event],
    outcome: &IterationOutcome,
    final_text: Option<&str>,
    default: Option<&str>,
) -> Option<CompletionSignal> {
    match outcome {
        // The user stopped it, or a provider's limit cut it short: neither finished.
        IterationOutcome::Interrupted | IterationOutcome::RateLimited { .. } => None,
        IterationOutcome::Succeeded
        | IterationOutcome::Failed { .. }
        | IterationOutcome::StoppedAtCostLimit
        | IterationOutcome::StoppedAtRuntimeLimit => {
            if events.last().is_some_and(|e| e.topic == promise) {
                Some(CompletionSignal::Event)
            } else if events.iter().any(|e| e.topic == promise) {
                // Emitted, then work handed on: not finished, whatever the final answer
                // says (the note on the promise not being last says so too).
                None
            } else if *outcome == IterationOutcome::Succeeded
                && final_text.is_some_and(|text| last_line_is(text, promise))
            {
                Some(CompletionSignal::FinalText)
            } else if *outcome == IterationOutcome::Succeeded
                && events.is_empty()
                && default == Some(promise)
            {
                Some(CompletionSignal::DefaultPublishes)
            } else {
                None
            }
        }
    }
}

/// Whether the iteration deserves the [`Notice::PromiseNotAlone`](super::notice::Notice)
/// note: it succeeded and did not complete, did not emit the promise (an emitted one that
/// is not last has a note of its own), and its final answer names the promise somewhere
/// other than alone on its last line (the agent probably meant to finish).
pub fn promise_not_alone(
    promise: &str,
    outcome: &IterationOutcome,
    final_text: Option<&str>,
    completion: Option<CompletionSignal>,
    emitted: bool,
) -> bool {
    completion.is_none()
        && !emitted
        && *outcome == IterationOutcome::Succeeded
        && final_text.is_some_and(|text| text.contains(promise) && !last_line_is(text, promise))
}

/// Whether the last non-empty line of `text`, trimmed, is exactly `promise`.
pub fn last_line_is(text: &str, promise: &str) -> bool {
    text.lines()
        .map(str::trim)
        .rfind(|line| !line.is_empty())
        .is_some_and(|line| line == promise)
}
