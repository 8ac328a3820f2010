//! Recognising which agent wrote a stream, from the type of its first events: each
//! agent's parser says which types it knows and which keys tell it apart ([`Hints`]).
//!
//! Most event types belong to one agent. A few are shared (`result`: Claude Code, Gemini
//! CLI, Copilot; `tool_use`: Gemini CLI, OpenCode; `error`: Codex, Gemini CLI, OpenCode);
//! for those the line's other top-level keys decide, and when they do not either, the
//! line decides nothing and the next one is asked. Keys and types are compared decoded,
//! and the last `type` of a line counts, as for the parsers.

use crate::claude::ClaudeParser;
use crate::codex::CodexParser;
use crate::copilot::CopilotParser;
use crate::format::StreamFormat;
use crate::gemini::GeminiParser;
use crate::json::Cursor;
use crate::opencode::OpencodeParser;
use crate::parser::AgentParser;
use crate::parser::Hints;
use crate::pi::PiParser;

/// One agent as auto-detection sees it.
struct Agent {
    format: StreamFormat,
    knows: fn(&[u8]) -> bool,
    hints: &'static Hints,
}

impl Agent {
    const fn of<P: AgentParser>(format: StreamFormat) -> Agent {
        Agent {
            format,
            knows: knows::<P>,
            hints: P::HINTS,
        }
    }

    /// Whether the type alone says the line is this agent's.
    fn owns(&self, ty: &[u8]) -> bool {
        !self.hints.shared_types.contains(&ty)
            && ((self.knows)(ty) || self.hints.type_prefixes.iter().any(|p| ty.starts_with(p)))
    }
}

fn knows<P: AgentParser>(ty: &[u8]) -> bool {
    P::classify(ty).is_some()
}

/// Every agent with a JSON stream.
const AGENTS: [Agent; 6] = [
    Agent::of::<PiParser>(StreamFormat::Pi),
    Agent::of::<ClaudeParser>(StreamFormat::Claude),
    Agent::of::<CodexParser>(StreamFormat::Codex),
    Agent::of::<GeminiParser>(StreamFormat::Gemini),
    Agent::of::<OpencodeParser>(StreamFormat::Opencode),
    Agent::of::<CopilotParser>(StreamFormat::Copilot),
];

/// The format a line announces, if it is a JSON object whose type (and, for a shared
/// type, whose keys) tell.
pub(crate) fn detect_line(line: &[u8]) -> Option<StreamFormat> {
    let mut cursor = Cursor::new(line);
    let mut ty = None;
    // The agents (bits by index in `AGENTS`) whose keys the line carries.
    let mut hinted = 0u8;
    let object = cursor.object(|c, key| {
        let key = key.name();
        if *key == *b"type" {
            ty = c.read_str()?;
        } else {
            for (i, agent) in AGENTS.iter().enumerate() {
                if agent.hints.keys.contains(&&*key) {
                    hinted |= 1 << i;
                }
            }
            c.skip()?;
        }
        Ok(())
    });
    if !object.ok()? {
        return None;
    }
    let ty = ty?.name();
    if let Some(agent) = AGENTS.iter().find(|agent| agent.owns(&ty)) {
        return Some(agent.format);
    }
    // A key from one agent's vocabulary decides only a type that agent sends, and only
    // when no other agent's key says otherwise.
    let mut candidates = AGENTS
        .iter()
        .enumerate()
        .filter(|(i, agent)| hinted & (1 << i) != 0 && agent.hints.shared_types.contains(&&*ty));
    let (_, agent) = candidates.next()?;
    candidates.next().is_none().then_some(agent.format)
}

/// The format an event type belongs to, when that type alone tells. Types that several
/// agents use (`result`, `tool_use`, `error`) decide nothing: the next event will.
#[cfg(test)]
fn format_of_type(ty: &[u8]) -> Option<StreamFormat> {
    AGENTS
        .iter()
        .find(|agent| agent.owns(ty))
        .map(|agent| agent.format)
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
