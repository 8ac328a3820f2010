//! Gemini CLI (`gemini --output-format stream-json`).
//!
//! Facts the parser relies on (see the real transcripts under tests/fixtures/gemini,
//! Gemini CLI 0.61.0):
//! - `init` names the session and the model (`auto` when the router picks it);
//! - the answer streams as assistant `message` lines with `delta: true`, to be
//!   concatenated (no assistant message without `delta` was seen; one would be read the
//!   same way); thoughts are not emitted by 0.61.0 (other releases send a `thought`
//!   event with `subject` and `description`); the user's prompt is echoed as a user
//!   `message`;
//! - `tool_use` (`tool_id`, `tool_name`, `parameters`) and `tool_result` (`status`
//!   success / error, `output` or `error.message`) are matched by `tool_id`; a failing
//!   shell command is still a success (Gemini gives no exit code);
//! - no event closes a model response: a response ends where its tools report back
//!   (`tool_result`) or where the run ends (`result`);
//! - `result` closes the run: `status` success / error, `error.message`, and `stats` with
//!   the run's token counts summed over every request, per model in `stats.models`;
//!   `input_tokens` is the whole prompt (cached part included, `input` is the uncached
//!   part) and `total_tokens - input_tokens` is the output with thoughts, which Google
//!   bills as output. No cost: it is estimated per model from the price table;
//! - an `error` event with `severity: "warning"` is Gemini CLI stopping the run (its
//!   loop detection: `Loop detected, stopping execution`); the `result` after it still
//!   says `success`;
//! - Gemini CLI runs a response's tools once the response is whole, and each reports
//!   back with a `tool_result`: a `tool_use` still without one when the run ends in an
//!   error was cut with its response (the stream broke after its function-call chunk)
//!   and never ran, so it ends as a failed call ([`NOT_RUN`]) instead of staying open;
//! - retries are invisible on stdout (stderr only), and the exit code after API errors is
//!   the HTTP status modulo 256: the `result` line is the verdict, not the exit code.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::event::AgentEvent;
use crate::event::Stop;
use crate::event::Tokens;
use crate::event::Usage;
use crate::json::JsonStr;
use crate::json::Scratch;
use crate::json::Span;
use crate::parser::AgentParser;
use crate::parser::Emit;
use crate::parser::append;
use crate::pricing::Pricing;

mod fields;

use fields::Fields;
use fields::Kind;
use fields::Stats;

/// The output of a tool call the run ended before (see the module doc).
const NOT_RUN: &str = "not run: the run failed before Gemini CLI ran this call (its model \
                       response broke off)";

/// The model `init` names when Gemini CLI's router chooses per request: no price.
const ROUTED_MODEL: &str = "auto";

/// Parses Gemini CLI's stream-json lines.
#[derive(Debug, Default)]
pub(crate) struct GeminiParser {
    scratch: Scratch,
    pricing: Pricing,
    /// The model `init` named, for pricing a `result` without per-model stats.
    model: Option<String>,
    /// The model response being streamed.
    pending: Option<Pending>,
    /// Tool names by call id: results do not repeat them.
    tool_names: HashMap<String, String>,
    /// Model responses that ended well so far.
    ok_responses: u32,
    /// The warning Gemini CLI stopped the run with (its loop detection's), if it did.
    stopped: Option<String>,
}

#[derive(Debug, Default)]
struct Pending {
    text: String,
    has_tool_use: bool,
}

impl GeminiParser {
    pub(crate) fn new(pricing: Pricing) -> Self {
        GeminiParser {
            pricing,
            ..GeminiParser::default()
        }
    }

    pub(crate) fn set_pricing(&mut self, pricing: Pricing) {
        self.pricing = pricing;
    }
}

impl AgentParser for GeminiParser {
    fn scratch(&mut self) -> &mut Scratch {
        &mut self.scratch
    }

