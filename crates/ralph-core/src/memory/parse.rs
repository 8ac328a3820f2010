//! Reading `memories.md`: every memory with where it sits in the file, and every entry
//! that could not be read, with its line number and why.
//!
//! Reads what ralph-orchestrator writes and what it reads: `## Patterns|Decisions|Fixes|
//! Context` sections, `### mem-<digits>-<4 hex>` headings, `> ` text lines, a
//! `<!-- tags: a, b | created: YYYY-MM-DD -->` comment. Lines of other kinds inside an
//! entry are ignored, as it ignores them. A damaged entry is never fatal: it is reported
//! and skipped, and since writes edit the file in place (see [`super::render`]) it stays
//! in the file for a person to repair.

use std::collections::HashMap;
use std::ops::Range;

use super::{Memory, MemoryType, is_valid_id};

/// The bytes of a typical entry, to size the tables before reading.
const BYTES_PER_ENTRY_GUESS: usize = 150;

/// A memory and where it is in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub memory: Memory,
    /// The line of its `###` heading, from 1.
    pub line: usize,
    /// Its bytes, from its heading to the next heading (or the end of the file).
    pub span: Range<usize>,
}

/// An entry that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damaged {
    /// The line of its heading, from 1.
    pub line: usize,
    /// What is wrong, as the end of a sentence ("has no text").
    pub why: String,
}

impl std::fmt::Display for Damaged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.why)
    }
}

/// A whole file, read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    /// In file order.
    pub entries: Vec<Entry>,
    pub damaged: Vec<Damaged>,
    /// For each type (in [`MemoryType::ALL`] order), the byte just after its first
    /// section heading line, where a new memory of that type goes.
    pub sections: [Option<usize>; 4],
}

impl Parsed {
    /// The memories, in file order.
    pub fn memories(&self) -> impl Iterator<Item = &Memory> {
        self.entries.iter().map(|e| &e.memory)
    }

    /// The entry with this id.
    pub fn find(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.memory.id == id)
    }
}

/// Where each entry of a file is, without its text: what adding and deleting need,
/// read with no allocation per entry ([`parse`] reads the text of each from here).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outline<'t> {
    /// The readable entries, in file order.
    pub slots: Vec<Slot<'t>>,
    pub damaged: Vec<Damaged>,
    /// As [`Parsed::sections`].
    pub sections: [Option<usize>; 4],
}

/// A readable entry's place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot<'t> {
    pub id: &'t str,
    pub memory_type: MemoryType,
    /// The line of its `###` heading, from 1.
    pub line: usize,
    /// Its bytes, from its heading to the next heading (or the end of the file).
    pub span: Range<usize>,
}

impl<'t> Outline<'t> {
    /// The entry with this id.
    pub fn find(&self, id: &str) -> Option<&Slot<'t>> {
        self.slots.iter().find(|s| s.id == id)
    }
}

/// Where the lines being read belong.
enum Section<'t> {
    Known(MemoryType),
    /// A `##` heading that names no memory type.
    Unknown(&'t str),
}

/// The entry being read.
struct Open<'t> {
    id: &'t str,
    line: usize,
    start: usize,
    /// Whether a `>` line has text.
    has_text: bool,
    /// Why it cannot be read, when that is known from its heading already.
    damaged: Option<String>,
}

/// Reads a memories file.
pub fn parse(text: &str) -> Parsed {
    let outline = outline(text);
    Parsed {
        entries: outline
            .slots
            .iter()
            .map(|slot| Entry {
                memory: read_entry(text, slot),
                line: slot.line,
                span: slot.span.clone(),
            })
            .collect(),
        damaged: outline.damaged,
        sections: outline.sections,
    }
}

