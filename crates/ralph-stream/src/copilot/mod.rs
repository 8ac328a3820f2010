//! GitHub Copilot CLI (`copilot -p … --output-format json`).
//!
//! Facts the parser relies on (see the real transcripts under tests/fixtures/copilot,
//! Copilot CLI 1.0.102):
//! - every line is `{type, data, id, timestamp, parentId, ephemeral?}`; everything ralph
//!   reads is in `data`, except on the final `result` line, which has no `data` but
//!   `sessionId`, `exitCode` and `usage` (durations, premium requests, code changes);
//! - the session's id appears only in that final `result`; the model in
//!   `session.tools_updated` (and on every `assistant.message`);
//! - one `assistant.message` per model call, with the whole `content` (the answer, or ""
//!   before tool calls) and `toolRequests`; the text streams before it as
//!   `assistant.message_delta` (`deltaContent`), reasoning as
//!   `assistant.reasoning_delta` / `assistant.reasoning`; the deltas can miss part of a
//!   long answer (a 48,013-character answer of 2,000 lines streamed 25,981 characters:
//!   its first 102 lines, then from line 1,020 on, `v1.0.102_json_long_answer_lossy_deltas`),
//!   so the whole `content` is the answer, and the deltas only a preview of it;
//! - tools: `tool.execution_start` (`toolCallId`, `toolName`, `arguments`) and
//!   `tool.execution_complete` (`success`, `result.content`, `error.message`,
//!   `shellExecution.exitCode`: a failing shell command is still `success: true`);
//! - failures: `model.call_failure` per failed request (`statusCode`, `errorMessage`,
//!   `retryAttempt`), `assistant.turn_retry` before each retry, `model.call_final_result`
//!   when the retrying ends, `session.error` when the run gives up, then `result` with
//!   `exitCode` 1;
//! - stopped (SIGINT, SIGTERM), it writes `agent.interrupted` (`activity`: `model_call`
//!   with the `model`, or `tool_call` with the `toolCallIds`), `abort` (`reason`:
//!   `user_abort`, `user_initiated`) and `assistant.idle {aborted: true}`, then `result`
//!   with `exitCode` 0 (`v1.0.102_json_interrupted_in_*`);
//! - no token counts and no cost (only premium requests, which are not dollars): usage is
//!   unknown. An `outputTokens` on `assistant.message`, seen in other releases, is kept.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;

use crate::event::AgentEvent;
use crate::event::CostKind;
use crate::event::Phase;
use crate::event::Stop;
use crate::event::Tokens;
use crate::event::Usage;
use crate::json::Cursor;
use crate::json::JsonStr;
use crate::json::Scratch;
use crate::json::Span;
use crate::parser::AgentParser;
use crate::parser::Emit;
use crate::parser::field_of;
use crate::parser::saturate;

mod fields;

use fields::Data;
use fields::Fields;
use fields::Kind;

/// Parses Copilot CLI's JSON lines.
#[derive(Debug, Default)]
pub(crate) struct CopilotParser {
    scratch: Scratch,
    session_announced: bool,
    session_id_known: bool,
    /// The model in use, from `session.tools_updated` or `session.start`.
    model: Option<String>,
    /// The message (and reasoning block) whose deltas were streamed: their final
    /// event must not repeat the text.
    streamed_message: Option<String>,
    /// What the deltas of `streamed_message` showed, to show what they missed.
    streamed_text: String,
    streamed_reasoning: Option<String>,
    /// Tool names by call id: completions do not repeat them.
    tool_names: HashMap<String, String>,
    /// The last failed request, for the retry that follows it.
    last_failure: Option<(Option<u64>, String)>,
    retrying: bool,
    /// Why the session gave up (`session.error`), for the final verdict.
    session_error: Option<String>,
    /// Why the session was aborted (`abort`), for the final verdict: its `result` says
    /// `exitCode: 0` all the same.
    aborted: Option<String>,
}

impl AgentParser for CopilotParser {
    fn scratch(&mut self) -> &mut Scratch {
        &mut self.scratch
    }

