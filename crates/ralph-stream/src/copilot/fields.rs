//! Reading Copilot CLI's events: the kinds ralph knows and the fields it uses, read
//! lazily from the line.

use super::CopilotParser;

use crate::json::Cursor;
use crate::json::JsonStr;
use crate::json::Malformed;
use crate::json::Read;
use crate::json::fields;
use crate::parser::Hints;
use crate::parser::Vocabulary;
use crate::parser::event_kinds;
use crate::parser::field_of;
use crate::parser::read_strings;

event_kinds! {
    pub(crate) enum Kind {
        SessionStart = b"session.start"
            | b"session.resume",
        ToolsUpdated = b"session.tools_updated",
        ModelChange = b"session.model_change",
        MessageDelta = b"assistant.message_delta",
        Message = b"assistant.message",
        ReasoningDelta = b"assistant.reasoning_delta",
        Reasoning = b"assistant.reasoning",
        ToolStart = b"tool.execution_start",
        ToolComplete = b"tool.execution_complete",
        CallFailure = b"model.call_failure",
        TurnRetry = b"assistant.turn_retry",
        CallFinalResult = b"model.call_final_result",
        SessionError = b"session.error",
        /// What was in flight when Copilot was stopped (ralph's SIGINT or SIGTERM, an
        /// inactivity timeout): a model call, or tool calls.
        Interrupted = b"agent.interrupted",
        /// The session was aborted (`reason`); its `result` still says `exitCode: 0`.
        Abort = b"abort",
        CompactionStart = b"session.compaction_start",
        CompactionComplete = b"session.compaction_complete",
        Result = b"result",
        /// Known, carries nothing ralph uses.
        /// Set-up, progress and bookkeeping. `tool.shell_output` and
        /// `tool.execution_partial_result` repeat output that `tool.execution_complete`
        /// carries whole; `session.background_tasks_changed` comes by the dozen, empty.
        Ignored = b"session.skills_loaded"
            | b"session.mcp_servers_loaded"
            | b"session.mcp_server_status_changed"
            | b"session.custom_agents_updated"
            | b"session.extensions_loaded"
            | b"session.background_tasks_changed"
            | b"session.info"
            | b"session.warning"
            | b"session.idle"
            | b"session.title_changed"
            | b"session.usage_info"
            | b"session.usage_checkpoint"
            | b"session.context_changed"
            | b"session.shutdown"
            | b"session.task_complete"
            | b"user.message"
            | b"pending_messages.modified"
            | b"assistant.turn_start"
            | b"assistant.turn_end"
            | b"assistant.message_start"
            | b"assistant.intent"
            | b"assistant.streaming_delta"
            | b"assistant.tool_call_delta"
            | b"assistant.usage"
            | b"assistant.idle"
            | b"model.call_start"
            | b"model.call_finished"
            | b"tool.user_requested"
            | b"tool.execution_progress"
            | b"tool.execution_partial_result"
            | b"tool.shell_output"
            | b"skill.invoked"
            | b"subagent.started"
            | b"subagent.completed"
            | b"subagent.failed"
            | b"subagent.selected"
            | b"subagent.deselected"
            | b"hook.start"
            | b"hook.progress"
            | b"hook.end"
            | b"permission.requested"
            | b"permission.completed",
    }
}

impl Vocabulary for CopilotParser {
    type Kind = Kind;
    type Fields<'a> = Fields<'a>;
    /// Copilot's types are dotted and namespaced by who speaks; its `result` is the only
    /// one with `sessionId` and `exitCode`.
    const HINTS: &'static Hints = &Hints {
        shared_types: &[b"result"],
        keys: &[b"sessionId", b"exitCode"],
        type_prefixes: &[
            b"session.",
            b"user.",
            b"assistant.",
            b"tool.",
            b"model.",
            b"subagent.",
        ],
    };
    /// Its long lines carry a tool's output, over and over (`tool.shell_output`,
    /// `tool.execution_partial_result`, and `result.content` beside
    /// `result.detailedContent`): the parser reads it once and skips the rest.
    const INDEX_LONG_LINES: bool = true;

    fn read_field<'a>(&self, k: Kind, key: &[u8], c: &mut Cursor<'a>, f: &mut Fields<'a>) -> Read {
        match (k, key) {
            (Kind::Ignored, _) => c.skip()?,
            (Kind::Result, b"sessionId") => f.session_id = c.read_str()?,
            (Kind::Result, b"exitCode") => f.exit_code = c.read_u64()?,
            (Kind::Result, b"usage") => {
                f.duration_ms = field_of(c, b"sessionDurationMs", Cursor::read_u64)?;
            }
            (Kind::Result, _) => c.skip()?,
            (_, b"data") => f.data = read_data(k, c)?,
            _ => c.skip()?,
        }
        Ok(())
    }
}

