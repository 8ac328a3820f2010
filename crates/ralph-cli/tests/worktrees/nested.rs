//! Worktrees nested in a worktree loop's checkout, which `ralph runs rm` of that loop
//! would delete with it: a loop made inside it by an earlier ralph (typed in its
//! checkout), or a worktree added there by hand. Each is held to the rules of the loop
//! removed: never while its loop runs, never its unsaved work without `--force`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::common::{RUN_TIMEOUT, Workspace, code};
use super::{COMMIT_OWN_FILE, git, ralph_branches, repo, stderr, tree, worktrees};

/// Makes worktree loop `name` nested in `outer`'s checkout, as an earlier ralph did for
/// `ralph run --worktree=NAME` typed there: its worktree in outer's own
/// `.ralph/worktrees/`, on `ralph/NAME` from outer's branch, and its record beside the
/// others in git's directory. Returns its directory.
pub(super) fn nest(ws: &Workspace, outer: &str, name: &str) -> PathBuf {
    let path = tree(ws, outer).join(".ralph/worktrees").join(name);
    let (branch, base) = (format!("ralph/{name}"), format!("ralph/{outer}"));
    let spelled = path.to_str().expect("UTF-8");
    git(
        ws.path(),
        &["worktree", "add", "-q", "-b", &branch, spelled, &base],
    );
    let record = json!({
        "format": 1,
        "name": name,
        "path": spelled,
        "branch": branch,
        "base_ref": format!("refs/heads/{base}"),
        "base_commit": git(ws.path(), &["rev-parse", &base]).trim(),
        "created_at_ms": 0,
    });
    let records = ws.path().join(".git/ralph/worktrees");
    std::fs::write(records.join(format!("{name}.json")), record.to_string()).expect("record");
    path
}

fn wait_for_file(path: &Path) {
    let deadline = Instant::now() + RUN_TIMEOUT;
    while !path.is_file() {
        assert!(Instant::now() < deadline, "{} never came", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A completed loop `outer` whose work has landed: removing it alone loses nothing.
fn landed_outer(ws: &Workspace) {
    let out = ws.run(&["run", "--worktree=outer", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let out = ws.run(&["runs", "land", "outer", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
}

/// `ralph runs rm outer <flags>`, which must be refused with a message containing each
/// of `says`, leaving the nested loop's file `kept` in place.
fn refused(ws: &Workspace, flags: &[&str], says: &[&str], kept: &Path) {
    let mut args = vec!["runs", "rm", "outer"];
    args.extend_from_slice(flags);
    let out = ws.run(&args);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{args:?}: {err}");
    for said in says {
        assert!(err.contains(said), "{args:?}: `{said}` not in {err}");
    }
    assert!(kept.is_file(), "{args:?} deleted {}", kept.display());
}

#[test]
fn rm_keeps_a_loop_nested_in_the_worktree_while_it_runs_or_holds_work() {
    let ws = repo(&format!(
        "{COMMIT_OWN_FILE}- | | hang=60 | echo unsaved > work.txt\n"
    ));
    landed_outer(&ws);
    let inner = nest(&ws, "outer", "inner");
    let work = inner.join("work.txt");
    let child = ws
        .command(&["run", "-q", "-p", "x"])
        .current_dir(&inner)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ralph");
    wait_for_file(&work);
    // Running: refused even with --force, as for the loop named.
    for flags in [&[][..], &["--force"][..]] {
        refused(
            &ws,
            flags,
            &["`inner`", "is running", "stop it first"],
            &work,
        );
    }
    let out = ws.stop(child, nix::sys::signal::Signal::SIGINT);
    assert_eq!(code(out.status), 130, "{}", stderr(&out));
    refused(&ws, &[], &["`inner`", "not committed"], &work);
    git(&inner, &["add", "work.txt"]);
    git(&inner, &["commit", "-qm", "inner's work"]);
    let commits = "ralph/inner has 1 commit(s) that ralph/outer does not";
    refused(&ws, &[], &[commits, "ralph runs land inner"], &work);

    // --force deletes it, and all of it: worktree, branch and record, nothing for git to
    // prune, and `ralph runs` has no row left for a loop that is gone.
    let out = ws.run(&["runs", "rm", "outer", "--force"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        said.contains("removed worktree loop `inner`") && said.contains("loop `outer`"),
        "{said}"
    );
    assert!(!tree(&ws, "outer").exists());
    assert_eq!(ralph_branches(&ws), Vec::<String>::new());
    assert_eq!(worktrees(&ws), Vec::<Value>::new());
    let listed = git(ws.path(), &["worktree", "list", "--porcelain"]);
    assert_eq!(listed.matches("worktree ").count(), 1, "{listed}");
}

#[test]
fn rm_keeps_changes_in_a_worktree_added_by_hand_inside_and_leaves_its_branch() {
    let ws = repo(COMMIT_OWN_FILE);
    landed_outer(&ws);
    // Under its `.ralph/`: git sees it as an untracked directory of outer, which is
    // not outer's change: it is judged on its own.
    let hand = tree(&ws, "outer").join(".ralph/by-hand");
    let spelled = hand.to_str().expect("UTF-8");
    git(
        ws.path(),
        &["worktree", "add", "-q", "-b", "by-hand", spelled],
    );
    let notes = hand.join("notes.txt");
    std::fs::write(&notes, "mine").unwrap();
    refused(&ws, &[], &["the git worktree", "not committed"], &notes);
    let out = ws.run(&["runs", "rm", "outer", "--force"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(!tree(&ws, "outer").exists());
    // Not ralph's branch: its commits stay.
    let branches = git(ws.path(), &["branch", "--format=%(refname:short)"]);
    assert!(branches.lines().any(|b| b == "by-hand"), "{branches}");
    let listed = git(ws.path(), &["worktree", "list", "--porcelain"]);
    assert_eq!(listed.matches("worktree ").count(), 1, "{listed}");
}
