//! Commands typed inside a worktree loop's own checkout, where an agent of the loop (or
//! a user who went there to look) types them, or in a subdirectory of the main one.

use std::path::Path;

use serde_json::Value;

use super::common::{Workspace, code};
use super::{COMMIT_OWN_FILE, ralph_branches, repo, row, stderr, tree, worktrees};

/// `ralph <args>` typed in `dir`.
fn run_in(ws: &Workspace, dir: &Path, args: &[&str]) -> std::process::Output {
    ws.command(args).current_dir(dir).output().expect("ralph")
}

/// The worktree rows of `ralph runs --format json` typed in `dir`.
fn worktrees_from(ws: &Workspace, dir: &Path) -> Vec<Value> {
    let out = run_in(ws, dir, &["runs", "--format", "json"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .filter(|r| r.get("worktree").is_some())
        .collect()
}

#[test]
fn runs_typed_at_the_top_of_a_loops_checkout_shows_its_path_as_a_dot() {
    let ws = repo(COMMIT_OWN_FILE);
    for name in ["here", "there"] {
        let out = ws.run(&["run", &format!("--worktree={name}"), "-q", "-p", "x"]);
        assert_eq!(code(out.status), 0, "{}", stderr(&out));
    }
    let rows = worktrees_from(&ws, &tree(&ws, "here"));
    let paths = (&row(&rows, "here")["path"], &row(&rows, "there")["path"]);
    let there = tree(&ws, "there").display().to_string();
    assert_eq!(paths, (&Value::from("."), &Value::from(there)));
    let table = run_in(&ws, &tree(&ws, "here"), &["runs"]);
    let table = String::from_utf8(table.stdout).expect("utf-8");
    let line = table
        .lines()
        .find(|l| l.starts_with("here "))
        .expect("a row");
    assert!(line.ends_with(" ."), "{table}");
}

#[test]
fn runs_typed_in_a_subdirectory_shows_paths_that_name_the_worktrees_from_there() {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=alpha", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let alpha = tree(&ws, "alpha").display().to_string();
    // At the top the worktree lies below: relative. In a subdirectory it does not:
    // absolute, since `.ralph/worktrees/alpha` would name nothing from there.
    let rows = worktrees_from(&ws, ws.path());
    assert_eq!(row(&rows, "alpha")["path"], ".ralph/worktrees/alpha");
    let sub = ws.path().join("tasks");
    std::fs::create_dir_all(&sub).unwrap();
    let rows = worktrees_from(&ws, &sub);
    assert_eq!(row(&rows, "alpha")["path"], Value::from(alpha.clone()));
    let table = run_in(&ws, &sub, &["runs"]);
    let table = String::from_utf8(table.stdout).expect("utf-8");
    let line = table
        .lines()
        .find(|l| l.starts_with("alpha "))
        .expect("a row");
    assert!(line.ends_with(&format!(" {alpha}")), "{table}");
}

#[test]
fn rm_typed_inside_the_worktree_it_removes_is_refused_and_nothing_goes() {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=x", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let deep = tree(&ws, "x").join("src/deep");
    std::fs::create_dir_all(&deep).unwrap();
    for dir in [tree(&ws, "x"), deep] {
        for args in [
            &["runs", "rm", "x"][..],
            &["runs", "rm", "x", "--force"][..],
        ] {
            let out = run_in(&ws, &dir, args);
            assert_eq!(code(out.status), 1, "{args:?} in {}", dir.display());
            let err = stderr(&out);
            assert!(err.contains("cd out of it first"), "{err}");
            assert!(
                err.contains(&format!("`cd {}`", ws.path().display())),
                "{err}"
            );
            // All or nothing: the worktree, its branch and its record are all there.
            assert!(tree(&ws, "x").join("f-x.txt").is_file());
            assert_eq!(ralph_branches(&ws), ["ralph/x"]);
            assert_eq!(row(&worktrees(&ws), "x")["status"], "completed");
        }
    }
    let out = ws.run(&["runs", "rm", "x", "--force"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(!tree(&ws, "x").exists());
    assert_eq!(ralph_branches(&ws), Vec::<String>::new());
}

/// A loop inside another's checkout would be deleted when that one is removed: it is
/// made beside it, from the commit checked out where it was typed.
#[test]
fn a_loop_typed_inside_another_loops_checkout_is_made_beside_it() {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=outer", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let outer = tree(&ws, "outer");
    let out = run_in(&ws, &outer, &["run", "--worktree=inner", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains(", in ../inner\n"), "{}", stderr(&out));
    assert!(!outer.join(".ralph/worktrees").exists());
    // Started from outer's branch (the agent's commit there is in it), landing there.
    assert!(tree(&ws, "inner").join("f-outer.txt").is_file());
    assert!(tree(&ws, "inner").join("f-inner.txt").is_file());
    let r = row(&worktrees(&ws), "inner").clone();
    assert_eq!(
        (&r["base"], &r["ahead"]),
        (&Value::from("ralph/outer"), &Value::from(1))
    );
    // Typed in a loop an earlier ralph nested in outer: at the top too.
    let old = super::nested::nest(&ws, "outer", "old");
    let out = run_in(&ws, &old, &["run", "--worktree=third", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(tree(&ws, "third").join("f-third.txt").is_file());
    assert!(!old.join(".ralph/worktrees").exists());

    // Removing outer takes only what is inside it (`old`).
    let out = ws.run(&["runs", "rm", "outer", "--force"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let mut branches = ralph_branches(&ws);
    branches.sort();
    assert_eq!(branches, ["ralph/inner", "ralph/third"]);
    assert!(tree(&ws, "inner").join("f-inner.txt").is_file());
}
