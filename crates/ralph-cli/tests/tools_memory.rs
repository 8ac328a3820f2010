//! `ralph tools memory` and `ralph tools skill` through the real binary: the
//! incumbent's file read and round-tripped, concurrent adds, damaged entries, errors.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const SAMPLE: &str = include_str!("../../ralph-core/tests/fixtures/memories/incumbent.md");

fn ralph(workspace: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ralph"))
        .args(["tools"])
        .args(args)
        .arg("--root")
        .arg(workspace)
        .env_remove("RALPH_WORKSPACE")
        .output()
        .expect("run ralph")
}

fn ok(output: &Output) -> String {
    assert!(
        output.status.success(),
        "exit {:?}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("utf-8")
}

fn failed(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn memories_file(workspace: &Path) -> PathBuf {
    workspace.join(".ralph/agent/memories.md")
}

fn with_sample() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".ralph/agent")).unwrap();
    std::fs::write(memories_file(dir.path()), SAMPLE).unwrap();
    dir
}

fn list_json(workspace: &Path) -> Vec<Value> {
    let text = ok(&ralph(workspace, &["memory", "list", "--format", "json"]));
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn the_incumbents_file_is_read_and_survives_an_add_and_a_delete() {
    let dir = with_sample();
    let listed = list_json(dir.path());
    let ids: Vec<&str> = listed.iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "mem-1795660762-7768",
            "mem-1795660762-9c57",
            "mem-1795660762-88c1"
        ]
    );
    assert_eq!(listed[0]["memory_type"], "pattern");
    assert_eq!(listed[0]["tags"], serde_json::json!(["perf", "parser"]));
    let found = ok(&ralph(dir.path(), &["memory", "search", "parser"]));
    assert!(
        found.contains("(1 of 3 memories)") && found.contains("Use memchr for framing"),
        "{found}"
    );

    let id = ok(&ralph(
        dir.path(),
        &[
            "memory",
            "add",
            "A context note",
            "-t",
            "context",
            "--format",
            "quiet",
        ],
    ));
    let text = std::fs::read_to_string(memories_file(dir.path())).unwrap();
    let block = format!(
        "## Context\n\n### {}\n> A context note\n<!-- tags:  | created: ",
        id.trim()
    );
    assert!(text.contains(&block), "{text}");
    ok(&ralph(dir.path(), &["memory", "delete", id.trim()]));
    let back = std::fs::read_to_string(memories_file(dir.path())).unwrap();
    assert_eq!(back.trim_end(), SAMPLE.trim_end());
}

#[test]
fn a_file_ralph_writes_has_the_layout_the_incumbent_reads() {
    let dir = tempfile::tempdir().unwrap();
    for (text, kind, tags) in [
        ("first line\n\nsecond line", "pattern", "a,b"),
        ("chose X", "decision", ""),
        ("restart it", "fix", "ops"),
        ("the repo is a workspace", "context", ""),
    ] {
        ok(&ralph(
            dir.path(),
            &["memory", "add", text, "-t", kind, "--tags", tags],
        ));
    }
    let text = std::fs::read_to_string(memories_file(dir.path())).unwrap();
    assert!(dir.path().join(".ralph/agent/memories.md.lock").is_file());
    // The incumbent's reader, line by line: `## (Patterns|Decisions|Fixes|Context)`,
    // `### mem-\d+-[0-9a-f]{4}`, `> (.+)`, `<!-- tags: ([^|]*) \| created: YYYY-MM-DD -->`.
    let mut sections = Vec::new();
    for line in text.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            sections.push(title);
        } else if let Some(id) = line.strip_prefix("### ") {
            let (secs, hex) = id.strip_prefix("mem-").unwrap().split_once('-').unwrap();
            assert!(secs.bytes().all(|b| b.is_ascii_digit()), "{line}");
            assert!(
                hex.len() == 4
                    && hex
                        .bytes()
                        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
                "{line}"
            );
        } else if let Some(rest) = line.strip_prefix("> ") {
            assert!(!rest.is_empty(), "{line:?}");
        } else if line.starts_with("<!--") {
            let inner = line
                .strip_prefix("<!-- tags: ")
                .unwrap()
                .strip_suffix(" -->")
                .unwrap();
            let (tags, created) = inner.split_once(" | created: ").unwrap();
            assert!(!tags.contains('|'));
            assert_eq!(created.len(), 10, "{line}");
        } else {
            assert!(line.is_empty() || line == "# Memories", "{line:?}");
        }
    }
    assert_eq!(sections, ["Patterns", "Decisions", "Fixes", "Context"]);
    assert!(text.contains("> first line\n> second line\n<!-- tags: a, b | created: "));
}

