//! The loop's working memory in a real `ralph run`: what one iteration stores with
//! `ralph tools memory add` is in the next iteration's prompt, within its budget, with
//! the skills index; `inject: none` leaves both the memories and their teaching out.

mod common;

use common::Workspace;

const SKILL: &str = "---\nname: release-notes\ndescription: How to write release notes\n---\nStart with what users see.\n";

fn workspace(config: &str, plan: &str) -> Workspace {
    let ws = Workspace::new(config, plan);
    let dir = ws.path().join(".claude/skills/notes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), SKILL).unwrap();
    ws
}

#[test]
fn a_memory_stored_in_one_iteration_is_in_the_next_prompt_with_the_skills_index() {
    let ws = workspace(
        "cli:\n  backend: pi\nskills:\n  dirs: [.claude/skills]\n",
        "pi/anthropic/text.jsonl | | memory=fix:pi_exits_0_on_failure\npi/anthropic/text.jsonl | |\n",
    );
    let (_, _, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "2"]);
    assert_eq!(ws.agent_log().len(), 2, "{stderr}");
    let first = ws.prompt(1);
    assert!(first.contains("## Memories\n\nNone stored yet."), "{first}");
    assert!(
        first.contains("- release-notes: How to write release notes"),
        "{first}"
    );
    assert!(first.contains("`ralph tools skill load <name>`"), "{first}");
    let second = ws.prompt(2);
    let memories =
        &second[second.find("<memories>").expect(&second)..second.find("</memories>").unwrap()];
    assert!(
        memories.contains("## Fixes\n\n### mem-") && memories.contains("> pi exits 0 on failure\n"),
        "{second}"
    );
    // Nothing stored yet, memories and skills on: the whole prompt stays small.
    assert!(first.len() < 4096, "{} bytes", first.len());
}

#[test]
fn the_budget_and_inject_settings_shape_the_prompt() {
    let ws = workspace(
        "cli:\n  backend: pi\nmemories:\n  budget: 75\n",
        "pi/anthropic/text.jsonl | | memory=pattern:lesson_0_of_many\npi/anthropic/text.jsonl | |\n",
    );
    store_patterns(&ws, 40, |i| format!("old lesson {i}"));
    let (_, _, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "2"]);
    assert_eq!(ws.agent_log().len(), 2, "{stderr}");
    let second = ws.prompt(2);
    let start = second.find("<memories>\n").unwrap() + "<memories>\n".len();
    let memories = &second[start..second.find("\n</memories>").unwrap()];
    // 75 tokens of 4 characters.
    assert!(memories.chars().count() <= 300, "{memories}");
    assert!(memories.chars().count() > 75, "{memories}");
    // The newest first: the one the agent just stored.
    assert!(memories.contains("> lesson 0 of many"), "{memories}");
    assert!(memories.contains("more memories not shown"), "{memories}");

    let off = workspace(
        "cli:\n  backend: pi\nmemories:\n  inject: none\nskills:\n  enabled: false\n  dirs: [.claude/skills]\n",
        "pi/anthropic/text.jsonl | |\n",
    );
    off.run_json(&["-p", "task", "--max-iterations", "1"]);
    let prompt = off.prompt(1);
    assert!(
        !prompt.contains("## Memories") && !prompt.contains("## Skills"),
        "{prompt}"
    );
}

#[test]
fn a_skill_whose_front_matter_has_a_wrong_type_is_left_out_with_a_warning() {
    let ws = workspace(
        "cli:\n  backend: pi\nskills:\n  dirs: [.claude/skills]\n",
        "pi/anthropic/text.jsonl | |\n",
    );
    let secret = ws.path().join(".claude/skills/secret.md");
    std::fs::write(&secret, "---\nhats: 5\n---\nFor one hat only.\n").unwrap();
    let (_, _, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!(ws.agent_log().len(), 1, "{stderr}");
    assert!(
        stderr.contains("secret.md` is left out: its `hats` is a number (5)"),
        "{stderr}"
    );
    let prompt = ws.prompt(1);
    assert!(
        prompt.contains("- release-notes:") && !prompt.contains("secret"),
        "{prompt}"
    );
}

#[test]
fn memories_that_cannot_be_read_are_said_to_be_unreadable_not_empty() {
    let ws = workspace("cli:\n  backend: pi\n", "pi/anthropic/text.jsonl | |\n");
    std::fs::create_dir_all(ws.path().join(".ralph/agent")).unwrap();
    nix::unistd::mkfifo(
        &ws.path().join(".ralph/agent/memories.md"),
        nix::sys::stat::Mode::S_IRWXU,
    )
    .unwrap();
    let (_, _, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert!(
        stderr.contains("the memories are left out of this prompt"),
        "{stderr}"
    );
    let prompt = ws.prompt(1);
    assert!(
        prompt.contains("The memories file `.ralph/agent/memories.md` cannot be read"),
        "{prompt}"
    );
    assert!(!prompt.contains("None stored yet"), "{prompt}");
}

#[test]
fn memories_too_big_for_a_tiny_budget_are_said_to_be_stored_not_none() {
    let ws = workspace(
        "cli:\n  backend: pi\nmemories:\n  budget: 10\n",
        "pi/anthropic/text.jsonl | |\n",
    );
    store_patterns(&ws, 3, |i| {
        format!("a lesson longer than ten tokens, number {i}")
    });
    let (_, _, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!(ws.agent_log().len(), 1, "{stderr}");
    let prompt = ws.prompt(1);
    assert!(!prompt.contains("None stored yet"), "{prompt}");
    assert!(
        prompt.contains("3 memories are stored, but none fits in this prompt's budget"),
        "{prompt}"
    );
}

#[test]
fn memories_the_filter_leaves_out_are_said_to_be_stored_and_filtered_not_none() {
    let ws = workspace(
        "cli:\n  backend: pi\nmemories:\n  filter:\n    types: [fix]\n",
        "pi/anthropic/text.jsonl | |\n",
    );
    store_patterns(&ws, 2, |i| format!("a pattern, number {i}"));
    let (_, _, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!(ws.agent_log().len(), 1, "{stderr}");
    let prompt = ws.prompt(1);
    assert!(!prompt.contains("None stored yet"), "{prompt}");
    assert!(
        prompt.contains(
            "2 memories are stored, but `memories.filter` in the configuration leaves them \
             all out"
        ),
        "{prompt}"
    );
}

/// Writes a memories file of `count` untagged patterns, the `i`th saying `lesson(i)`,
/// in the format `ralph tools memory add` writes.
fn store_patterns(ws: &Workspace, count: u32, lesson: impl Fn(u32) -> String) {
    std::fs::create_dir_all(ws.path().join(".ralph/agent")).unwrap();
    let mut text = String::from("# Memories\n\n## Patterns\n");
    for i in 0..count {
        text.push_str(&format!(
            "\n### mem-{}-{i:04x}\n> {}\n<!-- tags:  | created: 2026-01-01 -->\n",
            1_700_000_000 + i,
            lesson(i)
        ));
    }
    std::fs::write(ws.path().join(".ralph/agent/memories.md"), text).unwrap();
}
