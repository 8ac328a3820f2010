//! `ralph runs rm` and a loop starting in the worktree it is deleting: the removal
//! holds the worktree's loop lock until the worktree is gone, so the loop is refused (the
//! refusal names the removal), and nothing runs in a directory being deleted.

use std::os::unix::fs::PermissionsExt;

use super::common::{code, wait_for_file, wait_output};
use super::{COMMIT_OWN_FILE, git, repo, stderr, tree};

#[test]
fn no_loop_starts_in_a_worktree_while_rm_deletes_it() {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=going", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    // Landed, so that the removal needs no --force and looks at the worktree first.
    let out = ws.run(&["runs", "land", "going", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let going = tree(&ws, "going");

    // git's fsmonitor hook runs under the removal's look at the worktree (`git status`):
    // the first call says the removal got that far, and keeps it there for a while.
    let reached = ws.path().join("rm-reached");
    let hook = ws.path().join("fsmonitor-hook");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\n[ -e '{0}' ] || {{ touch '{0}'; sleep 3; }}\nexit 1\n",
            reached.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    git(
        ws.path(),
        &["config", "core.fsmonitor", &hook.to_string_lossy()],
    );

    let rm = ws.start(&["runs", "rm", "going"]);
    let pid = rm.id();
    wait_for_file(&reached, "the removal's git status");
    let out = ws
        .command(&["run", "-q", "-p", "x"])
        .current_dir(&going)
        .output()
        .expect("run ralph");
    let err = stderr(&out);
    assert_eq!(
        code(out.status),
        1,
        "a loop started in a worktree being deleted: {err}"
    );
    assert!(
        err.contains(&format!(
            "`ralph runs rm` (pid {pid}) is removing this worktree"
        )),
        "{err}"
    );

    let out = wait_output(rm);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(!going.exists(), "{} is still there", going.display());
}

#[test]
fn a_worktree_git_forgot_after_a_removal_stopped_part_way_can_still_be_removed() {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=half", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let out = ws.run(&["runs", "land", "half", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let half = tree(&ws, "half");
    // What `git worktree remove` leaves when it fails part-way (a file it cannot
    // delete): the worktree's files, and git's own record of it gone.
    std::fs::remove_dir_all(ws.path().join(".git/worktrees")).unwrap();
    assert!(half.is_dir());

    let out = ws.run(&["runs", "rm", "half"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(
        err.contains("git no longer knows") && err.contains("--force"),
        "{err}"
    );
    assert!(half.is_dir(), "removed without --force");

    let out = ws.run(&["runs", "rm", "half", "--force"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(!half.exists(), "{} is still there", half.display());
    assert_eq!(super::ralph_branches(&ws), Vec::<String>::new());
    assert!(super::worktrees(&ws).is_empty());
}
