//! Which wire format an agent writes on stdout.

use std::fmt;
use std::str::FromStr;

/// The output formats ralph can parse. Closed on purpose: adding one shows every
/// place that has to learn about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StreamFormat {
    /// `pi -p --mode json`: JSON lines, snapshot shape (<= 0.8x) or delta-only shape.
    Pi,
    /// `claude -p --output-format stream-json --verbose`.
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

    /// The name used on the command line, in config files and in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            StreamFormat::Pi => "pi",
            StreamFormat::Claude => "claude",
            StreamFormat::Codex => "codex",
            StreamFormat::Gemini => "gemini",
            StreamFormat::Opencode => "opencode",
            StreamFormat::Copilot => "copilot",
            StreamFormat::Text => "text",
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
#[error(
    "unknown stream format `{0}` (expected one of: pi, claude, codex, gemini, opencode, copilot, text)"
)]
pub struct UnknownFormat(pub String);

impl FromStr for StreamFormat {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StreamFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}
