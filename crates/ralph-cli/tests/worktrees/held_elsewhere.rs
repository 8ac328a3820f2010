//! A worktree loop whose lock is held from another machine (the repository on a volume
//! two hosts share): `ralph runs` names that machine, not its own, and no pid (a pid
//! from there means nothing here).

use std::io::Write;

use nix::fcntl::{Flock, FlockArg};
use serde_json::json;

use super::common::code;
use super::{COMMIT_OWN_FILE, repo, row, stderr, tree, worktrees};

#[test]
fn a_worktree_held_from_another_host_is_shown_with_that_host() {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=shared", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    // Held as a loop on the other machine holds it: locked, with its pid and host.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(tree(&ws, "shared").join(".ralph/loop.lock"))
        .unwrap();
    let mut held = Flock::lock(file, FlockArg::LockExclusiveNonblock).unwrap();
    held.set_len(0).unwrap();
    held.write_all(b"4242 elsewhere-host\n").unwrap();

    let seen = row(&worktrees(&ws), "shared").clone();
    assert_eq!(
        (&seen["status"], &seen["host"], &seen["pid"]),
        (&json!("running"), &json!("elsewhere-host"), &json!(null)),
        "{seen}"
    );
    let table = String::from_utf8(ws.run(&["runs"]).stdout).unwrap();
    assert!(table.contains(" elsewhere-host:? "), "{table}");
    drop(held);
}