    fn on_event(&mut self, kind: Kind, f: &mut Fields<'_>, emit: &mut Emit<'_>) {
        let d = &f.data;
        match kind {
            Kind::SessionStart | Kind::ToolsUpdated => {
                if let Some(model) = d.model {
                    self.model = Some(model.decode().into_owned());
                }
                let session_id = d.session_id.map(JsonStr::decode);
                if !self.session_announced || (session_id.is_some() && !self.session_id_known) {
                    self.announce(session_id, emit);
                }
            }
            Kind::ModelChange => {
                if let Some(model) = d.model {
                    self.model = Some(model.decode().into_owned());
                }
            }
            Kind::MessageDelta => {
                if d.parent_tool_call_id.is_none()
                    && let Some(delta) = d.content
                {
                    let id = d.id.map(JsonStr::decode).unwrap_or_default();
                    if self.streamed_message.as_deref() != Some(id.as_ref()) {
                        self.streamed_message = Some(id.into_owned());
                        self.streamed_text.clear();
                    }
                    let delta = delta.decode_into(&mut self.scratch);
                    let delta = delta.resolve(&self.scratch);
                    self.streamed_text.push_str(delta);
                    emit(&AgentEvent::TextDelta { text: delta.into() });
                }
            }
            Kind::Message => self.on_message(d, emit),
            Kind::ReasoningDelta => {
                if d.parent_tool_call_id.is_none()
                    && let Some(delta) = d.content
                {
                    let id = d.id.map(JsonStr::decode).unwrap_or_default();
                    if self.streamed_reasoning.as_deref() != Some(id.as_ref()) {
                        self.streamed_reasoning = Some(id.into_owned());
                    }
                    let delta = delta.decode_into(&mut self.scratch);
                    emit(&AgentEvent::ThinkingDelta {
                        text: delta.resolve(&self.scratch).into(),
                    });
                }
            }
            Kind::Reasoning => {
                let id = d.id.map(JsonStr::decode).unwrap_or_default();
                if d.parent_tool_call_id.is_none()
                    && self.streamed_reasoning.as_deref() != Some(id.as_ref())
                    && let Some(content) = d.content
                {
                    let content = content.decode_into(&mut self.scratch);
                    emit(&AgentEvent::ThinkingDelta {
                        text: content.resolve(&self.scratch).into(),
                    });
                }
            }
            Kind::ToolStart => {
                let id = d.tool_call_id.map(JsonStr::decode).unwrap_or_default();
                let name = d.tool_name.map(JsonStr::decode).unwrap_or_default();
                self.tool_names.insert(id.to_string(), name.to_string());
                emit(&AgentEvent::ToolCallStarted {
                    id,
                    name,
                    args: d.arguments.map_or("{}".into(), String::from_utf8_lossy),
                    parent_id: d.parent_tool_call_id.map(JsonStr::decode),
                });
            }
            Kind::ToolComplete => {
                let id = d.tool_call_id.map(JsonStr::decode).unwrap_or_default();
                let failed = d.success == Some(false) || d.exit_code.is_some_and(|c| c != 0.0);
                let output = d
                    .result
                    .or(d.error)
                    .map_or(Span::Line(""), |o| o.decode_into(&mut self.scratch));
                emit(&AgentEvent::ToolCallFinished {
                    // A call finishes once: its name is not needed again.
                    name: self.tool_names.remove(id.as_ref()).map(Into::into),
                    id,
                    output: output.resolve(&self.scratch).into(),
                    is_error: failed,
                });
            }
            Kind::CallFailure => self.on_call_failure(d, emit),
            Kind::TurnRetry => {
                self.retrying = true;
                let (attempt, error) = match &self.last_failure {
                    Some((attempt, error)) => (*attempt, Some(error.as_str().into())),
                    None => (None, d.message.map(JsonStr::decode)),
                };
                emit(&AgentEvent::RetryStarted {
                    // `retryAttempt` counts from 0 on the first request.
                    attempt: attempt.map(|a| saturate(a.saturating_add(1))),
                    max_attempts: None,
                    delay_ms: None,
                    error,
                });
            }
            Kind::CallFinalResult => {
                if self.retrying {
                    self.retrying = false;
                    let success = d.result.is_none_or(|r| r.eq("success"));
                    let error = (!success).then(|| match &self.last_failure {
                        Some((_, error)) => error.as_str().into(),
                        None => d.result.map(JsonStr::decode).unwrap_or_default(),
                    });
                    emit(&AgentEvent::RetryFinished {
                        success,
                        attempt: None,
                        error,
                    });
                }
            }
            Kind::SessionError => {
                self.session_error = Some(
                    d.message
                        .map_or("copilot reported a session error".into(), JsonStr::decode)
                        .into_owned(),
                );
            }
            Kind::Interrupted => self.on_interrupted(d, emit),
            Kind::Abort => {
                self.aborted = Some(d.message.map_or(String::new(), |r| r.decode().into_owned()));
            }
            Kind::CompactionStart => emit(&AgentEvent::Compaction {
                phase: Phase::Started,
                reason: None,
                error: None,
            }),
            Kind::CompactionComplete => emit(&AgentEvent::Compaction {
                phase: Phase::Finished,
                reason: None,
                error: d.error.map(JsonStr::decode),
            }),
            Kind::Result => self.on_result(&f.session_id, f.exit_code, f.duration_ms, emit),
            Kind::Ignored => {}
        }
    }
}

