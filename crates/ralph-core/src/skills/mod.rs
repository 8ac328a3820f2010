//! Skills: instructions for particular jobs that an agent loads when it needs them.
//!
//! A skill is a directory with a `SKILL.md` (or a single `NAME.md`) in one of
//! `skills.dirs`; the file's front matter names and describes it:
//!
//! ```text
//! ---
//! name: release-notes
//! description: How to write the release notes for this project
//! hats: [writer]          # optional: only these hats see it
//! backends: [claude]      # optional: only agents of these backends see it
//! ---
//! The instructions ...
//! ```
//!
//! The prompt carries an index (a name and one line each, bounded); `ralph tools skill
//! load NAME` prints the rest on demand. [`front_matter`] reads a file, [`discover()`]
//! finds the skills of a workspace and applies `skills.overrides`.

pub mod discover;
pub mod front_matter;

use std::path::PathBuf;

pub use discover::{Found, discover};

/// One skill, with the configuration's overrides applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skill {
    /// What `ralph tools skill load` takes.
    pub name: String,
    /// One line for the index.
    pub description: String,
    /// The instructions: the file after its front matter.
    pub body: String,
    /// The file it was read from.
    pub path: PathBuf,
    /// Only these hats see it (all when empty).
    pub hats: Vec<String>,
    /// Only agents of these backends see it (all when empty).
    pub backends: Vec<String>,
    /// Its whole text goes into the prompt instead of its index line.
    pub auto_inject: bool,
}

impl Skill {
    /// Whether the agent of `hat` (none in a run without hats) on `backend` sees it.
    pub fn visible_to(&self, hat: Option<&str>, backend: Option<&str>) -> bool {
        let allowed = |list: &[String], who: Option<&str>| {
            list.is_empty() || who.is_none_or(|w| list.iter().any(|l| l == w))
        };
        allowed(&self.hats, hat) && allowed(&self.backends, backend)
    }

    /// What `ralph tools skill load` prints: the body, wrapped the way
    /// ralph-orchestrator wraps it (`<NAME-skill>`), so prompts written for it still
    /// read right.
    pub fn loaded(&self) -> String {
        format!(
            "<{name}-skill>\n{}\n</{name}-skill>\n",
            self.body.trim_matches('\n'),
            name = self.name
        )
    }
}

/// Whether `name` can be typed as `ralph tools skill load NAME`: not empty, no blanks or
/// control characters, no `/`.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_BYTES
        && !name
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '/' || c == '<' || c == '>')
}

/// The longest skill name accepted.
pub const MAX_NAME_BYTES: usize = 64;

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
