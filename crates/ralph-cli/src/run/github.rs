//! The end of a run as GitHub Actions shows it: a markdown summary appended to the file
//! `GITHUB_STEP_SUMMARY` names (the job's summary page), and an `::error::` or
//! `::warning::` annotation for a failed or limited run.
//!
//! Workflow commands are read from the step's stdout, which under `--output json` is a
//! contract of JSON lines: ralph prints annotations only when its stdout is the text
//! view, and a program that reads the JSON (the action's script, `action.yml`) prints
//! them itself from `loop_finished`. The summary is a file, so it is written either way.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use ralph_core::machine::{EndClass, Spend};
use ralph_core::run_event::{GitHead, Totals};
use ralph_core::summary;
use ralph_core::token_count::TokenCount;

use crate::diagnostic::diagnostic;

/// The variable GitHub Actions sets to the step's summary file.
pub(crate) const STEP_SUMMARY_VAR: &str = "GITHUB_STEP_SUMMARY";
/// The variable GitHub Actions sets to `true` in every step.
pub(crate) const ACTIONS_VAR: &str = "GITHUB_ACTIONS";

/// Where the end of a run goes on GitHub Actions, read from the environment.
#[derive(Clone, Debug, Default)]
pub(crate) struct GitHub {
    /// The step summary to append to.
    pub(crate) summary: Option<PathBuf>,
    /// Print annotations on stdout (running under Actions, stdout not JSON).
    pub(crate) annotate: bool,
    /// The workspace as seen from where ralph was started, when that is elsewhere
    /// (`--worktree`): the summary's path is given from there, where the job runs.
    pub(crate) workspace_shown: Option<PathBuf>,
}

impl GitHub {
    /// From `GITHUB_STEP_SUMMARY` and `GITHUB_ACTIONS`; `json` says stdout is not the
    /// text view (JSON lines, or the full-screen view), where no annotation may go.
    pub(crate) fn from_env(json: bool) -> GitHub {
        GitHub::from_vars(
            std::env::var_os(STEP_SUMMARY_VAR),
            std::env::var_os(ACTIONS_VAR),
            json,
        )
    }

    fn from_vars(summary: Option<OsString>, actions: Option<OsString>, json: bool) -> GitHub {
        GitHub {
            summary: summary.filter(|s| !s.is_empty()).map(PathBuf::from),
            annotate: !json && actions.is_some_and(|a| a == "true"),
            workspace_shown: None,
        }
    }

    /// Writes the summary and prints the annotation `end` calls for. A summary that
    /// cannot be written costs a warning, never the run's exit code.
    pub(crate) fn report(&self, end: &RunEnd<'_>) {
        if let Some(path) = &self.summary {
            let seen = self
                .workspace_shown
                .as_ref()
                .map(|workspace| workspace.join(end.summary_path).display().to_string());
            let end = RunEnd {
                summary_path: seen.as_deref().unwrap_or(end.summary_path),
                ..*end
            };
            let appended = std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(path)
                .and_then(|mut f| f.write_all(step_summary(&end).as_bytes()));
            if let Err(e) = appended {
                diagnostic(format_args!(
                    "warning: cannot append the run's summary to {STEP_SUMMARY_VAR} ({}): {e}",
                    path.display()
                ));
            }
        }
        if self.annotate
            && let Some(line) = annotation(end)
        {
            // After the views' output, through the same relay; a closed stdout loses the
            // annotation, as it loses the text view.
            let mut out = crate::view::stdout_relay::RelayedStdout;
            let _ = writeln!(out, "{line}").and_then(|()| out.flush());
        }
    }
}

/// What the end of a run says, as `loop_finished` carries it.
pub(crate) struct RunEnd<'a> {
    pub(crate) reason: &'a str,
    pub(crate) message: &'a str,
    pub(crate) outcome: EndClass,
    pub(crate) exit_code: u8,
    pub(crate) totals: Totals,
    /// What the run spent, as summary.md words it: which iterations reported no cost,
    /// or only part of it, tells a lower bound from a cost nobody knows
    /// (`totals.cost_complete` alone cannot).
    pub(crate) spend: Spend,
    pub(crate) git: Option<&'a GitHead>,
    pub(crate) summary_path: &'a str,
}

fn outcome_name(outcome: EndClass) -> &'static str {
    match outcome {
        EndClass::Completed => "completed",
        EndClass::Failed => "failed",
        EndClass::LimitReached => "limit_reached",
        EndClass::Interrupted => "interrupted",
    }
}

/// The markdown appended to the step summary: a heading and a table.
pub(crate) fn step_summary(end: &RunEnd<'_>) -> String {
    let t = &end.totals;
    let mut md = format!(
        "### ralph: {}\n\n| | |\n|---|---|\n",
        outcome_name(end.outcome)
    );
    let mut row = |name: &str, value: &str| {
        let _ = writeln!(md, "| {name} | {} |", cell(value));
    };
    row("status", outcome_name(end.outcome));
    row("exit code", &end.exit_code.to_string());
    row("reason", &reason_text(end));
    if let Some(git) = end.git {
        row("branch", git.branch.as_deref().unwrap_or("(detached)"));
        row("commit", git.commit.as_deref().unwrap_or("(none yet)"));
    }
    row("iterations", &t.iterations.to_string());
    // In summary.md's words: a run no agent priced is "unknown", never "$0".
    row("cost", &summary::spent(&end.spend, t.iterations));
    // Copilot counts no tokens: its zero is "unknown", a sum with it a lower bound.
    let parts = format!(
        "{} in, {} out, {} cache read, {} cache write",
        t.tokens.input, t.tokens.output, t.tokens.cache_read, t.tokens.cache_write
    );
    let tokens = match TokenCount::of(t.tokens.total(), t.tokens_complete) {
        TokenCount::Counted(_) => parts,
        TokenCount::AtLeast(_) => format!("at least {parts}"),
        TokenCount::Unknown => "unknown".to_owned(),
    };
    row("tokens", &tokens);
    row("summary", end.summary_path);
    md.push('\n');
    md
}

/// The reason's name and its words, the name once: some messages start with it
/// (`completed: the agent emitted …`, `interrupted`).
fn reason_text(end: &RunEnd<'_>) -> String {
    let named = end
        .message
        .strip_prefix(end.reason)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'));
    if named {
        end.message.to_owned()
    } else {
        format!("{}: {}", end.reason, end.message)
    }
}

/// A markdown table cell: one line, no column break.
fn cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\r', '\n'], " ")
}

/// `::error` for a failed run, `::warning` for one a limit stopped; nothing otherwise.
pub(crate) fn annotation(end: &RunEnd<'_>) -> Option<String> {
    let level = match end.outcome {
        EndClass::Failed => "error",
        EndClass::LimitReached => "warning",
        EndClass::Completed | EndClass::Interrupted => return None,
    };
    Some(format!(
        "::{level} title=ralph {}::{}",
        property(outcome_name(end.outcome)),
        data(&format!("{} (exit {})", end.message, end.exit_code))
    ))
}

/// A workflow command's message: `%`, CR and LF escaped, as the runner unescapes them.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: also `:` and `,`.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
#[path = "github_tests.rs"]
mod tests;
