//! Writing `memories.md`: a new file, a memory's block, and edits in place.
//!
//! A write never regenerates the file from what was read: adding inserts one block at the
//! top of its section (newest first, where ralph-orchestrator puts it) and deleting cuts
//! one entry's bytes out. Whatever else is in the file, a damaged entry, a note a person
//! wrote, stays as it was.

use std::fmt::Write as _;

use std::ops::Range;

use super::{Memory, MemoryType};

/// A file with no memories yet: every section, empty.
pub const TEMPLATE: &str = "# Memories\n\n## Patterns\n\n## Decisions\n\n## Fixes\n\n## Context\n";

/// The text lines of a memory as the file quotes them: blank lines are left out, since
/// ralph-orchestrator does not read a `>` line without text.
pub fn content_lines(content: &str) -> impl Iterator<Item = &str> {
    content
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
}

/// A memory's block: a blank line, its heading, its text, its tags and day.
pub fn block(memory: &Memory) -> String {
    let mut out = String::with_capacity(block_chars(memory) + 8);
    write_block(&mut out, memory);
    out
}

/// [`block`], written at the end of `out` (no string of its own: `prime` writes
/// thousands).
pub fn write_block(out: &mut String, memory: &Memory) {
    out.push_str("\n### ");
    out.push_str(&memory.id);
    out.push('\n');
    for line in content_lines(&memory.content) {
        out.push_str("> ");
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("<!-- tags: ");
    for (i, tag) in memory.tags.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(tag);
    }
    out.push_str(" | created: ");
    out.push_str(&memory.created);
    out.push_str(" -->\n");
}

/// The characters of [`block`]`(memory)`, counted without writing it (`prime` weighs
/// every memory but writes only those that fit).
pub fn block_chars(memory: &Memory) -> usize {
    // The fixed parts are ASCII: their bytes are their characters.
    let count = |s: &str| {
        if s.is_ascii() {
            s.len()
        } else {
            s.chars().count()
        }
    };
    let mut n = "\n### \n".len() + count(&memory.id);
    for line in content_lines(&memory.content) {
        n += "> \n".len() + count(line);
    }
    let tags: usize = memory.tags.iter().map(|t| count(t)).sum();
    let separators = ", ".len() * memory.tags.len().saturating_sub(1);
    n + "<!-- tags:  | created:  -->\n".len() + tags + separators + count(&memory.created)
}

/// `text` with `memory` at the top of its section (`sections` as
/// [`super::Outline::sections`] gives them for `text`); the section is added at the end
/// when the file has none (an empty file becomes [`TEMPLATE`] first).
pub fn insert(text: &str, sections: &[Option<usize>; 4], memory: &Memory) -> String {
    let block = block(memory);
    if text.trim().is_empty() {
        let fresh = super::parse::outline(TEMPLATE);
        return insert(TEMPLATE, &fresh.sections, memory);
    }
    match sections[memory.memory_type as usize] {
        Some(at) => {
            let mut out = String::with_capacity(text.len() + block.len() + 1);
            out.push_str(&text[..at]);
            if !text[..at].ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&block);
            out.push_str(&text[at..]);
            out
        }
        None => {
            let mut out = String::with_capacity(text.len() + block.len() + 32);
            out.push_str(text.trim_end_matches(['\n', '\r']));
            let _ = write!(out, "\n\n## {}\n", memory.memory_type.section());
            out.push_str(&block);
            out
        }
    }
}

/// `text` without the bytes of `span` (an entry's).
pub fn remove(text: &str, span: Range<usize>) -> String {
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..span.start]);
    out.push_str(&text[span.end..]);
    out
}

/// The first line of the file and of `prime`'s output.
pub const HEADER: &str = "# Memories\n";

/// A section's heading as `prime` writes it, with the blank line before it.
pub fn section_heading(kind: MemoryType) -> String {
    format!("\n## {}\n", kind.section())
}

/// Memories as the prompt and `ralph tools memory prime` show them: the file's layout,
/// with only the sections that have one, in the order given within each section.
pub fn markdown<'m>(memories: impl IntoIterator<Item = &'m Memory> + Clone) -> String {
    let mut out = String::from(HEADER);
    for kind in MemoryType::ALL {
        let mut of_kind = memories
            .clone()
            .into_iter()
            .filter(|m| m.memory_type == kind)
            .peekable();
        if of_kind.peek().is_none() {
            continue;
        }
        out.push_str(&section_heading(kind));
        for memory in of_kind {
            write_block(&mut out, memory);
        }
    }
    out
}
