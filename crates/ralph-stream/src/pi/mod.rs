//! pi (`pi -p --mode json`): JSON lines in both shapes pi has shipped.
//!
//! Up to the 0.8x releases every `message_update` repeats the whole message so far twice
//! (`assistantMessageEvent.partial` and `message`), so lines grow with the answer and the
//! stream grows quadratically. The parser reads the event type and the small
//! `assistantMessageEvent` head (`type`, `delta`); the snapshots are only skipped (a
//! later duplicate key would count), never decoded or built. Later releases send the delta-only shape (no snapshots,
//! plus `agent_settled`, `compaction_*`, `queue_update`, `parentToolCallId`); the same
//! code reads both because it never depends on a field being absent.
//!
//! Facts the parser relies on (see the real captures under tests/fixtures/pi):
//! - errors arrive as an assistant `message_end`/`turn_end` with `stopReason` "error" or
//!   "aborted" and an `errorMessage`, never as a `message_update` error, and pi exits 0;
//! - every retry attempt has its own `agent_start … agent_end`, and a run whose last
//!   attempt failed ends with `auto_retry_end {success: false}`;
//! - failed attempts stream text too, so text is only final once its message ended well;
//! - the same usage appears in `message_end`, `turn_end` and `agent_end`: it is counted
//!   once, from the assistant `message_end` (or `turn_end` if that was missing);
//! - in RPC mode (`pi --mode rpc`, when ralph steers it) the same events come, plus a
//!   `response` to each command ralph wrote. A refused `prompt` (or a command pi could not
//!   parse) means no turn will run: it ends the run as failed. Other answers are
//!   bookkeeping: a refused `steer` or `abort` changes nothing ralph reports;
//! - killed in print mode, pi writes nothing more (no `agent_end`), so its end alone does
//!   not say whether a model call was cut. Each turn makes one call: it is sent after
//!   `turn_start` and has ended with the turn's assistant `message_end` (pi writes that
//!   message's `message_start` only once the answer begins, so it cannot mark the send).

use crate::event::AgentEvent;
use crate::event::Phase;
use crate::event::Stop;
use crate::event::Usage;
use crate::json::JsonStr;
use crate::json::Scratch;
use crate::parser::AgentParser;
use crate::parser::Emit;
use crate::parser::saturate;
use crate::parser::stop_of;

mod fields;

use crate::parser::text_of;
use crate::parser::unknown_sub;
use fields::Fields;
use fields::Kind;
use fields::Message;
use fields::Update;

/// Parses pi's JSON lines; keeps the little state that spans lines.
#[derive(Debug, Default)]
pub(crate) struct PiParser {
    scratch: Scratch,
    /// How the last assistant message ended.
    last_stop: Option<Stop>,
    /// The last error message seen, for the run's final verdict.
    last_error: Option<String>,
    /// Whether the current turn's usage was already counted (from `message_end`).
    turn_usage_seen: bool,
    /// Whether `RunFinished` was emitted since the last `agent_start`.
    run_finished: bool,
    /// A `response` was seen: pi runs in RPC mode, where it outlives its turns.
    rpc: bool,
    /// The last `agent_end` closed a failed turn without saying whether pi retries it.
    failed_end: bool,
    /// A model call is in flight: a `turn_start` came and its assistant `message_end`
    /// (or its `turn_end`) has not.
    in_call: bool,
}

impl AgentParser for PiParser {
    fn scratch(&mut self) -> &mut Scratch {
        &mut self.scratch
    }

    /// End of stream: a call still in flight was cut there (pi killed while it waited for
    /// or read its model's answer). It was billed and pi never priced it: it ends aborted,
    /// which tells the summary the stream was cut
    /// ([`SessionSummary::stream_ended`](crate::SessionSummary::stream_ended)). Killed
    /// between calls (running a tool, say), pi's priced calls are all it spent.
    fn finish(&mut self, emit: &mut Emit<'_>) {
        if std::mem::take(&mut self.in_call) && !self.run_finished {
            emit(&AgentEvent::MessageFinished {
                text: "".into(),
                stop: Stop::Aborted,
                error: None,
            });
        }
    }

