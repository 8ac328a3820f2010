//! The plain-text view of a run: a header per iteration, the agent's answer as it
//! streams, one line per tool call, a footer with the outcome and usage, and why the
//! loop stopped. No colours, no cursor movement: fit for logs and pipes.

use std::io::{self, Write};
use std::time::Duration;

use ralph_core::machine::format_duration;
use ralph_core::run_event::{RunEvent, Totals};
use ralph_core::summary::thousands;
use ralph_stream::AgentEvent;

use super::observer::{Observer, report_closed};

/// Longest tool-input preview or error line shown, in characters.
const PREVIEW_CHARS: usize = 100;
/// Lines of a failed agent's stderr shown under the footer.
const STDERR_LINES: usize = 5;

pub(crate) struct PlainObserver<W: Write> {
    out: W,
    closed: bool,
    /// Whether the cursor is at the start of a line (agent text may end mid-line).
    at_line_start: bool,
}

impl PlainObserver<io::Stdout> {
    pub(crate) fn stdout() -> Self {
        PlainObserver::new(io::stdout())
    }
}

impl<W: Write> PlainObserver<W> {
    pub(crate) fn new(out: W) -> Self {
        PlainObserver {
            out,
            closed: false,
            at_line_start: true,
        }
    }

    /// Text for the output, with the line-start bookkeeping.
    fn render(&mut self, event: &RunEvent<'_>) -> String {
        let mut s = String::new();
        match event {
            RunEvent::LoopStarted {
                run_id,
                resumed,
                backend,
                hats,
                limits,
                totals,
                ..
            } => {
                if *resumed {
                    s.push_str(&format!(
                        "ralph: continuing run {run_id} after {} iterations\n",
                        totals.iterations
                    ));
                } else {
                    s.push_str(&format!("ralph: run {run_id}\n"));
                }
                let hats = if hats.is_empty() {
                    "no hats".to_owned()
                } else {
                    format!("hats {}", hats.join(", "))
                };
                let budget = limits
                    .max_cost_usd
                    .map(|c| format!(", ${c:.2}"))
                    .unwrap_or_default();
                s.push_str(&format!(
                    "ralph: backend {backend}, {hats}; limits: {} iterations, {}{budget}\n",
                    limits.max_iterations,
                    format_duration(Duration::from_secs(limits.max_runtime_secs)),
                ));
            }
            RunEvent::IterationStarted {
                iteration,
                max_iterations,
                hat,
                hat_name,
                backend,
                ..
            } => {
                self.line_break(&mut s);
                let hat = if hat == hat_name {
                    (*hat).to_owned()
                } else {
                    format!("{hat_name} ({hat})")
                };
                s.push_str(&format!(
                    "\n=== iteration {iteration}/{max_iterations} · {hat} · {backend} ===\n"
                ));
            }
            RunEvent::Agent { event, .. } => self.agent(&mut s, event),
            RunEvent::EventsEmitted {
                events,
                invalid_lines,
                ..
            } => {
                self.line_break(&mut s);
                let topics: Vec<&str> = events.iter().map(|e| e.topic.as_str()).collect();
                if !topics.is_empty() {
                    s.push_str(&format!("  emitted: {}\n", topics.join(", ")));
                }
                if *invalid_lines > 0 {
                    let lines = plural(u64::from(*invalid_lines), "inbox line", "inbox lines");
                    s.push_str(&format!("  {lines} ignored: not events\n"));
                }
            }
            RunEvent::Notice { notice, .. } => {
                self.line_break(&mut s);
                s.push_str(&format!("ralph: note: {notice}\n"));
            }
            RunEvent::IterationFinished {
                iteration,
                outcome,
                duration_ms,
                cost_usd,
                tokens,
                stderr_tail,
                ..
            } => {
                self.line_break(&mut s);
                let spent = match cost_usd {
                    Some(c) => format!("${c:.4}"),
                    None => "cost unknown".to_owned(),
                };
                s.push_str(&format!(
                    "--- iteration {iteration} {outcome} · {} · {spent} · {} tokens\n",
                    format_duration(Duration::from_millis(*duration_ms)),
                    thousands(tokens.total())
                ));
                if let Some(tail) = stderr_tail {
                    let lines: Vec<&str> = tail.trim_end().lines().collect();
                    let from = lines.len().saturating_sub(STDERR_LINES);
                    for line in &lines[from..] {
                        s.push_str(&format!("    stderr: {}\n", clip(line)));
                    }
                }
            }
            RunEvent::LoopFinished {
                message,
                totals,
                summary_path,
                ..
            } => {
                self.line_break(&mut s);
                s.push_str(&format!(
                    "\nralph: {message}\nralph: {}\nralph: summary: {summary_path}\n",
                    totals_line(totals)
                ));
            }
        }
        if let Some(last) = s.chars().last() {
            self.at_line_start = last == '\n';
        }
        s
    }

