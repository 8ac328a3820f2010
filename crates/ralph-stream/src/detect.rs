//! Recognising which agent wrote a stream, from the type of its first events.
//!
//! Most event types belong to one agent. A few are shared (`result`: Claude Code, Gemini
//! CLI, Copilot; `tool_use`: Gemini CLI, OpenCode; `error`: Codex, Gemini CLI, OpenCode);
//! for those the line's other top-level keys decide, and when they do not either, the
//! line decides nothing and the next one is asked.

use crate::format::StreamFormat;
use crate::json::Cursor;

/// The format a line announces, if it is a JSON object whose type (and, for a shared
/// type, whose keys) tell.
pub(crate) fn detect_line(line: &[u8]) -> Option<StreamFormat> {
    let mut cursor = Cursor::new(line);
    let mut object = cursor.enter_object().ok()??;
    let mut ty = None;
    let mut hint = None;
    while let Some(key) = cursor.next_key(&mut object).ok()? {
        if key.eq("type") {
            let value = cursor.read_str().ok()??;
            if let Some(format) = format_of_type(value.raw()) {
                return Some(format);
            }
            ty = Some(value);
        } else {
            hint = hint.or_else(|| format_of_key(key.raw()));
            cursor.skip().ok()?;
        }
    }
    let (ty, hint) = (ty?, hint?);
    uses_shared_type(hint, ty.raw()).then_some(hint)
}

/// The agent whose events, of the shared types, carry this top-level key.
fn format_of_key(key: &[u8]) -> Option<StreamFormat> {
    match key {
        b"sessionID" | b"part" => Some(StreamFormat::Opencode),
        b"sessionId" | b"exitCode" => Some(StreamFormat::Copilot),
        b"stats" | b"tool_id" | b"tool_name" | b"severity" => Some(StreamFormat::Gemini),
        b"subtype" | b"session_id" | b"total_cost_usd" | b"is_error" | b"num_turns" => {
            Some(StreamFormat::Claude)
        }
        _ => None,
    }
}

/// Whether `format` has events of the shared type `ty`: a key hint from another agent's
/// vocabulary must not decide a type that agent never sends.
fn uses_shared_type(format: StreamFormat, ty: &[u8]) -> bool {
    match format {
        StreamFormat::Claude | StreamFormat::Copilot => ty == b"result",
        StreamFormat::Gemini => matches!(ty, b"result" | b"tool_use" | b"error"),
        StreamFormat::Opencode => matches!(ty, b"tool_use" | b"error"),
        StreamFormat::Codex => ty == b"error",
        StreamFormat::Pi | StreamFormat::Text => false,
    }
}

/// The format an event type belongs to, when that type alone tells. Types that several
/// agents use (`result`, `tool_use`, `error`) decide nothing: the next event will.
pub(crate) fn format_of_type(ty: &[u8]) -> Option<StreamFormat> {
    match ty {
        b"session"
        | b"agent_start"
        | b"agent_end"
        | b"agent_settled"
        | b"turn_start"
        | b"turn_end"
        | b"message_start"
        | b"message_update"
        | b"message_end"
        | b"tool_execution_start"
        | b"tool_execution_update"
        | b"tool_execution_end"
        | b"auto_retry_start"
        | b"auto_retry_end"
        | b"auto_compaction_start"
        | b"auto_compaction_end"
        | b"compaction_start"
        | b"compaction_end"
        | b"queue_update" => Some(StreamFormat::Pi),
        b"system" | b"assistant" | b"user" | b"rate_limit_event" | b"stream_event" => {
            Some(StreamFormat::Claude)
        }
        b"thread.started" | b"turn.started" | b"turn.completed" | b"turn.failed"
        | b"item.started" | b"item.updated" | b"item.completed" => Some(StreamFormat::Codex),
        b"init" | b"message" | b"tool_result" => Some(StreamFormat::Gemini),
        b"step_start" | b"step_finish" | b"text" | b"reasoning" => Some(StreamFormat::Opencode),
        _ if is_copilot_type(ty) => Some(StreamFormat::Copilot),
        _ => None,
    }
}

