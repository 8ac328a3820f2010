//! How one agent's activity looks on a terminal: its answer streamed as Markdown, each
//! tool call on one line, failures always marked, retries as they happen.
//!
//! Output is written as it arrives: nothing is buffered past the few characters the
//! Markdown styler holds at a line start, and nothing already written is redrawn.

use std::collections::HashMap;

use anstyle::Style;
use ralph_core::visible::visible;
use ralph_stream::AgentEvent;
use ralph_stream::Phase;
use ralph_stream::Stop;

use super::markdown::Markdown;
use super::palette;
use super::tool_preview::failure_preview;
use super::tool_preview::one_line;
use super::tool_preview::output_preview;
use super::tool_preview::output_tail;
use super::tool_preview::preview;
use super::tool_preview::shortened;

/// Lines of a tool's output shown with `-v`.
pub(crate) const TOOL_OUTPUT_LINES: usize = 3;

/// What starts each line of thinking: it marks thinking where colour does not.
const THINKING_GUTTER: &str = "┊ ";

/// What marks a call a sub-agent made (the agent's stream names the call it runs under),
/// so that it does not read as the main agent's.
const SUB_AGENT_MARK: &str = "sub-agent › ";

/// Longest argument in a call's name on a result shown away from its call: enough to
/// tell parallel calls of one tool apart, short enough to leave the result readable.
const CALL_ARGUMENT_CHARS: usize = 40;

/// What the view wrote last, to know when a new line is needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Last {
    Nothing,
    /// Assistant text; `true` when it ended mid-line.
    Text(bool),
    Thinking(bool),
    Line,
}

/// Renders one agent run's events.
#[derive(Debug)]
pub(crate) struct AgentView {
    verbose: bool,
    markdown: Markdown,
    last: Last,
    /// Tool calls by id: results do not always repeat the tool's name, and a result
    /// shown away from its call names the call.
    tools: HashMap<String, Call>,
    /// The call whose line (`▸`, `✗` or `↳`) was written last, when nothing else was
    /// written after it: a result for that call needs no name.
    shown_call: Option<String>,
    /// The last error shown, so the run's verdict does not repeat it.
    last_error: Option<String>,
    /// User messages the agent showed so far: the first is the prompt, not shown again.
    user_messages: u32,
    buf: String,
}

impl AgentView {
    /// `verbose` shows thinking, tool output and non-JSON lines.
    pub(crate) fn new(verbose: bool) -> Self {
        AgentView {
            verbose,
            markdown: Markdown::new(),
            last: Last::Nothing,
            tools: HashMap::new(),
            shown_call: None,
            last_error: None,
            user_messages: 0,
            buf: String::new(),
        }
    }

