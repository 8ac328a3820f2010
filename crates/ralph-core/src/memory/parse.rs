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

/// Where the lines being read belong.
enum Section {
    Known(MemoryType),
    /// A `##` heading that names no memory type.
    Unknown(String),
}

/// The entry being read (its text borrowed from the file until it is closed).
struct Open<'t> {
    id: &'t str,
    line: usize,
    start: usize,
    content: Vec<&'t str>,
    tags: Vec<String>,
    created: String,
    /// Why it cannot be read, when that is known from its heading already.
    damaged: Option<String>,
}

/// Reads a memories file.
pub fn parse(text: &str) -> Parsed {
    // About one entry per 150 bytes in files ralph writes: enough to rarely grow.
    let estimate = text.len() / BYTES_PER_ENTRY_GUESS;
    let mut parsed = Parsed {
        entries: Vec::with_capacity(estimate),
        ..Parsed::default()
    };
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(estimate);
    let mut section = Section::Known(MemoryType::Pattern);
    let mut open: Option<Open> = None;
    let mut offset = 0;
    for (index, raw) in text.split_inclusive('\n').enumerate() {
        let line_no = index + 1;
        let start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        if let Some(title) = line.strip_prefix("## ") {
            close(&mut parsed, &mut seen, &section, open.take(), start);
            let title = title.trim();
            section = match MemoryType::from_section(title) {
                Some(kind) => {
                    let slot = &mut parsed.sections[kind as usize];
                    slot.get_or_insert(offset);
                    Section::Known(kind)
                }
                None => Section::Unknown(title.to_owned()),
            };
        } else if let Some(heading) = line.strip_prefix("### ") {
            close(&mut parsed, &mut seen, &section, open.take(), start);
            let id = heading.trim();
            let damaged = (!is_valid_id(id)).then(|| {
                format!("the heading `### {id}` is not a memory id (`mem-<digits>-<4 hex digits>`)")
            });
            open = Some(Open {
                id,
                line: line_no,
                start,
                content: Vec::new(),
                tags: Vec::new(),
                created: String::new(),
                damaged,
            });
        } else if let Some(entry) = open.as_mut() {
            if let Some(rest) = line.strip_prefix('>') {
                entry.content.push(rest.strip_prefix(" ").unwrap_or(rest));
            } else if let Some((tags, created)) = metadata(line) {
                entry.tags = tags;
                entry.created = created;
            }
        }
    }
    close(&mut parsed, &mut seen, &section, open, offset);
    parsed
}

/// Ends the entry being read at byte `end`: a memory, or a damaged entry. `seen` maps
/// the ids read so far to their lines (a scan of `parsed` would make a file of 10,000
/// memories cost 50 million comparisons).
fn close<'t>(
    parsed: &mut Parsed,
    seen: &mut HashMap<&'t str, usize>,
    section: &Section,
    open: Option<Open<'t>>,
    end: usize,
) {
    let Some(mut entry) = open else {
        return;
    };
    // Blank lines quoted at the end are the gap before the next entry, not text.
    while entry.content.last().is_some_and(|l| l.trim().is_empty()) {
        entry.content.pop();
    }
    let why = match (&entry.damaged, section) {
        (Some(why), _) => Some(why.clone()),
        (None, Section::Unknown(title)) => Some(format!(
            "memory `{}` is under `## {title}`, which is not one of the sections {}",
            entry.id,
            section_list()
        )),
        (None, Section::Known(_)) if entry.content.is_empty() => Some(format!(
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
    if let Some(why) = why {
        parsed.damaged.push(Damaged {
            line: entry.line,
            why,
        });
        return;
    }
    let Section::Known(kind) = section else {
        return;
    };
    seen.insert(entry.id, entry.line);
    parsed.entries.push(Entry {
        memory: Memory {
            id: entry.id.to_owned(),
            memory_type: *kind,
            content: entry.content.join("\n"),
            tags: entry.tags,
            created: entry.created,
        },
        line: entry.line,
        span: entry.start..end,
    });
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
