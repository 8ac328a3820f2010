//! A worktree git could not finish making (a post-checkout hook that fails) leaves
//! nothing behind, and a branch `ralph/NAME` that no loop owns is named as git's.

use std::os::unix::fs::PermissionsExt;

use super::common::code;
use super::{COMMIT_OWN_FILE, git, ralph_branches, repo, stderr, tree};

#[test]
fn a_failed_worktree_add_is_undone_and_the_name_stays_free() {
    let ws = repo(COMMIT_OWN_FILE);
    let hook = ws.path().join(".git/hooks/post-checkout");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, "#!/bin/sh\necho the hook says no >&2\nexit 1\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();

    let out = ws.run(&["run", "--worktree=one", "-q", "-p", "x"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(err.contains("the hook says no"), "{err}");
    assert!(!tree(&ws, "one").exists(), "{err}");
    assert_eq!(ralph_branches(&ws), Vec::<String>::new());
    let listed = git(ws.path(), &["worktree", "list", "--porcelain"]);
    assert_eq!(listed.matches("worktree ").count(), 1, "{listed}");

    std::fs::remove_file(&hook).unwrap();
    let out = ws.run(&["run", "--worktree=one", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
}

#[test]
fn a_ralph_branch_without_a_loop_is_refused_with_git_advice() {
    let ws = repo(COMMIT_OWN_FILE);
    git(ws.path(), &["branch", "ralph/x"]);
    let out = ws.run(&["run", "--worktree=x", "-q", "-p", "x"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(err.contains("git branch -D ralph/x"), "{err}");
    assert!(!err.contains("ralph runs rm"), "{err}");
}