    /// Renders one event, appending what it shows (with ANSI styles) to `out`.
    pub(crate) fn render(&mut self, event: &AgentEvent<'_>, out: &mut String) {
        self.buf.clear();
        match event {
            AgentEvent::TextDelta { text } => {
                if matches!(self.last, Last::Thinking(_)) {
                    self.end_thinking();
                }
                self.markdown.push(&visible(text), &mut self.buf);
                self.last = Last::Text(!self.markdown.at_line_start());
            }
            AgentEvent::ThinkingDelta { text } => {
                if self.verbose {
                    self.end_text();
                    self.thinking(&visible(text));
                }
            }
            AgentEvent::ToolCallStarted {
                id,
                name,
                args,
                parent_id,
            } => {
                let call = Call {
                    name: name.to_string(),
                    preview: preview(args),
                    sub_agent: parent_id.is_some(),
                };
                let mark = if call.sub_agent { SUB_AGENT_MARK } else { "" };
                let text = format!("{mark}{name}  {}", call.preview);
                self.line(palette::TOOL, "▸", &text);
                self.tools.insert(id.to_string(), call);
                self.shown_call = Some(id.to_string());
            }
            AgentEvent::ToolCallFinished {
                id,
                name,
                output,
                is_error,
            } => {
                self.result(id, name.as_deref(), output, *is_error);
            }
            AgentEvent::MessageFinished { stop, error, .. } => {
                self.end_text();
                match error.as_deref() {
                    // Not a failure, but the answer may be missing its end (and a promise
                    // ending it does not count: the `promise_cut_at_length` notice).
                    _ if *stop == Stop::Length => self.line(
                        palette::NOTICE,
                        "⚠",
                        "the answer hit the model's output-token limit: it was cut short",
                    ),
                    _ if !stop.is_failure() => {}
                    Some(error) => self.error_line("model call failed", error),
                    // How a parser ends the call a cut stream was in (pi or OpenCode
                    // stopped while their model answered): no failure of the agent's.
                    None if *stop == Stop::Aborted => {
                        self.error_line("model call cut short", "the agent stopped before it ended")
                    }
                    None => self.error_line("model call failed", "no error message"),
                }
            }
            AgentEvent::RetryStarted {
                attempt,
                max_attempts,
                delay_ms,
                error,
            } => {
                let mut text = String::from("retrying");
                if let Some(ms) = delay_ms {
                    text.push_str(&format!(" in {}", seconds(*ms)));
                }
                match (attempt, max_attempts) {
                    (Some(a), Some(m)) => text.push_str(&format!(" (attempt {a}/{m})")),
                    (Some(a), None) => text.push_str(&format!(" (attempt {a})")),
                    _ => {}
                }
                if let Some(error) = error {
                    text.push_str(&format!(": {}", one_line(error)));
                }
                self.line(palette::NOTICE, "↻", &text);
            }
            AgentEvent::RetryFinished { success, error, .. } => {
                if !success {
                    let error = error.as_deref().unwrap_or("the last attempt failed");
                    self.error_line("retries exhausted", error);
                }
            }
            AgentEvent::Compaction {
                phase,
                reason,
                error,
            } => {
                let what = match (phase, error) {
                    (_, Some(error)) => format!("compaction failed: {}", one_line(error)),
                    (Phase::Started, None) => "compacting context".to_owned(),
                    (Phase::Finished, None) => "context compacted".to_owned(),
                };
                let why = reason
                    .as_deref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default();
                self.line(palette::NOTICE, "⋯", &format!("{what}{why}"));
            }
            AgentEvent::RateLimit { status, resets_at } => {
                let status = status.as_deref().unwrap_or("limited");
                if status != "allowed" {
                    let when = resets_at
                        .map(|t| format!(", resets {}", ralph_core::time_text::utc_minute_secs(t)))
                        .unwrap_or_default();
                    self.line(
                        palette::NOTICE,
                        "⏳",
                        &format!("rate limit: {status}{when}"),
                    );
                }
            }
            AgentEvent::RunFinished {
                is_error, error, ..
            } => {
                self.end_text();
                if *is_error
                    && let Some(error) = error
                    && self.last_error.as_deref() != Some(error.as_ref())
                {
                    self.error_line("run failed", error);
                }
            }
            AgentEvent::UserMessage { text } => {
                self.user_messages += 1;
                // Later ones are messages the agent read during its run (`ralph steer`).
                if self.user_messages > 1 {
                    self.end_text();
                    self.line(palette::NOTICE, "✉", &format!("read: {}", one_line(text)));
                }
            }
            AgentEvent::NonJson { line } => {
                if self.verbose {
                    self.line(palette::DIM, "│", &one_line(line));
                }
            }
            AgentEvent::OversizeLine { len } => {
                self.line(
                    palette::DIM,
                    "⚠",
                    &format!("skipped an output line of {len} bytes"),
                );
            }
            AgentEvent::SessionStarted { .. }
            | AgentEvent::TurnFinished { .. }
            | AgentEvent::Unknown { .. } => {}
        }
        let tool_event = matches!(
            event,
            AgentEvent::ToolCallStarted { .. } | AgentEvent::ToolCallFinished { .. }
        );
        if !tool_event && !self.buf.is_empty() {
            // Something else came between a call and its result.
            self.shown_call = None;
        }
        out.push_str(&self.buf);
    }

