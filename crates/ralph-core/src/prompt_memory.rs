//! The prompt's memories and skills sections, built from values (no I/O) and bounded.
//!
//! What the agent is taught about `ralph tools memory` and `ralph tools skill` is kept
//! to a sentence or two: `--help` carries the rest, so a prompt with nothing stored yet
//! stays small. The memories arrive already primed (chosen and cut to
//! `memories.budget` by [`crate::memory::prime`]); the skills index carries at most
//! [`SKILLS_INDEX_MAX`] lines of at most [`SKILL_LINE_MAX_CHARS`] characters, and the
//! text of auto-injected skills at most [`SKILLS_INJECT_MAX_BYTES`] in all.

use std::fmt::Write as _;

use crate::skills::Skill;

/// The most skills the index lists; the rest are counted, with how to list them.
pub const SKILLS_INDEX_MAX: usize = 30;
/// The most characters of one index line's description.
pub const SKILL_LINE_MAX_CHARS: usize = 120;
/// The most bytes of auto-injected skill text in one prompt; a skill past it is listed
/// in the index instead.
pub const SKILLS_INJECT_MAX_BYTES: usize = 16 * 1024;

/// What the prompt carries of the memories.
#[derive(Clone, Copy, Debug)]
pub enum MemoryPrompt<'a> {
    /// `inject: auto`: the primed memories (empty when none is stored).
    Primed(&'a str),
    /// `inject: auto`, with this many memories stored but none small enough for
    /// `memories.budget`: said, so the agent does not take the memory for empty.
    NoneFit(usize),
    /// `inject: auto`, with this many memories stored but `memories.filter` keeping none
    /// of them: said, so the agent does not take the memory for empty, and with the key
    /// to change, so whoever reads the prompt can widen the filter.
    Filtered(usize),
    /// `inject: manual`: only how to read them.
    Manual,
    /// `inject: auto`, but the memories file could not be read (`path`, `why`): said,
    /// so that the agent neither takes the memory for empty nor keeps adding to it.
    Unreadable { path: &'a str, why: &'a str },
}

/// Writes the memories section.
pub fn write_memories(p: &mut String, memories: MemoryPrompt<'_>, ralph: &str) {
    p.push_str("\n## Memories\n\n");
    let add = format!(
        "When you learn something a later iteration should know (how this code does a \
         thing, a decision and its reason, a fix), keep it: `{ralph} tools memory add \
         \"<one or two lines>\" -t pattern|decision|fix|context --tags a,b`."
    );
    match memories {
        MemoryPrompt::Primed(text) if text.trim().is_empty() => {
            let _ = writeln!(p, "None stored yet. {add}");
        }
        MemoryPrompt::Primed(text) => {
            let _ = writeln!(
                p,
                "Lessons from earlier iterations, grouped by kind (the most relevant, when \
                 not all fit: `{ralph} tools memory search <words>` finds others). \
                 {add}\n\n<memories>\n{}\n</memories>",
                text.trim()
            );
        }
        MemoryPrompt::NoneFit(stored) => {
            let (count, fits) = if stored == 1 {
                ("1 memory is".to_owned(), "it does not fit")
            } else {
                (format!("{stored} memories are"), "none fits")
            };
            let _ = writeln!(
                p,
                "{count} stored, but {fits} in this prompt's budget (`memories.budget`): \
                 `{ralph} tools memory search <words>` finds them. {add}"
            );
        }
        MemoryPrompt::Filtered(stored) => {
            let (count, all, them) = if stored == 1 {
                ("1 memory is".to_owned(), "it", "it")
            } else {
                (format!("{stored} memories are"), "them all", "them")
            };
            let _ = writeln!(
                p,
                "{count} stored, but `memories.filter` in the configuration leaves {all} out \
                 (widen its `types`, `tags` or `recent`, or remove it, to have {them} here): \
                 `{ralph} tools memory search <words>` finds {them}. {add}"
            );
        }
        MemoryPrompt::Unreadable { path, why } => {
            let _ = writeln!(
                p,
                "The memories file `{path}` cannot be read ({why}): none are shown this \
                 iteration, and `{ralph} tools memory` will fail until that is fixed."
            );
        }
        MemoryPrompt::Manual => {
            let _ = writeln!(
                p,
                "Lessons from earlier iterations: `{ralph} tools memory prime` prints the most \
                 relevant, `{ralph} tools memory search <words>` finds others. {add}"
            );
        }
    }
}

/// Writes the skills section: the text of the auto-injected skills within their bound,
/// then an index of the others. Nothing when `skills` is empty.
pub fn write_skills(p: &mut String, skills: &[Skill], ralph: &str) {
    if skills.is_empty() {
        return;
    }
    p.push_str("\n## Skills\n\n");
    let mut left = SKILLS_INJECT_MAX_BYTES;
    let mut indexed: Vec<&Skill> = Vec::new();
    for skill in skills {
        let text = skill.loaded();
        if skill.auto_inject && text.len() <= left {
            left -= text.len();
            p.push_str(&text);
            p.push('\n');
        } else {
            indexed.push(skill);
        }
    }
    if indexed.is_empty() {
        return;
    }
    let _ = writeln!(
        p,
        "Instructions for particular jobs: before you do one, read its skill with `{ralph} \
         tools skill load <name>`.\n"
    );
    for skill in indexed.iter().take(SKILLS_INDEX_MAX) {
        let _ = writeln!(p, "- {}: {}", skill.name, one_line(&skill.description));
    }
    if indexed.len() > SKILLS_INDEX_MAX {
        let _ = writeln!(
            p,
            "- ({} more: `{ralph} tools skill list`)",
            indexed.len() - SKILLS_INDEX_MAX
        );
    }
}

/// The first line of `text`, cut to [`SKILL_LINE_MAX_CHARS`] characters.
fn one_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() <= SKILL_LINE_MAX_CHARS {
        return line.to_owned();
    }
    let mut cut: String = line.chars().take(SKILL_LINE_MAX_CHARS - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
#[path = "prompt_memory_tests.rs"]
mod tests;
