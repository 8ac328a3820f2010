use std::process::Command;

use super::*;

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t.invalid"])
        .args(args)
        .current_dir(dir)
        .status()
        .expect("git");
    assert!(status.success(), "git {args:?}");
}

fn head(dir: &Path) -> Option<GitHead> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(git_head(dir))
        .expect("git answers")
}

#[test]
fn outside_a_repository_there_is_no_head() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert_eq!(head(dir.path()), None);
}

#[test]
fn a_repository_names_its_branch_and_commit_and_a_new_one_its_branch_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    git(dir.path(), &["init", "-q", "-b", "ralph/task-1"]);
    assert_eq!(
        head(dir.path()),
        Some(GitHead {
            branch: Some("ralph/task-1".to_owned()),
            commit: None
        })
    );
    git(dir.path(), &["commit", "-q", "--allow-empty", "-m", "one"]);
    let at = head(dir.path()).expect("a head");
    assert_eq!(at.branch.as_deref(), Some("ralph/task-1"));
    let commit = at.commit.expect("a commit");
    assert_eq!(commit.len(), 40, "{commit}");
    git(dir.path(), &["checkout", "-q", "--detach"]);
    let detached = head(dir.path()).expect("a head");
    assert_eq!((detached.branch, detached.commit), (None, Some(commit)));
}
