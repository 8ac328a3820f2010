//! Why the loop's last completion claim was refused: kept in the state, so that a loop
//! that then stops at a limit says in its verdict what stood in the way.

use serde::{Deserialize, Serialize};

use super::gate::GateEnd;
use super::outcome::StopReason;
use super::state::LoopState;

/// What refused a completion claim.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum CompletionRefusal {
    /// A gate guarding the promise did not pass.
    Gate {
        gate: String,
        end: GateEnd,
        exit_code: Option<i32>,
    },
    /// Tasks of the run were still open or in progress.
    OpenTasks { count: usize },
}

impl std::fmt::Display for CompletionRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompletionRefusal::Gate {
                gate,
                end,
                exit_code,
            } => {
                write!(f, "the last completion claim was refused by gate `{gate}`")?;
                match (end, exit_code) {
                    (GateEnd::Exit, Some(code)) => write!(f, " (exit code {code})"),
                    (GateEnd::Timeout, _) => f.write_str(" (timed out)"),
                    (GateEnd::Spawn, _) => f.write_str(" (could not start)"),
                    (GateEnd::Interrupted, _) => f.write_str(" (interrupted)"),
                    (GateEnd::RuntimeLimit, _) => f.write_str(" (stopped at the runtime limit)"),
                    (GateEnd::Exit | GateEnd::Passed, _) => Ok(()),
                }
            }
            CompletionRefusal::OpenTasks { count: 1 } => {
                f.write_str("the last completion claim was refused: 1 task was still open")
            }
            CompletionRefusal::OpenTasks { count } => write!(
                f,
                "the last completion claim was refused: {count} tasks were still open"
            ),
        }
    }
}

/// The most characters of the last failure's reason a verdict quotes: it is one line of
/// the summary and of `-q`'s output; `history.jsonl` keeps it whole.
const LAST_FAILURE_CHARS: usize = 300;

/// The loop's final verdict: why it stopped, and, when it stopped otherwise after its
/// completion was refused, what refused it.
pub fn verdict(reason: &StopReason, state: &LoopState) -> String {
    let mut verdict = match (&state.refusal, reason) {
        (Some(refusal), reason) if !matches!(reason, StopReason::Completed { .. }) => {
            format!("{reason}; {refusal}")
        }
        _ => reason.to_string(),
    };
    // Failures in a row say why the last one failed: the count alone sends the user to
    // `--continue`, which fails the same way while the cause (a login, a key) stands.
    if let (StopReason::ConsecutiveFailures { failures }, Some(why)) = (reason, &state.last_failure)
    {
        let words: Vec<&str> = why.split_whitespace().collect();
        verdict.push_str(&format!(
            " ({}{})",
            // One failure is the only one: no "last" of it.
            if *failures == 1 { "" } else { "the last: " },
            crate::inbox::excerpt(&words.join(" "), LAST_FAILURE_CHARS)
        ));
    }
    // A loop that ran out of time while a provider limited it says until when, and,
    // when the wait it did not start would have ended at another time (limits in a row
    // back off past a reset time; an agent may give none), when that was.
    if let (StopReason::MaxRuntime { .. }, Some(limit)) = (reason, &state.rate_limit) {
        let resets = limit.resets_at.map(crate::time_text::utc_minute_secs);
        let retry = limit.retry_at.map(crate::time_text::utc_minute_secs);
        match &resets {
            Some(at) => verdict.push_str(&format!("; rate limited until {at}")),
            None => verdict.push_str("; still rate limited"),
        }
        if let Some(retry) = retry.filter(|retry| Some(retry) != resets.as_ref()) {
            verdict.push_str(&format!(" (the next attempt was due at {retry})"));
        }
    }
    verdict
}
