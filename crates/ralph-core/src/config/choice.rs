//! The small closed sets a config names by string: which backend (or `auto`), and how a
//! custom backend receives its prompt.

use std::fmt;
use std::str::FromStr;

use ralph_types::BackendKind;
pub use ralph_types::PromptMode;

/// The name that asks ralph to pick the first installed backend.
pub const AUTO: &str = "auto";

/// What `cli.backend` (or `-b/--backend`) asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BackendChoice {
    /// Probe `cli.backend_priority` at run time and use the first backend found.
    Auto,
    /// This backend.
    Backend(BackendKind),
}

impl BackendChoice {
    /// The name used in `ralph.yml` and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            BackendChoice::Auto => AUTO,
            BackendChoice::Backend(kind) => kind.name(),
        }
    }

    /// The custom backend (a program the config describes).
    pub(crate) const CUSTOM: BackendChoice = BackendChoice::Backend(BackendKind::Custom);

    /// The backends that can be named alone (by a hat's `type`, in
    /// `cli.backend_priority`): neither `auto` nor `custom`, which need more than a name.
    pub(crate) fn builtin_names() -> impl Iterator<Item = &'static str> {
        BackendKind::ALL
            .into_iter()
            .filter(|k| *k != BackendKind::Custom)
            .map(BackendKind::name)
    }

    /// Every accepted name, `auto` first.
    pub fn names() -> impl Iterator<Item = &'static str> {
        std::iter::once(AUTO).chain(BackendKind::ALL.into_iter().map(BackendKind::name))
    }
}

impl fmt::Display for BackendChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A backend name ralph does not know (as typed by the user).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown backend `{0}` (expected one of: {names})", names = BackendChoice::names().collect::<Vec<_>>().join(", "))]
pub struct UnknownBackendChoice(pub String);

impl FromStr for BackendChoice {
    type Err = UnknownBackendChoice;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == AUTO {
            return Ok(BackendChoice::Auto);
        }
        s.parse::<BackendKind>()
            .map(BackendChoice::Backend)
            .map_err(|_| UnknownBackendChoice(s.to_owned()))
    }
}

#[cfg(test)]
#[path = "choice_tests.rs"]
mod tests;
