//! A repository whose path holds a newline: git's answers naming paths are read
//! exactly (`-z`, or the one path an answer holds), not up to the first newline.

use super::common::code;
use super::{COMMIT_OWN_FILE, CONFIG, git, repo_in, row, stderr, tree, worktrees};

#[test]
fn a_repository_under_a_path_with_a_newline_runs_lands_and_removes_loops() {
    let parent = tempfile::tempdir().unwrap();
    let odd = parent.path().join("two\nlines");
    std::fs::create_dir(&odd).unwrap();
    let ws = repo_in(&odd, CONFIG, COMMIT_OWN_FILE);

    let out = ws.run(&["run", "--worktree=one", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(tree(&ws, "one").join("f-one.txt").is_file());
    // Nothing was made beside the repository, where a path cut at the newline leads.
    assert_eq!(std::fs::read_dir(parent.path()).unwrap().count(), 1);
    let rows = worktrees(&ws);
    assert_eq!(row(&rows, "one")["path"], ".ralph/worktrees/one");

    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let files = git(ws.path(), &["ls-tree", "--name-only", "main"]);
    assert!(files.contains("f-one.txt"), "{files}");
    let out = ws.run(&["runs", "rm", "one"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(!tree(&ws, "one").exists());
}
