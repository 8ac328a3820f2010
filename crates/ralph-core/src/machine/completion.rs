//! The completion rules: when an iteration says the task is done.
//!
//! Only an iteration that **succeeded** can complete the run ("done" means a clean
//! iteration said so): one that failed (exited non-zero, crashed, timed out, its stream
//! reported an error) or that ralph cut (the cost or runtime limit, a provider's rate
//! limit, the user) did not end as its agent meant, whatever it said before. Its
//! promise is dropped with a notice, and the loop goes on (the next iteration can say
//! it again); a run cut by a limit or the user stops there, as it would anyway. Two
//! signals, both strict on purpose (users lose money to loops that stop early and to
//! loops that never stop):
//! - the agent ran `ralph emit <promise>` and it was the **last** event of the
//!   iteration (an agent that emits the promise and then hands work on has not
//!   finished);
//! - fallback: the last non-empty line of its final answer is exactly the promise
//!   (surrounding whitespace aside). The final answer is the last assistant message
//!   that did not fail, so tool output, thinking, the echoed prompt and text of failed
//!   or retried attempts never count; a sentence that mentions or quotes the promise
//!   does not either. Nor does an answer the model's output-token limit cut short (its
//!   stop was `length`): what it says may be missing its end, so it is no clean "done",
//!   and the promise is dropped with a notice (the iteration still succeeded; the next
//!   one can say it again). pi and OpenCode report such a stop; Codex fails the
//!   iteration, and Claude Code and Copilot ask the model to go on.
//!
//! A hat whose `default_publishes` is the promise completes the loop too when it
//! succeeds without emitting anything: the default is published for it, as any other
//! default is (a promise ralph would route as an ordinary event would never end the
//! loop).

use super::notice::Notice;
use super::outcome::{CompletionSignal, IterationOutcome};
use crate::event::Event;

/// The completion signal an iteration gave, if any. `events` are the valid events it
/// emitted, in order; `final_cut` says the output-token limit cut its final answer
/// short; `default` is its hat's `default_publishes`.
pub fn completion_signal(
    promise: &str,
    events: &[Event],
    outcome: &IterationOutcome,
    final_text: Option<&str>,
    final_cut: bool,
    default: Option<&str>,
) -> Option<CompletionSignal> {
    // Failed or cut short: it did not end as its agent meant (the publisher says why
    // its promise did not count).
    if *outcome != IterationOutcome::Succeeded {
        return None;
    }
    if events.last().is_some_and(|e| e.topic == promise) {
        Some(CompletionSignal::Event)
    } else if events.iter().any(|e| e.topic == promise) {
        // Emitted, then work handed on: not finished, whatever the final answer says
        // (the note on the promise not being last says so too).
        None
    } else if final_text.is_some_and(|text| last_line_is(text, promise)) {
        // A cut answer's promise is dropped (see `answer_notice`), and nothing below
        // completes for it: the hat said something.
        (!final_cut).then_some(CompletionSignal::FinalText)
    } else if events.is_empty() && default == Some(promise) {
        Some(CompletionSignal::DefaultPublishes)
    } else {
        None
    }
}

/// The note an iteration's final answer earns when it named the promise and the run did
/// not complete, if any:
/// - [`Notice::PromiseNotAlone`]: it succeeded, and its answer names the promise
///   somewhere other than alone on its last line (the agent probably meant to finish);
/// - [`Notice::PromiseCutAtLength`]: it succeeded, and its answer ends on the promise,
///   but the output-token limit cut that answer short (`final_cut`);
/// - [`Notice::PromiseFailed`]: its answer ends on the promise, but it failed or ralph
///   cut it at a limit, so the answer did not count.
///
/// An emitted promise has notes of its own (not last, from a failed or limited attempt),
/// so `emitted` says none is needed here.
pub fn answer_notice(
    promise: &str,
    outcome: &IterationOutcome,
    final_text: Option<&str>,
    final_cut: bool,
    completion: Option<CompletionSignal>,
    emitted: bool,
) -> Option<Notice> {
    let text =
        final_text.filter(|text| completion.is_none() && !emitted && text.contains(promise))?;
    if *outcome == IterationOutcome::Succeeded {
        let promise = promise.to_owned();
        return if !last_line_is(text, &promise) {
            Some(Notice::PromiseNotAlone { promise })
        } else {
            // Alone on its last line and still no signal: only a cut answer gives none.
            final_cut.then_some(Notice::PromiseCutAtLength { promise })
        };
    }
    let dropped = promise_dropped(promise, outcome)?;
    (matches!(dropped, Notice::PromiseFailed { .. }) && last_line_is(text, promise))
        .then_some(dropped)
}

/// Why a promise given by an iteration that did not succeed was dropped, for its notice;
/// `None` for one that succeeded, or that the user interrupted (the run stops, and its
/// reason says enough).
pub fn promise_dropped(promise: &str, outcome: &IterationOutcome) -> Option<Notice> {
    let promise = promise.to_owned();
    match outcome {
        IterationOutcome::Succeeded | IterationOutcome::Interrupted => None,
        IterationOutcome::RateLimited { .. } => Some(Notice::PromiseRateLimited { promise }),
        IterationOutcome::Failed { .. }
        | IterationOutcome::StoppedAtCostLimit
        | IterationOutcome::StoppedAtRuntimeLimit => Some(Notice::PromiseFailed {
            promise,
            outcome: outcome.name().to_owned(),
        }),
    }
}

/// Whether the last non-empty line of `text`, trimmed, is exactly `promise`.
pub fn last_line_is(text: &str, promise: &str) -> bool {
    text.lines()
        .map(str::trim)
        .rfind(|line| !line.is_empty())
        .is_some_and(|line| line == promise)
}

#[cfg(test)]
#[path = "completion_tests.rs"]
mod tests;