    fn on_event(&mut self, kind: Kind, f: &mut Fields<'_>, emit: &mut Emit<'_>) {
        match kind {
            Kind::Session => emit(&AgentEvent::SessionStarted {
                session_id: f.id.map(JsonStr::decode),
                model: None,
                provider: None,
            }),
            Kind::AgentStart => {
                self.run_finished = false;
                self.failed_end = false;
            }
            Kind::TurnStart => {
                self.turn_usage_seen = false;
                self.in_call = true;
            }
            Kind::MessageUpdate => {
                self.on_update(f.update.as_ref().unwrap_or(&Update::default()), emit)
            }
            Kind::MessageEnd => {
                if let Some(message) = &f.message {
                    self.on_message_end(message, emit);
                }
            }
            Kind::TurnEnd => {
                self.in_call = false;
                // Only when the turn's message_end was missing: the usage is the same.
                if let Some(message) = &f.message
                    && !self.turn_usage_seen
                {
                    self.on_message_end(message, emit);
                }
            }
            Kind::ToolStart => {
                let args = f.args.map_or("{}".into(), String::from_utf8_lossy);
                emit(&AgentEvent::ToolCallStarted {
                    id: f.tool_call_id.map(JsonStr::decode).unwrap_or_default(),
                    name: f.tool_name.map(JsonStr::decode).unwrap_or_default(),
                    args,
                    parent_id: f.parent_id.map(JsonStr::decode),
                });
            }
            Kind::ToolEnd => {
                let output = text_of(&f.result_texts, "\n", &mut self.scratch);
                emit(&AgentEvent::ToolCallFinished {
                    id: f.tool_call_id.map(JsonStr::decode).unwrap_or_default(),
                    name: f.tool_name.map(JsonStr::decode),
                    output: output.resolve(&self.scratch).into(),
                    is_error: f.is_error.unwrap_or(false),
                });
            }
            Kind::AgentEnd => {
                self.in_call = false;
                let failed = self.last_stop.is_some_and(Stop::is_failure);
                // Old pi says nothing about retries here; after a failed message a retry
                // may follow, so only `auto_retry_end` or `agent_settled` can end it. An
                // aborted message is never retried (pi retries transient provider errors):
                // after ralph's `abort` in RPC mode, `agent_end` is the end.
                let aborted = self.last_stop == Some(Stop::Aborted);
                let finished = match f.will_retry {
                    Some(will_retry) => !will_retry,
                    None => !failed || aborted,
                };
                if finished {
                    self.finish_run(failed, emit);
                } else {
                    self.failed_end = f.will_retry.is_none();
                }
            }
            Kind::AgentSettled => {
                if !self.run_finished {
                    let failed = self.last_stop.is_some_and(Stop::is_failure);
                    self.finish_run(failed, emit);
                }
            }
            Kind::RetryStart => {
                self.failed_end = false;
                emit(&AgentEvent::RetryStarted {
                    attempt: f.attempt.map(saturate),
                    max_attempts: f.max_attempts.map(saturate),
                    delay_ms: f.delay_ms,
                    error: f.error_message.map(JsonStr::decode),
                });
            }
            Kind::RetryEnd => {
                let success = f.success.unwrap_or(false);
                let error = f.final_error.map(JsonStr::decode);
                emit(&AgentEvent::RetryFinished {
                    success,
                    attempt: f.attempt.map(saturate),
                    error: error.clone(),
                });
                if !success {
                    if let Some(error) = error {
                        self.last_error = Some(error.into_owned());
                    }
                    self.finish_run(true, emit);
                }
            }
            Kind::CompactionStart => emit(&AgentEvent::Compaction {
                phase: Phase::Started,
                reason: f.reason.map(JsonStr::decode),
                error: None,
            }),
            Kind::CompactionEnd => emit(&AgentEvent::Compaction {
                phase: Phase::Finished,
                reason: f.reason.map(JsonStr::decode),
                error: f.error_message.map(JsonStr::decode),
            }),
            Kind::Response => {
                self.rpc = true;
                let command = f.command.as_ref().map(|c| c.name());
                let starts_the_turn = command
                    .as_deref()
                    .is_none_or(|c| matches!(c, b"prompt" | b"parse"));
                if f.success == Some(false) && starts_the_turn {
                    let why = f.error_message.map_or("no reason given".into(), |e| {
                        e.decode_into(&mut self.scratch)
                            .resolve(&self.scratch)
                            .to_owned()
                    });
                    self.last_error = Some(format!("pi refused the prompt: {why}"));
                    self.finish_run(true, emit);
                }
            }
            Kind::MessageStart | Kind::ToolUpdate | Kind::Ignored => {}
        }
    }
}

