//! `ralph runs rm` without `--force` keeps work that only the worktree holds: edits to
//! the files ralph versions under `.ralph/`, and commits made on a detached HEAD.

use super::common::code;
use super::{git, repo, stderr, tree};

/// A fake agent's plan line that completes and changes nothing.
const DO_NOTHING: &str = "pi/anthropic/text.jsonl | LOOP_COMPLETE | | true\n";

#[test]
fn edits_to_versioned_files_under_dot_ralph_block_rm() {
    let ws = repo(DO_NOTHING);
    let specs = ws.path().join(".ralph/specs");
    std::fs::create_dir_all(&specs).unwrap();
    std::fs::write(specs.join("feature.md"), "spec v1\n").unwrap();
    git(ws.path(), &["add", ".ralph/specs"]);
    git(ws.path(), &["commit", "-qm", "spec"]);
    let out = ws.run(&["run", "--worktree=one", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let wt = tree(&ws, "one");

    std::fs::write(wt.join(".ralph/specs/feature.md"), "spec v2\n").unwrap();
    let out = ws.run(&["runs", "rm", "one"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("not committed"), "{}", stderr(&out));
    assert!(wt.join(".ralph/specs/feature.md").is_file());

    git(&wt, &["checkout", "--", ".ralph/specs/feature.md"]);
    std::fs::create_dir_all(wt.join(".ralph/agent")).unwrap();
    std::fs::write(wt.join(".ralph/agent/memories.md"), "- a lesson\n").unwrap();
    let out = ws.run(&["runs", "rm", "one"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(wt.join(".ralph/agent/memories.md").is_file());

    // ralph's own `.ralph/.gitignore` (untracked in the worktree) and run files are no
    // one's work: once the memory is gone, rm needs no --force.
    std::fs::remove_dir_all(wt.join(".ralph/agent")).unwrap();
    let out = ws.run(&["runs", "rm", "one"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(!wt.exists());
}

#[test]
fn commits_made_on_a_detached_head_in_the_worktree_block_rm() {
    let ws = repo(DO_NOTHING);
    let out = ws.run(&["run", "--worktree=det", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let wt = tree(&ws, "det");
    git(&wt, &["checkout", "-q", "--detach"]);
    std::fs::write(wt.join("precious.txt"), "precious\n").unwrap();
    git(&wt, &["add", "precious.txt"]);
    git(&wt, &["commit", "-qm", "precious work"]);
    let commit = git(&wt, &["rev-parse", "--short", "HEAD"]);

    let out = ws.run(&["runs", "rm", "det"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(
        err.contains(&format!("{} precious work", commit.trim())),
        "{err}"
    );
    assert!(err.contains("branch NAME HEAD"), "{err}");
    assert!(wt.join("precious.txt").is_file());

    // On a branch, the commit is kept whatever happens to the worktree.
    git(&wt, &["branch", "keep"]);
    let out = ws.run(&["runs", "rm", "det"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(!wt.exists());
}