/// Copilot's types are dotted and namespaced by who speaks.
fn is_copilot_type(ty: &[u8]) -> bool {
    const PREFIXES: [&[u8]; 6] = [
        b"session.",
        b"user.",
        b"assistant.",
        b"tool.",
        b"model.",
        b"subagent.",
    ];
    PREFIXES.iter().any(|p| ty.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_event_types_of_every_agent_are_recognised() {
        let cases: [(&[u8], Option<StreamFormat>); 9] = [
            (b"session", Some(StreamFormat::Pi)),
            (b"message_update", Some(StreamFormat::Pi)),
            (b"system", Some(StreamFormat::Claude)),
            (b"thread.started", Some(StreamFormat::Codex)),
            (b"init", Some(StreamFormat::Gemini)),
            (b"step_start", Some(StreamFormat::Opencode)),
            (b"session.tools_updated", Some(StreamFormat::Copilot)),
            (b"result", None),
            (b"tool_use", None),
        ];
        for (ty, want) in cases {
            assert_eq!(format_of_type(ty), want, "{}", String::from_utf8_lossy(ty));
        }
    }

    #[test]
    fn the_first_line_of_every_real_capture_is_recognised() {
        let cases = [
            (
                r#"{"type":"thread.started","thread_id":"01a2"}"#,
                StreamFormat::Codex,
            ),
            (
                r#"{"type":"init","timestamp":"t","session_id":"s","model":"gemini-2.5-pro"}"#,
                StreamFormat::Gemini,
            ),
            (
                r#"{"type":"step_start","timestamp":1,"sessionID":"ses","part":{"type":"step-start"}}"#,
                StreamFormat::Opencode,
            ),
            (
                r#"{"type":"session.skills_loaded","data":{"skills":[]},"ephemeral":true}"#,
                StreamFormat::Copilot,
            ),
            (
                r#"{"type":"system","subtype":"init"}"#,
                StreamFormat::Claude,
            ),
            (r#"{"type":"session","version":3}"#, StreamFormat::Pi),
        ];
        for (line, want) in cases {
            assert_eq!(detect_line(line.as_bytes()), Some(want), "{line}");
        }
    }

    #[test]
    fn shared_types_are_told_apart_by_their_keys_in_any_order() {
        let cases = [
            (
                r#"{"type":"tool_use","timestamp":"t","tool_name":"run_shell_command","tool_id":"x","parameters":{}}"#,
                Some(StreamFormat::Gemini),
            ),
            (
                r#"{"type":"tool_use","timestamp":1,"sessionID":"ses","part":{"tool":"bash"}}"#,
                Some(StreamFormat::Opencode),
            ),
            (
                r#"{"sessionID":"ses","part":{},"type":"tool_use"}"#,
                Some(StreamFormat::Opencode),
            ),
            (
                r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s"}"#,
                Some(StreamFormat::Claude),
            ),
            (
                r#"{"duration_api_ms":9,"type":"result","subtype":"success"}"#,
                Some(StreamFormat::Claude),
            ),
            (
                r#"{"type":"result","timestamp":"t","status":"success","stats":{}}"#,
                Some(StreamFormat::Gemini),
            ),
            (
                r#"{"type":"result","timestamp":"t","sessionId":"s","exitCode":0}"#,
                Some(StreamFormat::Copilot),
            ),
            (
                r#"{"type":"error","timestamp":1,"sessionID":"ses","error":{"name":"APIError"}}"#,
                Some(StreamFormat::Opencode),
            ),
            (
                r#"{"type":"error","timestamp":"t","severity":"error","message":"m"}"#,
                Some(StreamFormat::Gemini),
            ),
            // Codex's error has no key of its own: the next line decides.
            (r#"{"type":"error","message":"Reconnecting... 1/5"}"#, None),
            // A key from one agent on a type that agent never sends decides nothing.
            (r#"{"type":"tool_use","session_id":"s"}"#, None),
            (r#"{"type":"error","exitCode":1}"#, None),
            (r#"{"type":"result"}"#, None),
            (r#"{"sessionID":"s"}"#, None),
            ("not json", None),
        ];
        for (line, want) in cases {
            assert_eq!(detect_line(line.as_bytes()), want, "{line}");
        }
    }
}