impl PiParser {
    fn on_update(&mut self, update: &Update<'_>, emit: &mut Emit<'_>) {
        let Some(kind) = update.kind else {
            emit(&AgentEvent::Unknown {
                event_type: "message_update".into(),
            });
            return;
        };
        match &*kind.name() {
            b"text_delta" => {
                if let Some(delta) = update.delta {
                    let text = delta.decode_into(&mut self.scratch);
                    emit(&AgentEvent::TextDelta {
                        text: text.resolve(&self.scratch).into(),
                    });
                }
            }
            b"thinking_delta" => {
                if let Some(delta) = update.delta {
                    let text = delta.decode_into(&mut self.scratch);
                    emit(&AgentEvent::ThinkingDelta {
                        text: text.resolve(&self.scratch).into(),
                    });
                }
            }
            b"text_start" | b"text_end" | b"thinking_start" | b"thinking_end"
            | b"toolcall_start" | b"toolcall_delta" | b"toolcall_end" | b"start" | b"done"
            | b"error" => {}
            _ => unknown_sub("message_update", kind, &mut self.scratch, emit),
        }
    }

    fn on_message_end(&mut self, message: &Message<'_>, emit: &mut Emit<'_>) {
        if message.role.is_some_and(|r| r.eq("user")) {
            // The prompt, or a steering message pi took into the conversation.
            let text = text_of(&message.texts, "\n", &mut self.scratch);
            emit(&AgentEvent::UserMessage {
                text: text.resolve(&self.scratch).into(),
            });
            return;
        }
        if !message.role.is_some_and(|r| r.eq("assistant")) {
            return;
        }
        let stop = message
            .stop_reason
            .map_or(Stop::Other, |r| stop_of(r, STOPS));
        let text = text_of(&message.texts, "\n", &mut self.scratch);
        let error = message
            .error_message
            .map(|e| e.decode_into(&mut self.scratch))
            .filter(|_| stop.is_failure());
        self.turn_usage_seen = true;
        self.in_call = false;
        self.last_stop = Some(stop);
        if let Some(error) = &error {
            self.last_error = Some(error.resolve(&self.scratch).to_owned());
        }
        emit(&AgentEvent::MessageFinished {
            text: text.resolve(&self.scratch).into(),
            stop,
            error: error.as_ref().map(|e| e.resolve(&self.scratch).into()),
        });
        let (tokens, cost) = message.usage.unwrap_or_default();
        emit(&AgentEvent::TurnFinished {
            usage: Usage::reported(tokens, cost, message.model.map(JsonStr::decode)),
            is_error: stop.is_failure(),
        });
        // The provider is only known here; it is not worth its own event.
        let _ = message.provider;
    }

    /// In RPC mode, after a failed turn's `agent_end` that did not say whether a retry
    /// follows: pi announces a retry (`auto_retry_start`) in the same instant, and says
    /// nothing more when it gives up on a non-retryable error (a 401, say): it then waits
    /// for the next command. Only the silence that follows tells.
    pub(crate) fn awaiting_retry(&self) -> bool {
        self.rpc && self.failed_end && !self.run_finished
    }

    fn finish_run(&mut self, is_error: bool, emit: &mut Emit<'_>) {
        self.run_finished = true;
        self.failed_end = false;
        emit(&AgentEvent::RunFinished {
            is_error,
            error: if is_error {
                self.last_error.as_deref().map(Into::into)
            } else {
                None
            },
            turns: None,
            duration_ms: None,
            totals: None,
        });
    }
}

/// pi's `stopReason`s.
const STOPS: &[(&[u8], Stop)] = &[
    (b"stop", Stop::Completed),
    (b"toolUse", Stop::ToolUse),
    (b"length", Stop::Length),
    (b"error", Stop::Error),
    (b"aborted", Stop::Aborted),
];

#[cfg(test)]
mod tests;
