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
#[path = "sniff_tests.rs"]
mod tests;
