//! What one agent event adds to an iteration of the full-screen view's model, and what
//! the agent is then doing (for the status line).

use super::line_cap::append_capped;
use super::mirror::AgentLine;
use super::model::{Entry, Iteration, TOOL_OUTPUT_KEPT, ToolCall};
use crate::view::term::tool_preview;

/// What the status line says while the agent streams text, and its thinking.
pub(super) const WRITING: &str = "writing";
pub(super) const THINKING: &str = "thinking";

/// Adds an agent event to its iteration; says what the agent is doing when that changed.
pub(super) fn agent(it: &mut Iteration, event: AgentLine) -> Option<String> {
    match event {
        AgentLine::SessionStarted { model } => {
            if model.is_some() {
                it.model = model;
            }
            None
        }
        AgentLine::TextDelta { text } => {
            match it.entries.last_mut() {
                Some(Entry::Text(t)) => append_capped(t, &text),
                _ => {
                    let mut t = String::new();
                    append_capped(&mut t, &text);
                    it.entries.push(Entry::Text(t));
                }
            }
            Some(WRITING.to_owned())
        }
        AgentLine::ThinkingDelta { text } => {
            match it.entries.last_mut() {
                Some(Entry::Thinking(t)) => append_capped(t, &text),
                _ => {
                    let mut t = String::new();
                    append_capped(&mut t, &text);
                    it.entries.push(Entry::Thinking(t));
                }
            }
            Some(THINKING.to_owned())
        }
        AgentLine::ToolCallStarted { id, name, args } => {
            let raw = match &args {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let doing = format!("running {name}");
            it.entries.push(Entry::Tool(ToolCall {
                id,
                name,
                preview: tool_preview::preview(&raw),
                failed: None,
                output: String::new(),
                expanded: false,
            }));
            Some(doing)
        }
        AgentLine::ToolCallFinished {
            id,
            output,
            is_error,
        } => {
            let call = it.entries.iter_mut().rev().find_map(|e| match e {
                Entry::Tool(t) if t.id == id => Some(t),
                _ => None,
            });
            if let Some(call) = call {
                call.failed = Some(is_error);
                call.output = tail(output, TOOL_OUTPUT_KEPT);
            }
            Some("waiting for the model".to_owned())
        }
        AgentLine::MessageFinished { stop, error } => {
            if let Some(error) = error {
                it.entries
                    .push(Entry::Note(format!("message ended ({stop}): {error}")));
            }
            // The next message's text starts a new entry.
            if matches!(it.entries.last(), Some(Entry::Text(_) | Entry::Thinking(_))) {
                it.entries.push(Entry::Note(String::new()));
            }
            None
        }
        AgentLine::TurnFinished { usage } => {
            if usage.model.is_some() {
                it.model = usage.model;
            }
            None
        }
        AgentLine::RetryStarted { attempt, error } => {
            let attempt = attempt.map(|a| format!(" {a}")).unwrap_or_default();
            let error = error.unwrap_or_default();
            it.entries
                .push(Entry::Note(format!("retry{attempt}: {error}")));
            Some("retrying".to_owned())
        }
        AgentLine::RunFinished { is_error, error } => {
            if is_error {
                let error = error.unwrap_or_else(|| "the agent failed".to_owned());
                it.entries
                    .push(Entry::Note(format!("agent error: {error}")));
            }
            Some("finishing".to_owned())
        }
        AgentLine::NonJson { line } => {
            it.entries.push(Entry::Note(line));
            None
        }
        AgentLine::UserMessage { text } => {
            it.user_messages += 1;
            // Worded as the line view words it; the prompt is not shown again.
            if it.user_messages > 1 {
                let text = tool_preview::one_line(&text);
                it.entries.push(Entry::Note(format!("✉ read: {text}")));
            }
            None
        }
        AgentLine::Other => None,
    }
}

/// The last `max` bytes of `text` (on a character boundary).
fn tail(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let cut = text.ceil_char_boundary(text.len() - max);
    text.replace_range(..cut, "…");
    text
}