#[test]
fn a_type_in_any_case_is_accepted_by_every_subcommand() {
    // Agents capitalise the type (`-t Fix`); the incumbent accepted it everywhere.
    let dir = tempfile::tempdir().unwrap();
    let fix = ok(&ralph(
        dir.path(),
        &[
            "memory",
            "add",
            "restart it",
            "-t",
            "Fix",
            "--format",
            "quiet",
        ],
    ));
    ok(&ralph(
        dir.path(),
        &["memory", "add", "chose X", "--type", "DECISION"],
    ));
    let listed = ok(&ralph(
        dir.path(),
        &["memory", "list", "-t", "FIX", "--format", "quiet"],
    ));
    assert_eq!(listed, fix);
    let found = ok(&ralph(
        dir.path(),
        &["memory", "search", "-t", "Decision", "--format", "quiet"],
    ));
    let primed = ok(&ralph(dir.path(), &["memory", "prime", "-t", "Decision"]));
    assert!(
        found.lines().count() == 1 && primed.contains("chose X") && !primed.contains("restart"),
        "{found}\n{primed}"
    );
    let kinds: Vec<Value> = list_json(dir.path())
        .iter()
        .map(|m| m["memory_type"].clone())
        .collect();
    assert_eq!(kinds, ["decision", "fix"]);
}

#[test]
fn fifty_processes_adding_at_once_lose_nothing() {
    const WRITERS: usize = 50;
    let dir = tempfile::tempdir().unwrap();
    let children: Vec<_> = (0..WRITERS)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_ralph"))
                .args([
                    "tools",
                    "memory",
                    "add",
                    &format!("lesson {i}"),
                    "-t",
                    "fix",
                ])
                .arg("--root")
                .arg(dir.path())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    common::wait_all_ok(children);
    let listed = list_json(dir.path());
    let mut contents: Vec<String> = listed
        .iter()
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect();
    contents.sort();
    let mut expected: Vec<String> = (0..WRITERS).map(|i| format!("lesson {i}")).collect();
    expected.sort();
    assert_eq!(contents, expected);
    let mut ids: Vec<&str> = listed.iter().map(|m| m["id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), WRITERS, "ids are unique");
    let listed_out = ralph(dir.path(), &["memory", "list"]);
    assert!(
        listed_out.stderr.is_empty(),
        "no damaged entry: {}",
        String::from_utf8_lossy(&listed_out.stderr)
    );
}

#[test]
fn a_damaged_entry_is_reported_by_line_skipped_and_kept_on_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".ralph/agent")).unwrap();
    let damaged = "# Memories\n\n## Patterns\n\n### mem-1-00aa\n> kept\n\n### mem-broken\n> a person's note\n\n## Fixes\n";
    std::fs::write(memories_file(dir.path()), damaged).unwrap();
    let out = ralph(dir.path(), &["memory", "list", "--format", "quiet"]);
    assert_eq!(ok(&out), "mem-1-00aa\n");
    let warning = String::from_utf8_lossy(&out.stderr);
    assert!(
        warning.contains("memories.md` line 8:") && warning.contains("`### mem-broken`"),
        "{warning}"
    );
    ok(&ralph(
        dir.path(),
        &["memory", "add", "new fix", "-t", "fix"],
    ));
    ok(&ralph(dir.path(), &["memory", "delete", "mem-1-00aa"]));
    let text = std::fs::read_to_string(memories_file(dir.path())).unwrap();
    assert!(
        text.contains("### mem-broken\n> a person's note\n"),
        "{text}"
    );
    assert!(
        text.contains("> new fix") && !text.contains("> kept"),
        "{text}"
    );
}