    fn on_event(&mut self, kind: Kind, f: &mut Fields<'_>, emit: &mut Emit<'_>) {
        match kind {
            Kind::Init => {
                let model = f.model.map(JsonStr::decode);
                self.model = model.as_ref().map(|m| m.to_string());
                emit(&AgentEvent::SessionStarted {
                    session_id: f.session_id.map(JsonStr::decode),
                    model,
                    provider: Some("google".into()),
                });
            }
            Kind::Message => {
                if f.role.is_some_and(|r| r.eq("assistant"))
                    && let Some(content) = f.content
                {
                    let text = content.decode_into(&mut self.scratch);
                    let text = text.resolve(&self.scratch);
                    self.pending
                        .get_or_insert_with(Pending::default)
                        .text
                        .push_str(text);
                    emit(&AgentEvent::TextDelta { text: text.into() });
                }
            }
            Kind::Thought => {
                // `subject: description`, as Gemini CLI prints a thought.
                let start = self.scratch.len();
                for (i, part) in [f.subject, f.description].into_iter().flatten().enumerate() {
                    if i > 0 {
                        self.scratch.push_str(": ");
                    }
                    append(part, &mut self.scratch);
                }
                if self.scratch.len() > start {
                    emit(&AgentEvent::ThinkingDelta {
                        text: self.scratch.as_str()[start..].into(),
                    });
                }
            }
            Kind::ToolUse => {
                self.pending
                    .get_or_insert_with(Pending::default)
                    .has_tool_use = true;
                let id = f.tool_id.map(JsonStr::decode).unwrap_or_default();
                let name = f.tool_name.map(JsonStr::decode).unwrap_or_default();
                self.tool_names.insert(id.to_string(), name.to_string());
                emit(&AgentEvent::ToolCallStarted {
                    id,
                    name,
                    args: f.parameters.map_or("{}".into(), String::from_utf8_lossy),
                    parent_id: None,
                });
            }
            Kind::ToolResult => {
                // The response that asked for the tools is over once they run.
                self.flush(Stop::ToolUse, None, emit);
                let id = f.tool_id.map(JsonStr::decode).unwrap_or_default();
                let is_error = f.status.is_some_and(|s| s.eq("error"));
                let output = f
                    .output
                    .or(f.error)
                    .map_or(Span::Line(""), |o| o.decode_into(&mut self.scratch));
                emit(&AgentEvent::ToolCallFinished {
                    // A call finishes once: its name is not needed again.
                    name: self.tool_names.remove(id.as_ref()).map(Into::into),
                    id,
                    output: output.resolve(&self.scratch).into(),
                    is_error,
                });
            }
            Kind::Error => {
                let message = f
                    .message
                    .map_or(Cow::Borrowed("gemini reported an error"), JsonStr::decode);
                if f.severity.is_some_and(|s| s.eq("warning")) {
                    // Gemini CLI's one warning (`Loop detected, stopping execution`) ends
                    // the run before the task does, and its `result` still says
                    // `success`: the run is failed at that `result`, for this reason.
                    self.stopped = Some(message.into_owned());
                } else {
                    self.pending.get_or_insert_with(Pending::default);
                    self.flush(Stop::Error, Some(&message), emit);
                }
            }
            Kind::Result => self.on_result(f, emit),
        }
    }
}

impl GeminiParser {
    fn on_result(&mut self, f: &mut Fields<'_>, emit: &mut Emit<'_>) {
        let failed = match f.status {
            Some(status) => !status.eq("success"),
            None => f.error.is_some(),
        };
        let stopped = self.stopped.take();
        let is_error = failed || stopped.is_some();
        let error = match (failed, stopped) {
            (false, Some(warning)) => Some(Cow::Owned(warning)),
            _ => is_error.then(|| {
                f.error
                    .map_or("gemini reported an error".into(), JsonStr::decode)
            }),
        };
        if is_error {
            self.flush(Stop::Error, error.as_deref(), emit);
            self.close_open_tools(emit);
        } else {
            self.flush(Stop::Completed, None, emit);
        }
        emit(&AgentEvent::RunFinished {
            is_error,
            turns: Some(self.ok_responses + u32::from(is_error)),
            error,
            duration_ms: f.stats.as_ref().and_then(|s| s.duration_ms),
            // Without stats the usage is unknown, not zero.
            totals: f.stats.as_ref().map(|s| self.price(s)),
        });
    }

    /// Ends the tool calls that never reported back as not run, in a fixed order (the
    /// events must not depend on a map's order).
    fn close_open_tools(&mut self, emit: &mut Emit<'_>) {
        let mut open: Vec<(String, String)> = self.tool_names.drain().collect();
        open.sort_unstable();
        for (id, name) in open {
            emit(&AgentEvent::ToolCallFinished {
                id: id.into(),
                name: Some(name.into()),
                output: NOT_RUN.into(),
                is_error: true,
            });
        }
    }

    /// The run's totals, priced per model when the stats say which model used what.
    fn price<'a>(&self, stats: &Stats<'a>) -> Usage<'a> {
        let tokens = stats.counts.tokens();
        if stats.models.is_empty() {
            let model = self
                .model
                .as_deref()
                .filter(|m| *m != ROUTED_MODEL)
                .map(|m| m.to_owned().into());
            return self.pricing.estimate(tokens, model);
        }
        let only_model = match stats.models.as_slice() {
            [(model, _)] => Some(model.decode()),
            _ => None,
        };
        let shares: Vec<(Cow<'_, str>, Tokens)> = stats
            .models
            .iter()
            .map(|(model, counts)| (model.decode(), counts.tokens()))
            .collect();
        let cost_usd = self
            .pricing
            .estimate_shares(shares.iter().map(|(m, t)| (m.as_ref(), *t)));
        Usage::estimated(tokens, cost_usd, only_model)
    }

    /// Ends the model response being streamed, if any.
    fn flush(&mut self, stop: Stop, error: Option<&str>, emit: &mut Emit<'_>) {
        let Some(pending) = self.pending.take() else {
            return;
        };
        let stop = if stop == Stop::Completed && pending.has_tool_use {
            Stop::ToolUse
        } else {
            stop
        };
        if !stop.is_failure() {
            self.ok_responses += 1;
        }
        emit(&AgentEvent::MessageFinished {
            text: pending.text.into(),
            stop,
            error: error.map(Into::into),
        });
    }
}

#[cfg(test)]
mod tests;
