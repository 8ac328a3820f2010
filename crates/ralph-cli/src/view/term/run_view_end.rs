//! The end of a run in the text view: why the loop stopped, its totals, the hats'
//! table, and the run's figures against its limits (also used by each iteration's
//! footer).

use std::path::Path;

use anstyle::Style;
use ralph_core::machine::{EndClass, StopReason, format_usd_limit};
use ralph_core::run_event::{RunEvent, Totals};
use ralph_core::token_count::TokenCount;

use super::RunView;
use super::line;
use crate::view::term::figures::{count, duration_ms, total_cost};
use crate::view::term::palette;

impl RunView {
    /// Why the loop stopped, and the run's totals.
    pub(super) fn finished(&mut self, event: &RunEvent<'_>, out: &mut String) {
        let RunEvent::LoopFinished {
            reason,
            message,
            outcome,
            totals,
            summary_path,
            ..
        } = event
        else {
            return;
        };
        let (style, mark) = match outcome {
            EndClass::Completed => (palette::SUCCESS, "✓"),
            EndClass::Failed => (palette::ERROR, "✗"),
            EndClass::LimitReached | EndClass::Interrupted => (palette::NOTICE, "■"),
        };
        line(out, style, &format!("{mark} {message}"));
        line(
            out,
            Style::new(),
            &format!(
                "  {} · {} · {} · {}",
                count(u64::from(totals.iterations), "iteration", "iterations"),
                duration_ms(totals.elapsed_ms),
                total_cost(totals),
                TokenCount::of(totals.tokens.total(), totals.tokens_complete).words(),
            ),
        );
        if self.has_hats {
            for row in self.hat_table.lines() {
                line(out, Style::new(), &row);
            }
        }
        self.steering.closing(out);
        let pointers = Pointers::of(
            reason,
            *outcome,
            summary_path,
            self.workspace_shown.as_deref(),
        );
        line(out, Style::new(), &format!("  {}", pointers.summary));
        if let Some(resume) = &pointers.resume {
            line(out, palette::DIM, &format!("  {resume}"));
        }
    }

    /// `1/10 iterations · 4.2s of 1h 00m · $0.0102 of $2.00`.
    pub(super) fn against_limits(&self, totals: &Totals) -> String {
        let Some(limits) = &self.limits else {
            return format!(
                "{} · {} · {}",
                count(u64::from(totals.iterations), "iteration", "iterations"),
                duration_ms(totals.elapsed_ms),
                total_cost(totals)
            );
        };
        let cost = match limits.max_cost_usd {
            Some(max) => format!("{} of {}", total_cost(totals), format_usd_limit(max)),
            None => total_cost(totals),
        };
        format!(
            "{}/{} iterations · {} of {} · {cost}",
            totals.iterations,
            limits.max_iterations,
            duration_ms(totals.elapsed_ms),
            duration_ms(limits.max_runtime_secs * 1000),
        )
    }
}

/// Where a finished run points the reader next: its summary, and how to go on with it
/// when it can go on. Said at the end of the text view, and by `ralph run --tui` once it
/// has given the terminal back (the screen it drew is gone then).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Pointers {
    /// `summary: <path>`.
    pub(crate) summary: String,
    /// `` `ralph run --continue` resumes it ``: not for a run that completed or failed.
    pub(crate) resume: Option<String>,
}

impl Pointers {
    /// `workspace_shown` is the workspace as seen from where ralph was started, when the
    /// loop ran elsewhere (`--worktree`): the summary's path and the resume are said
    /// from there.
    pub(crate) fn of(
        reason: &StopReason,
        outcome: EndClass,
        summary_path: &str,
        workspace_shown: Option<&Path>,
    ) -> Pointers {
        let summary = match workspace_shown {
            Some(workspace) => workspace.join(summary_path).display().to_string(),
            None => summary_path.to_owned(),
        };
        let summary = format!("summary: {summary}");
        // A stale loop hit no limit to raise: a resumed run counts repeats afresh, but
        // an agent that would repeat itself again needs other instructions first.
        let (how, then) = match (outcome, reason) {
            (_, StopReason::StaleLoop { .. }) => (
                "",
                "; change the prompt or the hats first if the agent would only repeat \
                 itself again",
            ),
            (EndClass::Interrupted, _) => ("", ""),
            (EndClass::LimitReached, _) => (" with a higher limit", ""),
            (EndClass::Completed | EndClass::Failed, _) => {
                return Pointers {
                    summary,
                    resume: None,
                };
            }
        };
        // A worktree loop seen from elsewhere resumes only in its worktree.
        let place = workspace_shown
            .map(|w| format!(" in {}", w.display()))
            .unwrap_or_default();
        Pointers {
            summary,
            resume: Some(format!(
                "`ralph run --continue`{how}{place} resumes it{then}"
            )),
        }
    }
}

#[cfg(test)]
#[path = "run_view_end_tests.rs"]
mod tests;
