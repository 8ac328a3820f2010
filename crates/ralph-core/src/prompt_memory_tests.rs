use std::path::PathBuf;

use super::*;
use crate::event::Event;
use crate::memory::select::CHARS_PER_TOKEN;
use crate::memory::{Prime, date, parse, prime};
use crate::prompt::{PromptInput, RALPH_BY_NAME, Role, build_prompt};
use crate::topic::TASK_START;

const SAMPLE: &str = include_str!("../tests/fixtures/memories/incumbent.md");

fn skill(name: &str, description: &str, auto_inject: bool) -> Skill {
    Skill {
        name: name.to_owned(),
        description: description.to_owned(),
        body: format!("How to do {name}.\n"),
        path: PathBuf::from(format!(".claude/skills/{name}/SKILL.md")),
        hats: vec![],
        backends: vec![],
        auto_inject,
    }
}

fn solo<'a>(events: &'a [Event]) -> PromptInput<'a> {
    PromptInput {
        objective: "Add a `--json` flag to the `report` command.\n",
        guardrails: &[],
        scratchpad: None,
        events,
        role: Role::Solo,
        promise: "LOOP_COMPLETE",
        required_missing: &[],
        events_max_bytes: 1024 * 1024,
        ralph: RALPH_BY_NAME,
        memories: None,
        skills: &[],
        steering: &[],
        tasks: None,
    }
}

fn primed(budget_tokens: Option<usize>) -> String {
    let parsed = parse(SAMPLE);
    let today = date::parse_ymd("2026-11-27").unwrap();
    prime(
        parsed.memories(),
        &Prime {
            budget_tokens,
            today,
            ..Prime::default()
        },
    )
    .text
}

#[test]
fn memories_and_skills_in_a_solo_prompt() {
    let events = [Event::new(TASK_START)];
    let memories = primed(Some(500));
    let skills = [
        skill("release-notes", "How to write the release notes", false),
        skill("style", "The house style, injected", true),
    ];
    insta::assert_snapshot!(build_prompt(&PromptInput {
        memories: Some(MemoryPrompt::Primed(&memories)),
        skills: &skills,
        ..solo(&events)
    }));
}

#[test]
fn nothing_stored_yet_teaches_the_commands_in_a_few_lines() {
    let events = [Event::new(TASK_START)];
    let without = build_prompt(&solo(&events));
    let with = build_prompt(&PromptInput {
        memories: Some(MemoryPrompt::Primed("")),
        ..solo(&events)
    });
    insta::assert_snapshot!(with);
    // What memories add to an empty prompt: a heading and two sentences.
    assert!(
        with.len() - without.len() < 400,
        "{}",
        with.len() - without.len()
    );
}

#[test]
fn memories_that_do_not_fit_the_budget_are_counted_not_called_none_stored() {
    let events = [Event::new(TASK_START)];
    for (stored, said) in [
        (
            3,
            "3 memories are stored, but none fits in this prompt's budget",
        ),
        (
            1,
            "1 memory is stored, but it does not fit in this prompt's budget",
        ),
    ] {
        let prompt = build_prompt(&PromptInput {
            memories: Some(MemoryPrompt::NoneFit(stored)),
            ..solo(&events)
        });
        assert!(prompt.contains(said), "{prompt}");
        assert!(prompt.contains("`memories.budget`"), "{prompt}");
        assert!(!prompt.contains("None stored yet"), "{prompt}");
    }
}

#[test]
fn memories_the_filter_leaves_out_are_counted_with_the_key_to_change() {
    let events = [Event::new(TASK_START)];
    for (stored, said) in [
        (
            4,
            "4 memories are stored, but `memories.filter` in the configuration leaves them \
             all out",
        ),
        (
            1,
            "1 memory is stored, but `memories.filter` in the configuration leaves it out",
        ),
    ] {
        let prompt = build_prompt(&PromptInput {
            memories: Some(MemoryPrompt::Filtered(stored)),
            ..solo(&events)
        });
        assert!(prompt.contains(said), "{prompt}");
        assert!(
            prompt.contains("widen its `types`, `tags` or `recent`"),
            "{prompt}"
        );
        assert!(!prompt.contains("None stored yet"), "{prompt}");
    }
}

