use pretty_assertions::assert_eq;

use super::*;
use crate::memory::render::{TEMPLATE, insert, remove};

const INCUMBENT: &str = include_str!("../../tests/fixtures/memories/incumbent.md");

fn memory(id: &str, kind: MemoryType, content: &str, tags: &[&str]) -> Memory {
    Memory {
        id: id.to_owned(),
        memory_type: kind,
        content: content.to_owned(),
        tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        created: "2026-11-26".to_owned(),
    }
}

#[test]
fn reads_the_file_ralph_orchestrator_wrote() {
    let parsed = parse(INCUMBENT);
    assert_eq!(parsed.damaged, []);
    let memories: Vec<Memory> = parsed.memories().cloned().collect();
    assert_eq!(
        memories,
        [
            memory(
                "mem-1795660762-7768",
                MemoryType::Pattern,
                "Use memchr for framing",
                &["perf", "parser"]
            ),
            memory(
                "mem-1795660762-9c57",
                MemoryType::Decision,
                "Chose saphyr",
                &[]
            ),
            memory(
                "mem-1795660762-88c1",
                MemoryType::Fix,
                "pi exits 0 on failure",
                &[]
            ),
        ]
    );
    assert_eq!(parsed.entries[0].line, 5);
}

#[test]
fn an_entry_spans_its_heading_to_the_next_heading() {
    let parsed = parse(INCUMBENT);
    let entry = &parsed.entries[1];
    assert_eq!(
        &INCUMBENT[entry.span.clone()],
        "### mem-1795660762-9c57\n> Chose saphyr\n<!-- tags:  | created: 2026-11-26 -->\n\n"
    );
}

#[test]
fn damaged_entries_are_reported_with_their_line_and_skipped() {
    let text = "# Memories\n\n## Patterns\n\n### mem-1-00aa\n> kept\n\n### not-an-id\n> lost\n\n\
                ### mem-2-00bb\n<!-- tags: x | created: 2026-01-01 -->\n\n### mem-1-00aa\n> again\n\n\
                ## Misc\n\n### mem-3-00cc\n> elsewhere\n";
    let parsed = parse(text);
    let ids: Vec<&str> = parsed.memories().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["mem-1-00aa"]);
    let lines: Vec<usize> = parsed.damaged.iter().map(|d| d.line).collect();
    assert_eq!(lines, [8, 11, 14, 19]);
    assert!(
        parsed.damaged[0]
            .why
            .contains("`### not-an-id` is not a memory id")
    );
    assert!(parsed.damaged[1].why.contains("has no text"));
    assert!(
        parsed.damaged[2]
            .why
            .contains("repeats the id of the memory on line 5")
    );
    assert!(parsed.damaged[3].why.contains("under `## Misc`"));
}

#[test]
fn adding_and_deleting_edit_in_place_and_keep_what_could_not_be_read() {
    let damaged = "# Memories\n\n## Patterns\n\n### broken heading\n> a person's note\n";
    let new = memory(
        "mem-5-abcd",
        MemoryType::Pattern,
        "line one\n\nline two",
        &["a", "b"],
    );
    let added = insert(damaged, &parse(damaged).sections, &new);
    assert_eq!(
        added,
        "# Memories\n\n## Patterns\n\n### mem-5-abcd\n> line one\n> line two\n\
         <!-- tags: a, b | created: 2026-11-26 -->\n\n### broken heading\n> a person's note\n"
    );
    let parsed = parse(&added);
    assert_eq!(parsed.damaged.len(), 1);
    assert_eq!(parsed.entries[0].memory.content, "line one\nline two");
    let removed = remove(&added, parsed.entries[0].span.clone());
    assert_eq!(removed, damaged);
}

#[test]
fn a_missing_section_is_added_and_an_empty_file_gets_the_template() {
    let only_patterns = "# Memories\n\n## Patterns\n";
    let fix = memory("mem-5-abcd", MemoryType::Fix, "restart it", &[]);
    let text = insert(only_patterns, &parse(only_patterns).sections, &fix);
    assert!(text.ends_with("## Patterns\n\n## Fixes\n\n### mem-5-abcd\n> restart it\n<!-- tags:  | created: 2026-11-26 -->\n"));
    let fresh = insert("", &parse("").sections, &fix);
    assert!(fresh.starts_with(TEMPLATE.split("## Fixes").next().unwrap()));
    assert_eq!(parse(&fresh).memories().count(), 1);
    assert_eq!(parse(&fresh).damaged, []);
}

#[test]
fn ralph_writes_what_ralph_orchestrator_reads() {
    // Its reader: `## (Patterns|Decisions|Fixes|Context)`, `### (mem-\d+-[0-9a-f]{4})`,
    // `> (.+)`, `<!-- tags: ([^|]*) \| created: (\d{4}-\d{2}-\d{2}) -->`, checked here
    // line by line without a regex library.
    let mut text = TEMPLATE.to_owned();
    for (i, kind) in MemoryType::ALL.into_iter().enumerate() {
        let m = memory(
            &format!("mem-{i}-0{i}ab"),
            kind,
            "first\n  \nsecond",
            &["t"],
        );
        text = insert(&text, &parse(&text).sections, &m);
    }
    let mut quoted = 0;
    for line in text.lines() {
        if let Some(id) = line.strip_prefix("### ") {
            assert!(crate::memory::is_valid_id(id), "{line}");
        } else if let Some(rest) = line.strip_prefix("> ") {
            assert!(!rest.is_empty(), "a quoted line without text: {line:?}");
            quoted += 1;
        } else if line.starts_with("<!--") {
            let (tags, created) = line.split_once(" | created: ").expect(line);
            assert!(
                tags.starts_with("<!-- tags: ") && !tags.contains('|'),
                "{line}"
            );
            assert!(
                created.ends_with(" -->") && created.len() == "2026-11-26 -->".len(),
                "{line}"
            );
        } else if let Some(title) = line.strip_prefix("## ") {
            assert!(MemoryType::from_section(title).is_some(), "{line}");
        } else {
            assert!(line.is_empty() || line == "# Memories", "{line:?}");
        }
    }
    assert_eq!(quoted, 8);
}

#[test]
fn the_sample_round_trips_through_an_add_and_a_delete() {
    let parsed = parse(INCUMBENT);
    let new = memory("mem-9-ffff", MemoryType::Context, "ctx", &[]);
    let added = insert(INCUMBENT, &parsed.sections, &new);
    let reparsed = parse(&added);
    assert_eq!(reparsed.memories().count(), 4);
    let removed = remove(&added, reparsed.find("mem-9-ffff").unwrap().span.clone());
    // The sample ends with an empty `## Context` section and no newline after it.
    assert_eq!(removed.trim_end(), INCUMBENT.trim_end());
}

#[test]
fn a_blocks_length_is_counted_without_writing_it() {
    for m in [
        memory(
            "mem-1-abcd",
            MemoryType::Fix,
            "één\n\n  two  \nthree",
            &["a", "bé"],
        ),
        memory("mem-22-0000", MemoryType::Context, "x", &[]),
    ] {
        assert_eq!(
            crate::memory::render::block_chars(&m),
            crate::memory::render::block(&m).chars().count()
        );
    }
}