    fn agent(&mut self, s: &mut String, event: &AgentEvent<'_>) {
        match event {
            AgentEvent::TextDelta { text } => s.push_str(text),
            AgentEvent::ToolCallStarted { name, args, .. } => {
                self.line_break(s);
                s.push_str(&format!("  > {name}: {}\n", preview(args)));
            }
            AgentEvent::ToolCallFinished {
                name,
                output,
                is_error: true,
                ..
            } => {
                self.line_break(s);
                let first = output.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                s.push_str(&format!(
                    "  ! {} failed: {}\n",
                    name.as_deref().unwrap_or("tool"),
                    clip(first)
                ));
            }
            AgentEvent::RetryStarted {
                attempt,
                max_attempts,
                delay_ms,
                error,
            } => {
                self.line_break(s);
                let attempt = match (attempt, max_attempts) {
                    (Some(a), Some(m)) => format!(" (attempt {a}/{m})"),
                    (Some(a), None) => format!(" (attempt {a})"),
                    _ => String::new(),
                };
                let delay = delay_ms
                    .map(|d| format!(" in {}", format_duration(Duration::from_millis(d))))
                    .unwrap_or_default();
                let why = error.as_deref().map(clip).unwrap_or_default();
                s.push_str(&format!("  ~ retrying{attempt}{delay}: {why}\n"));
            }
            AgentEvent::MessageFinished { text, .. } if !text.is_empty() => {
                // Agents that stream deltas end their message with a line break of
                // their own only sometimes: keep the next line apart.
                self.line_break(s);
            }
            AgentEvent::SessionStarted { .. }
            | AgentEvent::ThinkingDelta { .. }
            | AgentEvent::ToolCallFinished { .. }
            | AgentEvent::MessageFinished { .. }
            | AgentEvent::TurnFinished { .. }
            | AgentEvent::RetryFinished { .. }
            | AgentEvent::Compaction { .. }
            | AgentEvent::RateLimit { .. }
            | AgentEvent::RunFinished { .. }
            | AgentEvent::NonJson { .. }
            | AgentEvent::Unknown { .. }
            | AgentEvent::OversizeLine { .. } => {}
        }
        if let Some(last) = s.chars().last() {
            self.at_line_start = last == '\n';
        }
    }

    /// Ends the current line if agent text left it open.
    fn line_break(&mut self, s: &mut String) {
        let open = match s.chars().last() {
            Some(c) => c != '\n',
            None => !self.at_line_start,
        };
        if open {
            s.push('\n');
        }
    }
}

impl<W: Write> Observer for PlainObserver<W> {
    fn observe(&mut self, event: &RunEvent<'_>) {
        if self.closed {
            return;
        }
        let text = self.render(event);
        if text.is_empty() {
            return;
        }
        let written = self
            .out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush());
        if let Err(e) = written {
            self.closed = true;
            report_closed(&e);
        }
    }
}

fn totals_line(t: &Totals) -> String {
    let spent = if t.cost_complete {
        format!("${:.4}", t.cost_usd)
    } else {
        format!("at least ${:.4} (some costs were not reported)", t.cost_usd)
    };
    format!(
        "{} · {} · {spent} · {} tokens",
        plural(u64::from(t.iterations), "iteration", "iterations"),
        format_duration(Duration::from_millis(t.elapsed_ms)),
        thousands(t.tokens.total())
    )
}

/// `1 iteration`, `2 iterations`.
fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// One line saying what a tool call does: its command, path, pattern or URL when it
/// has one, else its input as compact JSON.
pub(crate) fn preview(args: &str) -> String {
    const KEYS: [&str; 8] = [
        "command",
        "cmd",
        "file_path",
        "path",
        "pattern",
        "query",
        "url",
        "description",
    ];
    let value: serde_json::Value = match serde_json::from_str(args) {
        Ok(v) => v,
        Err(_) => return clip(args),
    };
    let picked = KEYS
        .iter()
        .find_map(|k| value.get(*k).and_then(serde_json::Value::as_str));
    match picked {
        Some(text) => clip(text),
        None => clip(&value.to_string()),
    }
}

/// The first line of `text`, at most [`PREVIEW_CHARS`] characters.
fn clip(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() > PREVIEW_CHARS {
        let mut s: String = line.chars().take(PREVIEW_CHARS).collect();
        s.push('…');
        s
    } else if text.trim().lines().nth(1).is_some() {
        format!("{line} …")
    } else {
        line.to_owned()
    }
}

#[cfg(test)]
#[path = "plain_tests.rs"]
mod tests;
