//! What a worktree loop's row says of its cost when its agent reported none.

use super::common::code;
use super::{git, repo_with, row, stderr, tree, worktrees};

/// A `custom` agent that says nothing of its cost, and the loop completes at once.
const UNPRICED: &str = "cli:\n  backend: custom\n  command: sh\n  \
    args: [\"-c\", \"cat >/dev/null; echo LOOP_COMPLETE\"]\n\
    event_loop:\n  max_iterations: 2\n";

#[test]
fn a_loop_whose_agent_reported_no_cost_shows_it_unknown_not_free() {
    let ws = repo_with(UNPRICED, "");
    let out = ws.run(&["run", "--worktree=free", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let rows = worktrees(&ws);
    let r = row(&rows, "free");
    assert_eq!(
        (
            r["iterations"].as_u64(),
            &r["cost_usd"],
            r["cost_complete"].as_bool()
        ),
        (Some(1), &serde_json::Value::Null, Some(false)),
        "{r}"
    );
    let table = String::from_utf8(ws.run(&["runs"]).stdout).expect("utf-8");
    let line = table
        .lines()
        .find(|l| l.starts_with("free "))
        .unwrap_or_else(|| panic!("no row for the loop in:\n{table}"));
    assert!(line.contains(" unknown "), "{line}");
    assert!(!line.contains('$'), "{line}");
}

#[test]
fn a_loop_whose_run_files_are_gone_shows_its_cost_unknown_not_free() {
    let ws = repo_with(UNPRICED, "");
    for name in ["cleaned", "deleted"] {
        let out = ws.run(&["run", &format!("--worktree={name}"), "-q", "-p", "x"]);
        assert_eq!(code(out.status), 0, "{}", stderr(&out));
    }
    git(&tree(&ws, "cleaned"), &["clean", "-fdxq"]);
    std::fs::remove_dir_all(tree(&ws, "deleted")).unwrap();
    let rows = worktrees(&ws);
    for name in ["cleaned", "deleted"] {
        let r = row(&rows, name);
        assert_eq!(
            (&r["cost_usd"], r["cost_complete"].as_bool()),
            (&serde_json::Value::Null, Some(false)),
            "{r}"
        );
    }
    let table = String::from_utf8(ws.run(&["runs"]).stdout).expect("utf-8");
    for name in ["cleaned ", "deleted "] {
        let line = table.lines().find(|l| l.starts_with(name)).unwrap();
        assert!(line.contains(" unknown ") && !line.contains('$'), "{line}");
    }
}