#[test]
fn failures_exit_1_and_say_what_to_do() {
    let dir = with_sample();
    let cases: [(&[&str], &str); 6] = [
        (
            &["memory", "show", "mem-9-ffff"],
            "`ralph tools memory list` shows the ids",
        ),
        (
            &["memory", "delete", "mem-9-ffff"],
            "`ralph tools memory list` shows the ids",
        ),
        (&["memory", "add", "  \n "], "give it as the first argument"),
        (
            &["memory", "add", "x", "--tags", "a|b"],
            "use letters, digits",
        ),
        (
            &["memory", "prime", "--type", "fix,bogus"],
            "[possible values: pattern, decision, fix, context]",
        ),
        (&["memory", "init"], "pass --force to replace it"),
    ];
    for (args, hint) in cases {
        let stderr = failed(&ralph(dir.path(), args));
        assert!(stderr.contains(hint), "{args:?}: {stderr}");
    }
    assert_eq!(
        SAMPLE,
        std::fs::read_to_string(memories_file(dir.path())).unwrap()
    );
    ok(&ralph(dir.path(), &["memory", "init", "--force"]));
    assert!(list_json(dir.path()).is_empty());
}

#[test]
fn a_link_planted_at_the_memories_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".ralph/agent")).unwrap();
    let outside = dir.path().join("outside.md");
    std::fs::write(&outside, SAMPLE).unwrap();
    std::os::unix::fs::symlink(&outside, memories_file(dir.path())).unwrap();
    let stderr = failed(&ralph(dir.path(), &["memory", "list"]));
    assert!(stderr.contains("is a symbolic link"), "{stderr}");
    failed(&ralph(dir.path(), &["memory", "add", "x"]));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), SAMPLE);
}

#[test]
fn a_lock_that_cannot_be_used_is_named() {
    let dir = with_sample();
    let lock = dir.path().join(".ralph/agent/memories.md.lock");
    std::fs::create_dir_all(&lock).unwrap();
    let named = format!("cannot use its lock `{}`: ", lock.display());
    for args in [&["memory", "add", "x"][..], &["memory", "list"][..]] {
        let stderr = failed(&ralph(dir.path(), args));
        assert!(stderr.contains(&named), "{args:?}: {stderr}");
    }
}

#[test]
fn the_workspace_comes_from_root_then_ralph_workspace_then_the_current_directory() {
    let from_env = with_sample();
    let cwd = tempfile::tempdir().unwrap();
    let run = |env: Option<&Path>, extra: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ralph"));
        cmd.args(["tools", "memory", "list", "--format", "quiet"])
            .args(extra)
            .current_dir(cwd.path());
        match env {
            Some(dir) => cmd.env("RALPH_WORKSPACE", dir),
            None => cmd.env_remove("RALPH_WORKSPACE"),
        };
        ok(&cmd.output().unwrap()).lines().count()
    };
    assert_eq!(run(Some(from_env.path()), &[]), 3);
    assert_eq!(run(None, &[]), 0);
    let root = cwd.path().to_str().unwrap();
    assert_eq!(run(Some(from_env.path()), &["--root", root]), 0);
    // The incumbent's common options are accepted.
    assert_eq!(
        run(
            Some(from_env.path()),
            &["-H", "builtin:code-assist", "-v", "--color", "never"]
        ),
        3
    );
}

