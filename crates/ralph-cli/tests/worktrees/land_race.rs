//! `ralph runs land` and a loop starting in the worktree it is landing: the landing
//! holds the worktree's loop lock to its end, so a loop started during its check is
//! refused as it would be beside a running one, and never works on a branch being
//! rebased and fast-forwarded under it. Both it and `ralph runs` say a landing holds the
//! worktree, not a loop. So is a loop started in a directory of the worktree where no
//! loop ran before (which has no lock of its own for the landing to hold).

use std::path::PathBuf;
use std::process::Child;

use serde_json::json;

use super::common::{Workspace, code, wait_for_file, wait_output};
use super::signals::install_hook;
use super::{COMMIT_OWN_FILE, CONFIG, git, repo, row, stderr, tree, worktrees};

/// How many tenths of a second the check waits to be let go before it gives up (the
/// test lets it go at once after its own look; this only bounds a failed test).
const CHECK_PATIENCE_TENTHS: u32 = 300;

#[test]
fn no_loop_starts_in_a_worktree_while_it_is_landed() {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=busy", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let busy = tree(&ws, "busy");

    let (land, release) = landing_in_its_check(&ws, "busy");
    let pid = land.id();
    let out = ws
        .command(&["run", "-q", "-p", "x"])
        .current_dir(&busy)
        .output()
        .expect("run ralph");
    // Seen meanwhile: a landing, not a loop running; its process is the landing's.
    let rows = worktrees(&ws);
    let table = String::from_utf8(ws.run(&["runs"]).stdout).unwrap();
    let removal = ws.run(&["runs", "rm", "busy", "--force"]);
    std::fs::write(&release, "").unwrap();
    let err = stderr(&out);
    assert_eq!(
        code(out.status),
        1,
        "a loop started in a worktree being landed: {err}"
    );
    // The refusal names the landing, not "another ralph loop".
    assert!(
        err.contains(&format!(
            "`ralph runs land` (pid {pid}) is landing this worktree"
        )),
        "{err}"
    );
    let seen = row(&rows, "busy");
    assert_eq!(
        (&seen["status"], &seen["alive"], &seen["pid"]),
        (&json!("landing"), &json!(false), &json!(pid)),
        "{seen}"
    );
    // The table says what holds the worktree too: the landing's process, not "no".
    let line = (table.lines())
        .find(|l| l.starts_with("busy "))
        .unwrap_or_else(|| panic!("no row for busy in {table}"));
    assert!(table.contains("HELD BY"), "{table}");
    assert!(
        line.contains(" landing ") && line.contains(&format!(":{pid} ")),
        "{table}"
    );
    let err = stderr(&removal);
    assert_eq!(code(removal.status), 1, "removed while landed: {err}");
    assert!(
        err.contains(&format!("`ralph runs land` (pid {pid}) is landing")),
        "{err}"
    );

    let out = wait_output(land);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
}

/// `ralph runs land NAME`, started and come to its check, which waits until the file
/// returned is made.
pub(super) fn landing_in_its_check(ws: &Workspace, name: &str) -> (Child, PathBuf) {
    let reached = ws.path().join("check-reached");
    let release = ws.path().join("check-release");
    let check = format!(
        "touch '{}'; i=0; while [ ! -e '{}' ] && [ $i -lt {CHECK_PATIENCE_TENTHS} ]; do \
         sleep 0.1; i=$((i+1)); done",
        reached.display(),
        release.display()
    );
    let land = ws.start(&["runs", "land", name, "--check", &check]);
    wait_for_file(&reached, "the landing's check");
    (land, release)
}

#[test]
fn no_loop_starts_in_a_directory_of_a_landed_worktree_where_none_ran_before() {
    // The second agent would be the loop in sub/, which must never run.
    let ws = repo(&format!(
        "{COMMIT_OWN_FILE}pi/anthropic/text.jsonl | LOOP_COMPLETE |\n"
    ));
    let out = ws.run(&["run", "--worktree=busy", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let busy = tree(&ws, "busy");
    // A project of its own in the worktree, committed, where no loop has run: no `.ralph/`.
    let sub = busy.join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("ralph.yml"), CONFIG).unwrap();
    git(&busy, &["add", "sub/ralph.yml"]);
    git(&busy, &["commit", "-qm", "sub project"]);

    let (land, release) = landing_in_its_check(&ws, "busy");
    let pid = land.id();
    let out = ws
        .command(&["run", "-q", "-p", "x"])
        .current_dir(&sub)
        .output()
        .expect("run ralph");
    let made = sub.join(".ralph").exists();
    std::fs::write(&release, "").unwrap();
    let err = stderr(&out);
    assert_eq!(
        code(out.status),
        1,
        "a loop started in a directory of a worktree being landed: {err}"
    );
    assert!(
        err.contains(&format!(
            "`ralph runs land` (pid {pid}) is landing this worktree"
        )),
        "{err}"
    );
    assert!(!made, "the refused loop left a .ralph/ in the landed tree");

    let out = wait_output(land);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    // Once landed, a loop starts there.
    let out = ws
        .command(&["run", "-q", "-p", "x"])
        .current_dir(&sub)
        .output()
        .expect("run ralph");
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
}

/// A loop started in the main checkout while the landing fast-forwards main there: it is
/// the branch checked out there that moves, not that checkout that is landed, and the
/// refusal says so.
#[test]
fn a_loop_refused_where_the_base_moves_is_told_the_base_is_moving_there() {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=one", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    // git runs post-merge after moving main in its checkout, while the landing still
    // holds that checkout's locks: the hook waits there for the test.
    let reached = ws.path().join("hook-reached");
    let release = ws.path().join("hook-release");
    install_hook(
        &ws,
        "post-merge",
        &format!(
            "touch '{}'; i=0; while [ ! -e '{}' ] && [ $i -lt {CHECK_PATIENCE_TENTHS} ]; do \
             sleep 0.1; i=$((i+1)); done",
            reached.display(),
            release.display()
        ),
    );
    let land = ws.start(&["runs", "land", "one", "--check", "true"]);
    let pid = land.id();
    wait_for_file(&reached, "the landing's post-merge hook");
    let out = ws.run(&["run", "-q", "-p", "x"]);
    std::fs::write(&release, "").unwrap();
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(
        err.contains(&format!(
            "`ralph runs land` (pid {pid}) is fast-forwarding the branch checked out here \
             to the worktree loop it lands"
        )),
        "{err}"
    );
    assert!(!err.contains("landing this worktree"), "{err}");

    let out = wait_output(land);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(ws.path().join("f-one.txt").is_file());
}
