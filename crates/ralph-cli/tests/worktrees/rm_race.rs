//! `ralph runs rm` and a loop starting in the worktree it is deleting: the removal
//! holds the worktree's loop lock until the worktree is gone, so the loop is refused as
//! it would be beside a running one, and nothing runs in a directory being deleted.

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
    assert!(err.contains("already running"), "{err}");

    let out = wait_output(rm);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(!going.exists(), "{} is still there", going.display());
}
