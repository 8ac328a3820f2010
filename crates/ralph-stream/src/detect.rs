//! Recognising which agent wrote a stream, from the type of its first events.

use crate::format::StreamFormat;

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
}