#[test]
fn memories_that_cannot_be_read_are_not_called_none_stored() {
    let prompt = build_prompt(&PromptInput {
        memories: Some(MemoryPrompt::Unreadable {
            path: ".ralph/agent/memories.md",
            why: "it is a FIFO (named pipe), not a regular file",
        }),
        ..solo(&[])
    });
    assert!(
        prompt.contains(
            "The memories file `.ralph/agent/memories.md` cannot be read (it is a FIFO (named \
             pipe), not a regular file)"
        ),
        "{prompt}"
    );
    assert!(!prompt.contains("None stored yet"), "{prompt}");
    // Whatever the cause (a FIFO, bytes that are not UTF-8), the prompt names no other.
    assert!(prompt.contains("will fail until that is fixed"), "{prompt}");
}

#[test]
fn manual_injection_says_how_to_read_them_and_carries_none() {
    let prompt = build_prompt(&PromptInput {
        memories: Some(MemoryPrompt::Manual),
        ..solo(&[])
    });
    assert!(prompt.contains("`ralph tools memory prime` prints the most relevant"));
    assert!(!prompt.contains("<memories>"));
}

#[test]
fn the_memories_section_grows_only_as_far_as_the_budget() {
    let mut text = String::from(SAMPLE);
    for i in 0..500 {
        let m = crate::memory::Memory {
            id: format!("mem-{}-{:04x}", 1_800_000_000 + i, i),
            memory_type: crate::memory::MemoryType::Fix,
            content: format!("lesson number {i}, which is long enough to matter"),
            tags: vec!["x".into()],
            created: "2026-11-26".into(),
        };
        text = crate::memory::render::insert(&text, &parse(&text).sections, &m);
    }
    let parsed = parse(&text);
    let today = date::parse_ymd("2026-11-27").unwrap();
    for budget in [75, 500, 2000] {
        let ranked = prime(
            parsed.memories(),
            &Prime {
                budget_tokens: Some(budget),
                today,
                ..Prime::default()
            },
        );
        let mut section = String::new();
        write_memories(&mut section, MemoryPrompt::Primed(&ranked.text), "ralph");
        let mut empty = String::new();
        write_memories(&mut empty, MemoryPrompt::Primed("x"), "ralph");
        assert!(
            section.chars().count() <= budget * CHARS_PER_TOKEN + empty.chars().count() + 32,
            "{budget}"
        );
        assert!(ranked.left_out > 0);
    }
}

#[test]
fn the_skills_index_is_bounded() {
    let long = "word ".repeat(100);
    let skills: Vec<Skill> = (0..SKILLS_INDEX_MAX + 7)
        .map(|i| skill(&format!("s{i:02}"), &long, false))
        .collect();
    let mut p = String::new();
    write_skills(&mut p, &skills, "ralph");
    assert_eq!(p.matches("\n- s").count(), SKILLS_INDEX_MAX);
    assert!(p.contains("- (7 more: `ralph tools skill list`)"));
    assert!(
        p.lines()
            .all(|l| l.chars().count() <= SKILL_LINE_MAX_CHARS + 16),
        "{p}"
    );
    let mut none = String::new();
    write_skills(&mut none, &[], "ralph");
    assert_eq!(none, "");
}

#[test]
fn auto_injected_skills_past_their_bound_are_listed_instead() {
    let mut big = skill("big", "Big one", true);
    big.body = "x".repeat(SKILLS_INJECT_MAX_BYTES);
    let small = skill("small", "Small one", true);
    let mut p = String::new();
    write_skills(&mut p, &[big, small], "ralph");
    assert!(p.contains("<small-skill>") && !p.contains("<big-skill>"));
    assert!(p.contains("- big: Big one"));
}