impl CopilotParser {
    fn announce(&mut self, session_id: Option<Cow<'_, str>>, emit: &mut Emit<'_>) {
        self.session_announced = true;
        self.session_id_known |= session_id.is_some();
        emit(&AgentEvent::SessionStarted {
            session_id,
            model: self.model.as_deref().map(Into::into),
            provider: None,
        });
    }

    fn on_message(&mut self, d: &Data<'_>, emit: &mut Emit<'_>) {
        // A sub-agent's words are not the agent's answer, and its usage is unknown anyway.
        if d.parent_tool_call_id.is_some() {
            return;
        }
        let text = d
            .content
            .map_or(Span::Line(""), |t| t.decode_into(&mut self.scratch));
        let text = text.resolve(&self.scratch);
        let id = d.id.map(JsonStr::decode).unwrap_or_default();
        let streamed = if self.streamed_message.as_deref() == Some(id.as_ref()) {
            self.streamed_text.as_str()
        } else {
            ""
        };
        match unshown(streamed, text) {
            Unshown::Nothing => {}
            Unshown::Rest(rest) => emit(&AgentEvent::TextDelta { text: rest.into() }),
            Unshown::Whole => {
                // The deltas showed something else than the answer (a piece of it
                // missing): what they showed cannot be taken back, so the answer follows
                // whole, on a line of its own, and nothing of it is lost.
                if !streamed.ends_with('\n') {
                    emit(&AgentEvent::TextDelta { text: "\n".into() });
                }
                emit(&AgentEvent::TextDelta { text: text.into() });
            }
        }
        self.streamed_message = None;
        self.streamed_text.clear();
        self.last_failure = None;
        emit(&AgentEvent::MessageFinished {
            text: text.into(),
            stop: if d.tool_requests {
                Stop::ToolUse
            } else {
                Stop::Completed
            },
            error: None,
        });
        let model = d
            .model
            .map(JsonStr::decode)
            .or_else(|| self.model.as_deref().map(Into::into));
        let tokens = Tokens {
            output: d.output_tokens.unwrap_or(0),
            ..Tokens::default()
        };
        emit(&AgentEvent::TurnFinished {
            usage: Usage {
                tokens,
                cost_usd: None,
                cost_kind: CostKind::Unknown,
                model,
            },
            is_error: false,
        });
    }

    /// Copilot was stopped: a model call in flight ends aborted (with what its deltas
    /// showed), and tool calls in flight end failed, as they never finished.
    fn on_interrupted(&mut self, d: &Data<'_>, emit: &mut Emit<'_>) {
        match d.activity.map(JsonStr::name).as_deref() {
            Some(b"model_call") => {
                let text = if self.streamed_message.take().is_some() {
                    std::mem::take(&mut self.streamed_text)
                } else {
                    String::new()
                };
                emit(&AgentEvent::MessageFinished {
                    text: text.into(),
                    stop: Stop::Aborted,
                    error: None,
                });
                emit(&AgentEvent::TurnFinished {
                    usage: Usage {
                        model: d
                            .model
                            .map(JsonStr::decode)
                            .or_else(|| self.model.as_deref().map(Into::into)),
                        ..Usage::default()
                    },
                    is_error: true,
                });
            }
            _ => {
                for id in &d.tool_call_ids {
                    let id = id.decode();
                    emit(&AgentEvent::ToolCallFinished {
                        name: self.tool_names.remove(id.as_ref()).map(Into::into),
                        id,
                        output: TOOL_INTERRUPTED.into(),
                        is_error: true,
                    });
                }
            }
        }
    }