#[test]
fn prime_fits_its_budget_in_tokens_and_prints_json_too() {
    let dir = with_sample();
    // The incumbent's transcript: `prime --budget 200` prints all three memories (over 300
    // characters), since the budget counts tokens of 4 characters.
    let whole = ok(&ralph(dir.path(), &["memory", "prime", "--budget", "200"]));
    assert!(whole.chars().count() > 300, "{whole}");
    assert_eq!(whole.matches("### mem-").count(), 3, "{whole}");
    let text = ok(&ralph(dir.path(), &["memory", "prime", "--budget", "50"]));
    assert!(text.chars().count() <= 200, "{text}");
    assert!(
        text.starts_with("# Memories\n") && text.contains("more memories not shown"),
        "{text}"
    );
    let all = ok(&ralph(dir.path(), &["memory", "prime"]));
    assert_eq!(all.matches("### mem-").count(), 3);
    let json: Value = serde_json::from_str(&ok(&ralph(
        dir.path(),
        &["memory", "prime", "--format", "json", "-t", "fix"],
    )))
    .unwrap();
    assert_eq!(json.as_array().unwrap().len(), 1);
    assert_eq!(json[0]["id"], "mem-1795660762-88c1");
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn skills_are_listed_and_loaded() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("ralph.yml"),
        "skills:\n  dirs: [.claude/skills]\n  overrides:\n    old: {enabled: false}\n",
    );
    write(
        &dir.path().join(".claude/skills/notes/SKILL.md"),
        "---\nname: release-notes\ndescription: How to write release notes\n---\nStart with the user-visible change.\n",
    );
    write(
        &dir.path().join(".claude/skills/old.md"),
        "---\nname: old\n---\nGone.\n",
    );
    let table = ok(&ralph(dir.path(), &["skill", "list"]));
    assert!(
        table.contains("release-notes  How to write release notes (.claude/skills/notes/SKILL.md)"),
        "{table}"
    );
    assert!(!table.contains("old"));
    let json: Value = serde_json::from_str(&ok(&ralph(
        dir.path(),
        &["skill", "list", "--format", "json"],
    )))
    .unwrap();
    assert_eq!(json[0]["name"], "release-notes");
    assert_eq!(
        ok(&ralph(dir.path(), &["skill", "load", "release-notes"])),
        "<release-notes-skill>\nStart with the user-visible change.\n</release-notes-skill>\n"
    );
    let stderr = failed(&ralph(dir.path(), &["skill", "load", "release-note"]));
    assert!(stderr.contains("did you mean `release-notes`?"), "{stderr}");
    let none = tempfile::tempdir().unwrap();
    let stderr = failed(&ralph(none.path(), &["skill", "load", "x"]));
    assert!(stderr.contains("`skills.dirs`"), "{stderr}");
}

