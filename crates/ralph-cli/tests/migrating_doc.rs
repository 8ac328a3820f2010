//! docs/migrating.md stays true: every ralph-orchestrator command line its table says is
//! not here is refused with its row's replacement, every `ralph` command it offers instead
//! exists, the hook it gives to commit on completion commits, and the numbers it gives are
//! ralph's.

mod common;

use common::{Workspace, code, git};
use ralph_core::config::{DEFAULT_MEMORY_BUDGET, MEMORY_BUDGET_CAP};

const DOC: &str = include_str!("../../../docs/migrating.md");

include!("common/migrating_table.rs");

/// The `code` spans of a cell.
fn spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

#[test]
fn every_incumbent_command_line_in_the_table_is_refused_with_its_rows_replacement() {
    let ws = Workspace::new("cli:\n  backend: pi\n", "");
    let rows = migrating_rows();
    assert!(rows.len() >= 10, "{rows:?}");
    for (incumbent, ours) in rows {
        // The first span is a command line (`ralph` may be left out); each later one is
        // a whole line too when it starts with `ralph`, else words for the first's command.
        let replacements = spans(ours);
        let spans = spans(incumbent);
        let mut base: Vec<&str> = spans[0].split_whitespace().collect();
        if base[0] != "ralph" {
            base.insert(0, "ralph");
        }
        for (i, span) in spans.iter().enumerate() {
            let mut words: Vec<&str> = if i == 0 {
                base.clone()
            } else if span.starts_with("ralph ") {
                span.split_whitespace().collect()
            } else {
                let mut line = base[..2].to_vec();
                line.extend(span.split_whitespace());
                line
            };
            // A placeholder (`ID`, `SECS`) stands for a value.
            for w in &mut words {
                if w.chars().all(|c| c.is_ascii_uppercase()) {
                    *w = "x";
                }
            }
            let out = ws.run(&words[1..]);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(code(out.status), 1, "`{}` ran: {err}", words.join(" "));
            assert!(
                err.contains("unexpected argument") || err.contains("unrecognized subcommand"),
                "`{}` was refused for another reason: {err}",
                words.join(" ")
            );
            // The tip is the row's: it names everything the "in ralph" cell quotes, and
            // clap's guess at a similar command or flag is gone.
            let line = words.join(" ");
            assert!(
                err.contains("is ralph-orchestrator's; in ralph:")
                    && err.contains("docs/migrating.md"),
                "`{line}` got no hint: {err}"
            );
            for replacement in &replacements {
                assert!(
                    err.contains(replacement),
                    "`{line}`: no `{replacement}` in {err}"
                );
            }
            assert!(!err.contains("similar"), "`{line}`: {err}");
        }
    }
}

#[test]
fn a_bare_ralph_prints_the_help_and_points_at_ralph_run() {
    let ws = Workspace::new("", "");
    let out = ws.run(&[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(err.contains("Commands:"), "{err}");
    assert!(
        err.trim_end().ends_with(
            "To start a loop: `ralph run` (a bare `ralph` no longer starts one; see \
             docs/migrating.md)"
        ),
        "{err}"
    );
}

#[test]
fn every_ralph_command_offered_instead_exists() {
    let ws = Workspace::new("", "");
    for (_, ours) in migrating_rows() {
        for span in spans(ours).into_iter().filter(|s| s.starts_with("ralph ")) {
            let words: Vec<&str> = span
                .split_whitespace()
                .skip(1)
                .take_while(|w| !w.starts_with('-') && !w.starts_with('['))
                .filter(|w| !w.chars().all(|c| c.is_ascii_uppercase()))
                .collect();
            let mut args = words.clone();
            args.push("--help");
            let out = ws.run(&args);
            assert_eq!(code(out.status), 0, "`{span}`");
            for flag in span.split_whitespace().filter(|w| w.starts_with("--")) {
                let help = String::from_utf8_lossy(&out.stdout);
                assert!(help.contains(flag), "`{span}`: no {flag} in its --help");
            }
        }
    }
}

/// The YAML block of the doc that holds `needle`.
fn yaml_block(needle: &str) -> &'static str {
    DOC.split("```yaml\n")
        .skip(1)
        .map(|rest| rest.split_once("```").expect("a closed block").0)
        .find(|block| block.contains(needle))
        .expect("the block")
}

#[test]
fn the_hook_that_commits_on_completion_commits_the_agents_work() {
    let hook = yaml_block("post.loop.complete");
    let ws = Workspace::new(
        &format!("cli:\n  backend: pi\n{hook}"),
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let dir = ws.path();
    git(dir, &["init", "-q"]);
    git(dir, &["config", "user.name", "t"]);
    git(dir, &["config", "user.email", "t@t.invalid"]);
    git(dir, &["commit", "-q", "--allow-empty", "-m", "init"]);
    // What the agent would have written.
    std::fs::write(dir.join("out.txt"), "done\n").unwrap();
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 0, "{stderr}");
    let run_id = events[0]["run_id"].as_str().expect("run id").to_owned();
    assert_eq!(
        git(dir, &["log", "-1", "--format=%s"]),
        format!("ralph run {run_id}")
    );
    let committed = git(dir, &["show", "--name-only", "--format=", "HEAD"]);
    assert!(committed.lines().any(|f| f == "out.txt"), "{committed}");
    assert!(!committed.contains(".ralph/runs/"), "{committed}");
    assert!(
        dir.join(format!(".ralph/runs/{run_id}/summary.md"))
            .is_file()
    );
}

#[test]
fn the_memory_budget_numbers_are_ralphs() {
    assert!(
        DOC.contains(&format!("default is {DEFAULT_MEMORY_BUDGET} tokens")),
        "docs/migrating.md"
    );
    assert!(
        DOC.contains(&format!("`budget: 0` means {MEMORY_BUDGET_CAP} tokens")),
        "docs/migrating.md"
    );
}