    /// A tool's result: `✗` when it failed, its output with `-v`. When the line before
    /// is not this call's (parallel calls finish in any order), the call is named.
    fn result(&mut self, id: &str, name: Option<&str>, output: &str, is_error: bool) {
        // A call has one result: forgotten with it, the map holds only the calls still
        // running, however many a long run makes.
        let call = self.tools.remove(id);
        let call = call.as_ref();
        let name = name.or(call.map(|c| c.name.as_str())).unwrap_or("tool");
        let name = match call {
            Some(call) if call.sub_agent => format!("{SUB_AGENT_MARK}{name}"),
            _ => name.to_owned(),
        };
        let label = match call {
            Some(call) if self.shown_call.as_deref() != Some(id) => call.label(&name),
            _ => name,
        };
        let shown = if !self.verbose {
            Vec::new()
        } else if is_error {
            // A failure's last lines (a traceback's exception, a compiler's last
            // error) add to its first, on the `✗` line; a success's gist is at the start.
            output_tail(output, TOOL_OUTPUT_LINES)
        } else {
            output_preview(output, TOOL_OUTPUT_LINES)
        };
        if is_error {
            self.line(
                palette::ERROR,
                "✗",
                &format!("{label} failed: {}", failure_preview(output)),
            );
        } else if !shown.is_empty() && self.shown_call.as_deref() != Some(id) {
            self.line(palette::DIM, "  ↳", &format!("{label} returned:"));
        }
        for line in &shown {
            self.line(palette::DIM, "  ↳", line);
        }
        if is_error || !shown.is_empty() {
            self.shown_call = Some(id.to_owned());
        }
    }

    /// The run is over (or something else is about to be shown): ends an open line.
    pub(crate) fn finish(&mut self, out: &mut String) {
        self.buf.clear();
        self.end_text();
        self.end_thinking();
        out.push_str(&self.buf);
    }

    /// A failure of the model call or the run (a tool's failure is the agent's business).
    fn error_line(&mut self, what: &str, error: &str) {
        self.line(palette::ERROR, "✗", &format!("{what}: {}", one_line(error)));
        self.last_error = Some(error.to_owned());
    }

    /// One line of its own: a marker, then text.
    fn line(&mut self, style: Style, marker: &str, text: &str) {
        self.end_text();
        self.end_thinking();
        self.buf.push_str(&format!(
            "{}{marker} {}{}\n",
            style.render(),
            visible(text),
            style.render_reset()
        ));
        self.last = Last::Line;
    }

    fn end_text(&mut self) {
        if let Last::Text(mid_line) = self.last {
            self.markdown.finish(&mut self.buf);
            if mid_line {
                self.buf.push('\n');
            }
            self.last = Last::Line;
        }
    }

    /// Thinking text, dim and behind a gutter at each line's start, so that it stays
    /// apart from the answer without colour (`NO_COLOR`, a pipe).
    fn thinking(&mut self, text: &str) {
        let mut at_line_start = !matches!(self.last, Last::Thinking(true));
        self.buf.push_str(&palette::DIM.render().to_string());
        for piece in text.split_inclusive('\n') {
            if at_line_start {
                self.buf.push_str(THINKING_GUTTER);
            }
            self.buf.push_str(piece);
            at_line_start = piece.ends_with('\n');
        }
        self.buf.push_str(&palette::DIM.render_reset().to_string());
        if !text.is_empty() {
            self.last = Last::Thinking(!at_line_start);
        }
    }

    fn end_thinking(&mut self) {
        if let Last::Thinking(mid_line) = self.last {
            if mid_line {
                self.buf.push('\n');
            }
            self.last = Last::Line;
        }
    }
}

/// A tool call the view showed.
#[derive(Debug)]
struct Call {
    name: String,
    /// Its telling argument (see [`preview`]).
    preview: String,
    /// A sub-agent's call, not the main agent's.
    sub_agent: bool,
}

impl Call {
    /// `name (argument)`, the argument cut short: which of several calls this is.
    fn label(&self, name: &str) -> String {
        if self.preview.is_empty() {
            return name.to_owned();
        }
        format!("{name} ({})", shortened(&self.preview, CALL_ARGUMENT_CHARS))
    }
}

/// `4s`, `1.5s`, `250ms`.
fn seconds(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{:.1}s", ms as f64 / 1000.0)
    }
}

#[cfg(test)]
#[path = "agent_tests.rs"]
mod tests;
