//! A loop started in a directory of a worktree loop's worktree (one with its own
//! ralph.yml) has its own workspace and its own loop lock. `ralph runs land` and `ralph
//! runs rm` look for those too: neither rebases nor deletes the files under it while it
//! runs.

use std::process::Stdio;

use super::common::{code, wait_for_file};
use super::{CONFIG, git, repo_with_a_hanging_second_loop, stderr, tree};

#[test]
fn land_and_rm_refuse_while_a_loop_runs_in_a_directory_of_the_worktree() {
    // The second agent (the loop in sub/) says it runs in a file outside the worktree (a
    // file in it would be a change that refuses the landing by itself), then hangs.
    let (ws, started) = repo_with_a_hanging_second_loop("sub-started");
    let out = ws.run(&["run", "--worktree=outer", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let outer = tree(&ws, "outer");
    // A project of its own in the worktree, committed: the worktree is clean.
    let sub = outer.join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("ralph.yml"), CONFIG).unwrap();
    git(&outer, &["add", "sub/ralph.yml"]);
    git(&outer, &["commit", "-qm", "sub project"]);

    let child = ws
        .command(&["run", "-q", "-p", "x"])
        .current_dir(&sub)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ralph");
    wait_for_file(&started, "the loop in sub/");

    let out = ws.run(&["runs", "land", "outer", "--check", "true"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "landed under a running loop: {err}");
    assert!(
        err.contains("sub`") && err.contains("is running") && err.contains("stop it first"),
        "{err}"
    );
    // Running: refused even with --force.
    let out = ws.run(&["runs", "rm", "outer", "--force"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "removed under a running loop: {err}");
    assert!(
        err.contains("sub`") && err.contains("is running") && err.contains("stop it first"),
        "{err}"
    );
    assert!(sub.join("ralph.yml").is_file(), "the worktree was deleted");

    let out = ws.stop(child, nix::sys::signal::Signal::SIGINT);
    assert_eq!(code(out.status), 130, "{}", stderr(&out));
    let out = ws.run(&["runs", "rm", "outer", "--force"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(!outer.exists(), "{} is still there", outer.display());
}