#[derive(Debug, Default)]
pub(crate) struct Fields<'a> {
    pub(super) data: Data<'a>,
    pub(super) session_id: Option<JsonStr<'a>>,
    pub(super) exit_code: Option<u64>,
    pub(super) duration_ms: Option<u64>,
}

/// The `data` of a line: the union of the fields ralph reads from every event type.
/// Where several keys mean one thing, one is taken by a fixed preference, not by where
/// it stands in the line.
#[derive(Debug, Default)]
pub(super) struct Data<'a> {
    pub(super) session_id: Option<JsonStr<'a>>,
    /// `newModel`, `selectedModel` or `model`.
    pub(super) model: Option<JsonStr<'a>>,
    /// `messageId` or `reasoningId`.
    pub(super) id: Option<JsonStr<'a>>,
    /// `deltaContent`, or a message's or reasoning's `content`.
    pub(super) content: Option<JsonStr<'a>>,
    pub(super) tool_requests: bool,
    pub(super) output_tokens: Option<u64>,
    pub(super) parent_tool_call_id: Option<JsonStr<'a>>,
    pub(super) tool_call_id: Option<JsonStr<'a>>,
    pub(super) tool_name: Option<JsonStr<'a>>,
    pub(super) arguments: Option<&'a [u8]>,
    pub(super) success: Option<bool>,
    pub(super) result: Option<JsonStr<'a>>,
    pub(super) error: Option<JsonStr<'a>>,
    pub(super) exit_code: Option<f64>,
    pub(super) status_code: Option<u64>,
    pub(super) retry_attempt: Option<u64>,
    /// `message`, `errorMessage` or `reason`.
    pub(super) message: Option<JsonStr<'a>>,
    /// What an `agent.interrupted` stopped: `model_call` or `tool_call`.
    pub(super) activity: Option<JsonStr<'a>>,
    /// The tool calls an `agent.interrupted` stopped.
    pub(super) tool_call_ids: Vec<JsonStr<'a>>,
}

fn read_data<'a>(kind: Kind, c: &mut Cursor<'a>) -> Result<Data<'a>, Malformed> {
    let mut d = Data::default();
    let content_is_text = matches!(kind, Kind::Message | Kind::Reasoning);
    // The keys of one meaning, most preferred first.
    let (mut models, mut ids, mut contents, mut messages) =
        ([None; 3], [None; 2], [None; 2], [None; 3]);
    fields!(c, {
        b"sessionId" => d.session_id = c.read_str()?,
        b"newModel" => models[0] = c.read_str()?,
        b"selectedModel" => models[1] = c.read_str()?,
        b"model" => models[2] = c.read_str()?,
        b"messageId" => ids[0] = c.read_str()?,
        b"reasoningId" => ids[1] = c.read_str()?,
        b"deltaContent" => contents[0] = c.read_str()?,
        b"content" if content_is_text => contents[1] = c.read_str()?,
        b"toolRequests" => {
            // Only whether there are any matters: the tools report their own start.
            let raw = c.read_raw()?;
            d.tool_requests = raw.first() == Some(&b'[')
                && raw[1..]
                    .iter()
                    .any(|&b| !b.is_ascii_whitespace() && b != b']');
        },
        b"outputTokens" => d.output_tokens = c.read_u64()?,
        b"parentToolCallId" => d.parent_tool_call_id = c.read_str()?,
        b"toolCallId" => d.tool_call_id = c.read_str()?,
        b"toolName" => d.tool_name = c.read_str()?,
        b"arguments" => d.arguments = Some(c.read_raw()?),
        b"success" => d.success = c.read_bool()?,
        b"result" => d.result = string_or_field(c, b"content")?,
        b"error" => d.error = string_or_field(c, b"message")?,
        b"shellExecution" => d.exit_code = field_of(c, b"exitCode", Cursor::read_f64)?,
        b"statusCode" => d.status_code = c.read_u64()?,
        b"retryAttempt" => d.retry_attempt = c.read_u64()?,
        b"message" => messages[0] = c.read_str()?,
        b"errorMessage" => messages[1] = c.read_str()?,
        b"reason" => messages[2] = c.read_str()?,
        b"activity" => d.activity = c.read_str()?,
        b"toolCallIds" => d.tool_call_ids = read_strings(c)?,
    })?;
    d.model = models.into_iter().flatten().next();
    d.id = ids.into_iter().flatten().next();
    d.content = contents.into_iter().flatten().next();
    d.message = messages.into_iter().flatten().next();
    Ok(d)
}

/// A string value, or the string field `name` of an object value.
fn string_or_field<'a>(c: &mut Cursor<'a>, name: &[u8]) -> Result<Option<JsonStr<'a>>, Malformed> {
    if c.peek() == Some(b'"') {
        c.read_str()
    } else {
        field_of(c, name, Cursor::read_str)
    }
}
