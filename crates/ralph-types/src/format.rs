//! Which wire format an agent writes on stdout.

use std::fmt;
use std::str::FromStr;

use crate::BackendKind;

/// The output formats ralph can parse. Closed on purpose: adding one shows every
/// place that has to learn about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamFormat {
    /// `pi -p --mode json`: JSON lines, snapshot shape (<= 0.8x) or delta-only shape.
    Pi,
    /// `claude -p --output-format stream-json --include-partial-messages --verbose`.
    Claude,
    /// `codex exec --json`.
    Codex,
    /// `gemini --output-format stream-json`.
    Gemini,
    /// `opencode run --format json`.
    Opencode,
    /// `copilot --output-format json`.
    Copilot,
    /// Plain text: every line is assistant text.
    Text,
}

impl StreamFormat {
    /// Every format, in a stable order (used for help texts and tests).
    pub const ALL: [StreamFormat; 7] = [
        StreamFormat::Pi,
        StreamFormat::Claude,
        StreamFormat::Codex,
        StreamFormat::Gemini,
        StreamFormat::Opencode,
        StreamFormat::Copilot,
        StreamFormat::Text,
    ];

    /// The name of the plain-text format, the one format no agent is named after.
    pub const TEXT: &str = "text";

    /// The agent this format is named after: the agent that writes it natively (others
    /// may write it too: Amp writes Claude's). `None` for plain text.
    pub const fn agent(self) -> Option<BackendKind> {
        match self {
            StreamFormat::Pi => Some(BackendKind::Pi),
            StreamFormat::Claude => Some(BackendKind::Claude),
            StreamFormat::Codex => Some(BackendKind::Codex),
            StreamFormat::Gemini => Some(BackendKind::Gemini),
            StreamFormat::Opencode => Some(BackendKind::Opencode),
            StreamFormat::Copilot => Some(BackendKind::Copilot),
            StreamFormat::Text => None,
        }
    }

    /// Whether the agent ends a whole stream with a terminal event (Claude Code's
    /// `result`, pi's `agent_end`, Codex's `turn.completed`, Gemini CLI's `result`,
    /// Copilot's `result`): one of its streams that ended without it was cut short.
    /// OpenCode and plain text end with the process, so their end tells nothing.
    pub const fn ends_with_terminal_event(self) -> bool {
        match self {
            StreamFormat::Pi
            | StreamFormat::Claude
            | StreamFormat::Codex
            | StreamFormat::Gemini
            | StreamFormat::Copilot => true,
            StreamFormat::Opencode | StreamFormat::Text => false,
        }
    }

    /// The name used on the command line, in config files and in JSON output: the name
    /// of the agent it is named after ([`BackendKind::name`]), or [`Self::TEXT`].
    pub const fn name(self) -> &'static str {
        match self.agent() {
            Some(agent) => agent.name(),
            None => StreamFormat::TEXT,
        }
    }
}

impl fmt::Display for StreamFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error for a format name ralph does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown stream format `{0}` (expected one of: {names})", names = crate::named::list(StreamFormat::ALL.map(StreamFormat::name)))]
pub struct UnknownFormat(pub String);

crate::named::serde_by_name!(StreamFormat);

impl FromStr for StreamFormat {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StreamFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
