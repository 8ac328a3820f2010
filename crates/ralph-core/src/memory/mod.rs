//! The loop's memories: short lessons an agent keeps for later iterations, in
//! `.ralph/agent/memories.md`, in the layout ralph-orchestrator reads and writes:
//!
//! ```text
//! # Memories
//!
//! ## Patterns
//!
//! ### mem-1795660762-7768
//! > Use memchr for framing
//! <!-- tags: perf, parser | created: 2026-11-26 -->
//!
//! ## Decisions
//! ...
//! ```
//!
//! One `##` section per [`MemoryType`], one `###` heading per memory (its id,
//! `mem-<unix seconds>-<4 hex digits>`), its text as `> ` lines, then a comment with its
//! tags and the day it was written. [`parse()`] reads a file (reporting damaged entries
//! with their line numbers instead of failing), [`render`] edits one in place (so what
//! it cannot read survives every write), [`select`] searches and primes memories within
//! a budget, and [`mod@file`] does the locked, atomic I/O.

pub mod date;
pub mod file;
pub mod parse;
pub mod render;
pub mod select;
mod too_large;

use serde::{Deserialize, Serialize};

pub use file::{MEMORIES_FILE, MemoryFile};
pub use parse::{Damaged, Entry, Outline, Parsed, Slot, outline, parse};
pub use select::{Prime, Ranked, prime};
pub use too_large::TooLarge;

/// What kind of lesson a memory is; each kind has its own `##` section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryType {
    /// How this code base does things.
    Pattern,
    /// Why something was chosen.
    Decision,
    /// How a problem was solved.
    Fix,
    /// Facts about the project.
    Context,
}

impl MemoryType {
    /// Every type, in the order the file's sections come.
    pub const ALL: [MemoryType; 4] = [
        MemoryType::Pattern,
        MemoryType::Decision,
        MemoryType::Fix,
        MemoryType::Context,
    ];

    /// The name on the command line and in JSON (`pattern`).
    pub fn name(self) -> &'static str {
        match self {
            MemoryType::Pattern => "pattern",
            MemoryType::Decision => "decision",
            MemoryType::Fix => "fix",
            MemoryType::Context => "context",
        }
    }

    /// The title of its section in the file (`Patterns`).
    pub fn section(self) -> &'static str {
        match self {
            MemoryType::Pattern => "Patterns",
            MemoryType::Decision => "Decisions",
            MemoryType::Fix => "Fixes",
            MemoryType::Context => "Context",
        }
    }

    /// The type a name stands for (case-insensitive).
    pub fn from_name(name: &str) -> Option<MemoryType> {
        MemoryType::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The type whose section has this title.
    pub fn from_section(title: &str) -> Option<MemoryType> {
        MemoryType::ALL.into_iter().find(|t| t.section() == title)
    }
}

impl std::fmt::Display for MemoryType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One memory. Serialized with the field names ralph-orchestrator's `--format json`
/// uses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    /// `mem-<unix seconds>-<4 hex digits>`.
    pub id: String,
    pub memory_type: MemoryType,
    /// The text; lines joined with `\n`.
    pub content: String,
    pub tags: Vec<String>,
    /// The day it was written (`YYYY-MM-DD`); empty when the file does not say.
    pub created: String,
}

impl Memory {
    /// Whether `query` occurs in the text or a tag, ignoring case.
    pub fn matches(&self, query: &str) -> bool {
        contains_ignoring_case(&self.content, query)
            || self.tags.iter().any(|t| contains_ignoring_case(t, query))
    }

    /// Whether it has one of `tags`, ignoring case.
    pub fn has_any_tag(&self, tags: &[String]) -> bool {
        self.tags
            .iter()
            .any(|t| tags.iter().any(|w| w.eq_ignore_ascii_case(t)))
    }

    /// The seconds in its id, which orders memories written the same day.
    pub fn id_seconds(&self) -> u64 {
        self.id
            .strip_prefix(ID_PREFIX)
            .and_then(|rest| rest.split('-').next())
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    }
}

/// Whether `needle` occurs in `haystack`, ignoring case. An ASCII needle is compared
/// byte by byte without copying (a search reads every memory); other needles through
/// lowercase copies.
pub fn contains_ignoring_case(haystack: &str, needle: &str) -> bool {
    if !needle.is_ascii() {
        return haystack.to_lowercase().contains(&needle.to_lowercase());
    }
    let (hay, needle) = (haystack.as_bytes(), needle.as_bytes());
    needle.is_empty()
        || hay
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
}

/// What every memory id starts with.
pub const ID_PREFIX: &str = "mem-";
/// The hex digits after the seconds in an id.
pub const ID_SUFFIX_DIGITS: usize = 4;

/// Whether `id` has the form `mem-<digits>-<4 lowercase hex digits>`, the only form
/// ralph-orchestrator reads.
pub fn is_valid_id(id: &str) -> bool {
    let Some(rest) = id.strip_prefix(ID_PREFIX) else {
        return false;
    };
    let Some((secs, suffix)) = rest.split_once('-') else {
        return false;
    };
    !secs.is_empty()
        && secs.bytes().all(|b| b.is_ascii_digit())
        && suffix.len() == ID_SUFFIX_DIGITS
        && suffix
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Splits a comma-separated tag list (`--tags a,b`), trimmed, empty names dropped.
pub fn split_tags(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
