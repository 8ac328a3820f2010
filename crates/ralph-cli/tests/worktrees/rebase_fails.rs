//! `ralph runs land` when `git rebase` fails on something else than a conflict: git's
//! own words are shown, and the loop is not called one that needs a rebase.

use std::os::unix::fs::PermissionsExt;

use super::common::code;
use super::{row, stderr, worktrees};

#[test]
fn a_rebase_refused_by_a_hook_says_why_and_needs_no_rebase() {
    let ws = super::base_busy::completed_then_main_moved();
    let hook = ws.path().join(".git/hooks/pre-rebase");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, "#!/bin/sh\necho no rebases on fridays >&2\nexit 1\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();

    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(err.contains("no rebases on fridays"), "{err}");
    assert!(!err.contains("no rebase in progress"), "{err}");
    assert!(!err.contains("does not rebase cleanly"), "{err}");
    assert_eq!(row(&worktrees(&ws), "one")["status"], "completed");

    std::fs::remove_file(&hook).unwrap();
    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
}
