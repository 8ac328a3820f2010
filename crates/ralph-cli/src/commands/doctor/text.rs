//! `ralph doctor`'s report for people: the agents, then the configuration, each line
//! marked `✓`, `!` (a warning) or `✗`, and the verdict.

use std::io::Write;

use anstyle::Style;

use super::Report;
use crate::error::CliError;
use crate::run::backends::agent_label;

/// Why a problem with a hat without triggers is only a warning.
const UNREACHABLE: &str =
    "the hat has no triggers, so it never runs and `ralph run` does not check it";
/// Width of the name column in the text report (the longest backend name, `opencode`).
const NAME_WIDTH: usize = 9;

pub(super) fn print_text(report: &Report) -> Result<(), CliError> {
    let stdout = std::io::stdout();
    let color = anstream::AutoStream::choice(&stdout);
    let mut out = anstream::AutoStream::new(stdout.lock(), color);
    let ok = Style::new().fg_color(Some(anstyle::AnsiColor::Green.into()));
    let bad = Style::new().fg_color(Some(anstyle::AnsiColor::Red.into()));
    let dim = Style::new().dimmed();
    let bold = Style::new().bold();
    let mut text = String::new();
    let mut line = |style: Style, s: String| {
        text.push_str(&format!("{}{s}{}\n", style.render(), style.render_reset()));
    };
    line(bold, "Agents".to_owned());
    for b in &report.backends {
        match (&b.path, &b.problem) {
            (Some(path), None) => {
                let version = b.version.as_deref().unwrap_or("version unknown");
                line(
                    ok,
                    format!("  ✓ {:<NAME_WIDTH$} {version}  ({path})", b.name),
                );
                let stdin = if b.prompt_on_stdin {
                    "  (prompt on stdin)"
                } else {
                    ""
                };
                line(dim, format!("      {}{stdin}", b.command));
            }
            (Some(path), Some(problem)) => {
                line(
                    bad,
                    format!("  ✗ {:<NAME_WIDTH$} {problem} ({path})", b.name),
                );
            }
            (None, _) => line(
                dim,
                format!(
                    "  · {:<NAME_WIDTH$} not installed: {}",
                    b.name, b.install_hint
                ),
            ),
        }
    }
    line(Style::new(), String::new());
    let c = &report.config;
    let files = if c.files.is_empty() {
        "no config file: built-in defaults".to_owned()
    } else {
        c.files.join(", ")
    };
    line(bold, format!("Configuration ({files})"));
    for error in &c.errors {
        line(bad, format!("  ✗ {error}"));
    }
    for warning in &c.warnings {
        line(dim, format!("  ! {warning}"));
    }
    for agent in &c.agents {
        let who = agent_label(Some(&agent.hat), agent.fallback);
        let backend = agent.backend.unwrap_or("no agent");
        match (&agent.problem, &agent.command) {
            (None, Some(command)) => {
                let stdin = if agent.prompt_on_stdin {
                    "  (prompt on stdin)"
                } else {
                    ""
                };
                line(ok, format!("  ✓ {who}: {backend}"));
                line(dim, format!("      {command}{stdin}"));
            }
            // `ralph run` does not check a hat that never runs: not a reason to fail.
            (Some(problem), _) if !agent.needed => line(
                dim,
                format!("  ! {who}: {backend}: {problem} ({UNREACHABLE})"),
            ),
            (Some(problem), _) => line(bad, format!("  ✗ {who}: {backend}: {problem}")),
            (None, None) => line(bad, format!("  ✗ {who}: {backend}")),
        }
    }
    if let Some(specs) = &c.specs_dir {
        line(dim, format!("  specs: {specs}"));
    }
    if let Some(task) = &c.task {
        line(dim, format!("  task: {task}"));
    }
    if let Some(note) = &c.task_note {
        line(dim, format!("  ! {note}"));
    }
    line(Style::new(), String::new());
    if report.ok && c.task_note.is_some() {
        line(ok, "✓ ready to run, given a task (`-p` or `-P`)".to_owned());
    } else if report.ok {
        line(ok, "✓ ready to run".to_owned());
    } else {
        line(bad, "✗ not ready: fix what is marked ✗ above".to_owned());
    }
    out.write_all(text.as_bytes()).map_err(CliError::write)?;
    out.flush().map_err(CliError::write)
}
