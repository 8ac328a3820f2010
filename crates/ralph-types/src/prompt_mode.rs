//! How a custom backend receives its prompt (`cli.prompt_mode`).

use std::fmt;
use std::str::FromStr;

/// How a custom command receives its prompt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PromptMode {
    /// As the last argument (after `prompt_flag` when one is set).
    #[default]
    Arg,
    /// On standard input, which is then closed.
    Stdin,
}

impl PromptMode {
    /// Every mode, in the order help texts list them.
    pub const ALL: [PromptMode; 2] = [PromptMode::Arg, PromptMode::Stdin];

    /// The name used in `ralph.yml`.
    pub const fn name(self) -> &'static str {
        match self {
            PromptMode::Arg => "arg",
            PromptMode::Stdin => "stdin",
        }
    }
}

impl fmt::Display for PromptMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error for a prompt mode ralph does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown prompt mode `{0}` (expected one of: {names})", names = crate::named::list(PromptMode::ALL.map(PromptMode::name)))]
pub struct UnknownPromptMode(pub String);

impl FromStr for PromptMode {
    type Err = UnknownPromptMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PromptMode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| UnknownPromptMode(s.to_owned()))
    }
}

crate::named::serde_by_name!(PromptMode);

#[cfg(test)]
#[path = "prompt_mode_tests.rs"]
mod tests;