    fn on_call_failure(&mut self, d: &Data<'_>, emit: &mut Emit<'_>) {
        let start = self.scratch.len();
        if let Some(status) = d.status_code {
            let _ = write!(self.scratch, "HTTP {status}");
        }
        if let Some(message) = d.message.or(d.error) {
            let sep = if self.scratch.len() > start { ": " } else { "" };
            let _ = write!(self.scratch, "{sep}{}", readable(message));
        }
        if self.scratch.len() == start {
            self.scratch.push_str("model call failed");
        }
        let error = &self.scratch.as_str()[start..];
        self.last_failure = Some((d.retry_attempt, error.to_owned()));
        emit(&AgentEvent::MessageFinished {
            text: "".into(),
            stop: Stop::Error,
            error: Some(error.into()),
        });
        emit(&AgentEvent::TurnFinished {
            usage: Usage {
                model: d.model.map(JsonStr::decode),
                ..Usage::default()
            },
            is_error: true,
        });
    }

    fn on_result(
        &mut self,
        session_id: &Option<JsonStr<'_>>,
        exit_code: Option<u64>,
        duration_ms: Option<u64>,
        emit: &mut Emit<'_>,
    ) {
        if !self.session_id_known
            && let Some(id) = session_id
        {
            self.announce(Some(id.decode()), emit);
        }
        let is_error = self.aborted.is_some()
            || match exit_code {
                Some(code) => code != 0,
                None => self.session_error.is_some(),
            };
        let error = is_error.then(|| match (&self.session_error, &self.aborted, exit_code) {
            (Some(error), _, _) => error.as_str().into(),
            (None, Some(reason), _) if reason.is_empty() => ABORTED.into(),
            (None, Some(reason), _) => format!("{ABORTED} ({reason})").into(),
            (None, None, Some(code)) => format!("copilot exited with code {code}").into(),
            (None, None, None) => "copilot reported an error".into(),
        });
        emit(&AgentEvent::RunFinished {
            is_error,
            error,
            turns: None,
            duration_ms,
            totals: None,
        });
    }
}

/// The error of a run Copilot ended on an `abort` (it was stopped), whose `result` says
/// `exitCode: 0`.
const ABORTED: &str = "copilot was stopped before it finished";

/// The output of a tool call Copilot was stopped in.
const TOOL_INTERRUPTED: &str = "copilot was stopped while this tool ran";

/// What of a message's final text its deltas did not show.
#[derive(Debug, PartialEq, Eq)]
enum Unshown<'t> {
    Nothing,
    /// The deltas showed its beginning: the rest.
    Rest(&'t str),
    /// The deltas showed something that is not its beginning: all of it.
    Whole,
}

fn unshown<'t>(streamed: &str, text: &'t str) -> Unshown<'t> {
    match text.strip_prefix(streamed) {
        _ if text.is_empty() => Unshown::Nothing,
        Some("") => Unshown::Nothing,
        Some(rest) => Unshown::Rest(rest),
        None => Unshown::Whole,
    }
}

/// An error message, or the `message` of the provider's JSON error body when that is
/// what Copilot passed on (`{"message":"…","type":"server_error",…}`).
fn readable(message: JsonStr<'_>) -> Cow<'_, str> {
    let text = message.decode();
    if text.starts_with('{') {
        let mut c = Cursor::new(text.as_bytes());
        if let Ok(Some(inner)) = field_of(&mut c, b"message", Cursor::read_str) {
            return inner.decode().into_owned().into();
        }
    }
    text
}

#[cfg(test)]
mod tests;