#[test]
fn an_add_past_the_limit_is_refused_and_a_file_that_outgrew_it_can_be_made_smaller() {
    use ralph_core::memory::file::MAX_MEMORIES_FILE_BYTES;
    let limit = usize::try_from(MAX_MEMORIES_FILE_BYTES).unwrap();
    let entry = |id: &str, bytes: usize| {
        format!(
            "### {id}\n> {}\n<!-- tags: x | created: 2026-11-27 -->\n\n",
            "m".repeat(bytes)
        )
    };
    let head = "# Memories\n\n## Patterns\n\n";
    // A file 1000 bytes short of the limit.
    let near = format!(
        "{head}{}",
        entry("mem-1795700000-abcd", limit - 1000 - head.len() - 60)
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".ralph/agent")).unwrap();
    std::fs::write(memories_file(dir.path()), &near).unwrap();

    let refused = failed(&ralph(dir.path(), &["memory", "add", &"n".repeat(2000)]));
    assert!(
        refused.contains(&format!("over its {limit}-byte limit"))
            && refused.contains("ralph tools memory delete <id>"),
        "{refused}"
    );
    let size = || std::fs::metadata(memories_file(dir.path())).unwrap().len();
    assert_eq!(size(), near.len() as u64, "a refused add wrote nothing");
    ok(&ralph(dir.path(), &["memory", "add", "a short one"]));

    // Another tool took it past the limit: ralph's reads refuse it and say what to do,
    // `list` and `delete` still work, and a delete makes room again.
    let big = "mem-1795700001-abcd";
    std::fs::write(
        memories_file(dir.path()),
        format!("{near}{}", entry(big, 5000)),
    )
    .unwrap();
    let refused = failed(&ralph(dir.path(), &["memory", "show", big]));
    assert!(
        refused.contains("`ralph tools memory delete <id>` still work"),
        "{refused}"
    );
    let listed = ralph(dir.path(), &["memory", "list", "--format", "quiet"]);
    assert!(ok(&listed).contains(big));
    let warning = String::from_utf8_lossy(&listed.stderr);
    assert!(warning.contains("limit"), "{warning}");
    ok(&ralph(dir.path(), &["memory", "delete", big]));
    assert!(size() <= MAX_MEMORIES_FILE_BYTES);
    ok(&ralph(dir.path(), &["memory", "add", "room again"]));
}

/// Agents write memories and a cloned repository brings skills: what the tables show of
/// them must not act on the terminal (an escape sequence recolours it, retitles the
/// window, hides what follows). Each control character is shown as its escape, as
/// `ralph tools task list` shows it; JSON keeps the real text.
#[test]
fn control_characters_in_memories_and_skills_are_shown_as_escapes() {
    let hostile = "x \u{1} \u{1b}[31mred \u{7}\nsecond line \u{1b}]0;title\u{7}";
    let dir = tempfile::tempdir().unwrap();
    let added = ok(&ralph(
        dir.path(),
        &["memory", "add", hostile, "-t", "fix", "--format", "quiet"],
    ));
    let id = added.trim();
    let raw = |text: &str| text.contains(['\u{1}', '\u{1b}', '\u{7}']);
    let list = ok(&ralph(dir.path(), &["memory", "list"]));
    assert!(!raw(&list), "{list:?}");
    assert!(list.contains(r"x \u{1} \u{1b}[31mred \u{7}…"), "{list}");
    let shown = ok(&ralph(dir.path(), &["memory", "show", id]));
    assert!(!raw(&shown), "{shown:?}");
    assert!(
        shown.contains("\nsecond line \\u{1b}]0;title\\u{7}\n"),
        "{shown}"
    );
    let found = ok(&ralph(dir.path(), &["memory", "search", "red"]));
    assert!(!raw(&found) && found.contains(r"\u{1b}[31mred"), "{found}");
    assert_eq!(list_json(dir.path())[0]["content"], hostile);

    // A tag with a line break or an escape in it is refused, not changed into another.
    for (tags, named) in [("a,b\nc", r"`b\nc`"), ("a,\u{1b}[31m", r"`\u{1b}[31m`")] {
        let stderr = failed(&ralph(dir.path(), &["memory", "add", "y", "--tags", tags]));
        assert!(
            stderr.contains(&format!("the tag {named} holds")),
            "{stderr}"
        );
    }
    assert_eq!(list_json(dir.path()).len(), 1);

    write(
        &dir.path().join("ralph.yml"),
        "skills:\n  dirs: [.claude/skills]\n",
    );
    write(
        &dir.path().join(".claude/skills/evil.md"),
        "---\nname: evil\ndescription: \"d \\e[31mRED \\a\"\n---\nBody.\n",
    );
    let skills = ok(&ralph(dir.path(), &["skill", "list"]));
    assert!(!raw(&skills), "{skills:?}");
    assert!(skills.contains(r"d \u{1b}[31mRED \u{7}"), "{skills}");
}
