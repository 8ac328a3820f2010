//! The closed set of agent CLIs ralph can drive, and the one list of their names.

use std::fmt;
use std::str::FromStr;

/// Every agent CLI ralph knows. Matched exhaustively everywhere, so adding an agent is a
/// compile error at each place that must learn about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BackendKind {
    Claude,
    Kiro,
    Gemini,
    Codex,
    Amp,
    Copilot,
    Opencode,
    Pi,
    /// Any command, described by the config (`cli.command`, `prompt_mode`, ...).
    Custom,
}

impl BackendKind {
    /// Every backend, in the default auto-detection priority order (custom last: it is
    /// never auto-detected).
    pub const ALL: [BackendKind; 9] = [
        BackendKind::Claude,
        BackendKind::Kiro,
        BackendKind::Gemini,
        BackendKind::Codex,
        BackendKind::Amp,
        BackendKind::Copilot,
        BackendKind::Opencode,
        BackendKind::Pi,
        BackendKind::Custom,
    ];

    /// The name used in `ralph.yml`, on the command line and in JSON output. This is the
    /// list of agent names: stream formats named after an agent take theirs from here
    /// ([`StreamFormat::name`](crate::StreamFormat::name)), and so do serde's names and
    /// the CLI's values.
    pub const fn name(self) -> &'static str {
        match self {
            BackendKind::Claude => "claude",
            BackendKind::Kiro => "kiro",
            BackendKind::Gemini => "gemini",
            BackendKind::Codex => "codex",
            BackendKind::Amp => "amp",
            BackendKind::Copilot => "copilot",
            BackendKind::Opencode => "opencode",
            BackendKind::Pi => "pi",
            BackendKind::Custom => "custom",
        }
    }
}

/// The default auto-detection order (`cli.backend_priority`): every backend in
/// [`BackendKind::ALL`]'s order but `custom`, which is never detected (it is last there).
pub const DEFAULT_PRIORITY: [BackendKind; BackendKind::ALL.len() - 1] = {
    assert!(matches!(
        BackendKind::ALL[BackendKind::ALL.len() - 1],
        BackendKind::Custom
    ));
    let mut order = [BackendKind::Custom; BackendKind::ALL.len() - 1];
    let mut i = 0;
    while i < order.len() {
        order[i] = BackendKind::ALL[i];
        i += 1;
    }
    order
};

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error for a backend name ralph does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown backend `{0}` (expected one of: {names})", names = crate::named::list(BackendKind::ALL.map(BackendKind::name)))]
pub struct UnknownBackend(pub String);

crate::named::serde_by_name!(BackendKind);

impl FromStr for BackendKind {
    type Err = UnknownBackend;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        BackendKind::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| UnknownBackend(s.to_owned()))
    }
}

#[cfg(test)]
#[path = "backend_tests.rs"]
mod tests;