/// Finds the entries of a memories file and what is wrong with the damaged ones.
pub fn outline(text: &str) -> Outline<'_> {
    // About one entry per 150 bytes in files ralph writes: enough to rarely grow.
    let estimate = text.len() / BYTES_PER_ENTRY_GUESS;
    let mut outline = Outline {
        slots: Vec::with_capacity(estimate),
        ..Outline::default()
    };
    // The ids read so far, with their lines (a scan of the slots would make a file of
    // 10,000 memories cost 50 million comparisons).
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(estimate);
    let mut section = Section::Known(MemoryType::Pattern);
    let mut open: Option<Open> = None;
    let mut offset = 0;
    for (index, raw) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        // Most lines are text or tags: one byte tells them from headings.
        if !line.starts_with('#') {
            if let Some(entry) = open.as_mut()
                && let Some(rest) = line.strip_prefix('>')
            {
                entry.has_text |= !rest.trim().is_empty();
            }
        } else if let Some(title) = line.strip_prefix("## ") {
            close(&mut outline, &mut seen, &section, open.take(), start);
            let title = title.trim();
            section = match MemoryType::from_section(title) {
                Some(kind) => {
                    outline.sections[kind as usize].get_or_insert(offset);
                    Section::Known(kind)
                }
                None => Section::Unknown(title),
            };
        } else if let Some(heading) = line.strip_prefix("### ") {
            close(&mut outline, &mut seen, &section, open.take(), start);
            let id = heading.trim();
            let damaged = (!is_valid_id(id)).then(|| {
                format!("the heading `### {id}` is not a memory id (`mem-<digits>-<4 hex digits>`)")
            });
            open = Some(Open {
                id,
                line: index + 1,
                start,
                has_text: false,
                damaged,
            });
        }
    }
    close(&mut outline, &mut seen, &section, open, offset);
    outline
}

/// Ends the entry being read at byte `end`: a slot, or a damaged entry.
fn close<'t>(
    outline: &mut Outline<'t>,
    seen: &mut HashMap<&'t str, usize>,
    section: &Section<'_>,
    open: Option<Open<'t>>,
    end: usize,
) {
    let Some(entry) = open else {
        return;
    };
    let why = match (entry.damaged, section) {
        (Some(why), _) => Some(why),
        (None, Section::Unknown(title)) => Some(format!(
            "memory `{}` is under `## {title}`, which is not one of the sections {}",
            entry.id,
            section_list()
        )),
        (None, Section::Known(_)) if !entry.has_text => Some(format!(
            "memory `{}` has no text (no `> ` line under its heading)",
            entry.id
        )),
        (None, Section::Known(_)) => seen.get(entry.id).map(|first| {
            format!(
                "memory `{}` repeats the id of the memory on line {first}",
                entry.id
            )
        }),
    };
    match (why, section) {
        (Some(why), _) => outline.damaged.push(Damaged {
            line: entry.line,
            why,
        }),
        (None, Section::Known(kind)) => {
            seen.insert(entry.id, entry.line);
            outline.slots.push(Slot {
                id: entry.id,
                memory_type: *kind,
                line: entry.line,
                span: entry.start..end,
            });
        }
        (None, Section::Unknown(_)) => {}
    }
}

/// The memory in `slot` of `text`: its `> ` lines (blank ones at the end are the gap
/// before the next entry) and its last tags comment.
pub fn read_entry(text: &str, slot: &Slot<'_>) -> Memory {
    let mut content: Vec<&str> = Vec::new();
    let mut tags = Vec::new();
    let mut created = String::new();
    for line in text[slot.span.clone()].lines().skip(1) {
        let line = line.trim_end_matches('\r');
        if let Some(rest) = line.strip_prefix('>') {
            content.push(rest.strip_prefix(' ').unwrap_or(rest));
        } else if let Some((t, c)) = metadata(line) {
            tags = t;
            created = c;
        }
    }
    while content.last().is_some_and(|l| l.trim().is_empty()) {
        content.pop();
    }
    Memory {
        id: slot.id.to_owned(),
        memory_type: slot.memory_type,
        content: content.join("\n"),
        tags,
        created,
    }
}

/// `## Patterns`, `## Decisions`, ... for messages.
fn section_list() -> String {
    MemoryType::ALL
        .map(|t| format!("`## {}`", t.section()))
        .join(", ")
}

/// The tags and day of a `<!-- tags: a, b | created: YYYY-MM-DD -->` line.
fn metadata(line: &str) -> Option<(Vec<String>, String)> {
    let inner = line.trim().strip_prefix("<!--")?.strip_suffix("-->")?;
    let (tags, created) = inner.split_once('|')?;
    let tags = tags.trim().strip_prefix("tags:")?;
    let created = created.trim().strip_prefix("created:")?.trim();
    Some((super::split_tags(tags), created.to_owned()))
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
