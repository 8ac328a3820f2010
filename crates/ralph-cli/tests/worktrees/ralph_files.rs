//! What ralph itself leaves in a worktree loop's checkout is nobody's work: its rewrite
//! of an older `.ralph/.gitignore` the repository committed, and the empty lock files
//! beside the agent's memories and tasks, neither block `ralph runs land` nor
//! `ralph runs rm`. Real changes still do, and the refusal names them.

use std::path::Path;

use super::common::{Workspace, code};
use super::{git, repo, stderr, tree};

/// A fake agent's plan line that stores a memory and a task done (ralph takes their
/// lock files), commits them with a file of its own, and completes.
const REMEMBER_AND_COMMIT: &str = "pi/anthropic/text.jsonl | LOOP_COMPLETE | | \
    ralph tools memory add 'use tabs' && ralph tools task ensure 'a task' --key t && ralph tools task close t && \
    echo hello > hello.txt && \
    git add hello.txt .ralph/agent/memories.md .ralph/agent/tasks.jsonl && \
    git commit -qm work\n";

/// The `.ralph/.gitignore` of an older ralph: a start of today's list.
const OLDER_GITIGNORE: &str = "# ralph's run files (the scratchpad and specs stay versioned)\n\
    loop.lock\ncurrent-run\nruns/\nworktrees/\n";

/// A repository that committed `gitignore` as its `.ralph/.gitignore`.
fn committing(gitignore: &str) -> Workspace {
    let ws = repo(REMEMBER_AND_COMMIT);
    std::fs::create_dir_all(ws.path().join(".ralph")).unwrap();
    std::fs::write(ws.path().join(".ralph/.gitignore"), gitignore).unwrap();
    git(ws.path(), &["add", ".ralph/.gitignore"]);
    git(ws.path(), &["commit", "-qm", "ralph's ignores"]);
    ws
}

fn run_loop(ws: &Workspace, name: &str) -> std::path::PathBuf {
    let out = ws.run(&["run", &format!("--worktree={name}"), "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    tree(ws, name)
}

fn status(dir: &Path) -> String {
    git(dir, &["status", "--porcelain", "--untracked-files=all"])
}

#[test]
fn ralph_s_rewrite_of_an_older_gitignore_blocks_neither_land_nor_rm() {
    let ws = committing(OLDER_GITIGNORE);
    let wt = run_loop(&ws, "one");
    // ralph wrote its longer list over the committed one.
    assert_eq!(status(&wt), " M .ralph/.gitignore\n");

    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(ws.path().join("hello.txt").is_file());
    // ralph's list is back in the worktree once the branch is rebased.
    let now = std::fs::read_to_string(wt.join(".ralph/.gitignore")).unwrap();
    assert!(now.starts_with(OLDER_GITIGNORE) && now.len() > OLDER_GITIGNORE.len());

    let out = ws.run(&["runs", "rm", "one"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(!wt.exists());
}

#[test]
fn a_change_of_one_s_own_to_the_gitignore_blocks_land_and_is_named() {
    let ws = committing(OLDER_GITIGNORE);
    let wt = run_loop(&ws, "one");
    let mut own = std::fs::read_to_string(wt.join(".ralph/.gitignore")).unwrap();
    own.push_str("*.local\n");
    std::fs::write(wt.join(".ralph/.gitignore"), own).unwrap();

    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(
        err.contains("uncommitted changes (`.ralph/.gitignore`)"),
        "{err}"
    );
    assert!(!ws.path().join("hello.txt").exists());
}

#[test]
fn the_agent_s_lock_files_do_not_block_rm_after_landing() {
    // A `.ralph/.gitignore` of the user's own, which ralph leaves as it is: the lock
    // files stay untracked, and not ignored.
    let ws = committing("# mine\nruns/\nloop.lock\ncurrent-run\nworktrees/\ngates/\n");
    let wt = run_loop(&ws, "one");
    let listed = status(&wt);
    assert!(
        listed.contains("?? .ralph/agent/memories.md.lock"),
        "{listed}"
    );
    assert!(
        listed.contains("?? .ralph/agent/tasks.jsonl.lock"),
        "{listed}"
    );

    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let out = ws.run(&["runs", "rm", "one"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(!wt.exists());
}

#[test]
fn rm_names_the_first_files_not_committed_and_counts_the_rest() {
    let ws = committing(OLDER_GITIGNORE);
    let wt = run_loop(&ws, "one");
    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    for name in ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"] {
        std::fs::write(wt.join(name), "draft\n").unwrap();
    }

    let out = ws.run(&["runs", "rm", "one"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(
        err.contains("not committed (`a.txt`, `b.txt`, `c.txt` and 2 more)"),
        "{err}"
    );
    assert!(wt.join("a.txt").is_file());
}

#[test]
fn a_temporary_file_left_by_a_killed_write_does_not_block_rm_but_a_user_s_file_does() {
    let ws = committing(OLDER_GITIGNORE);
    let wt = run_loop(&ws, "one");
    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    // What `ralph tools memory add` leaves when it is killed between its write and its
    // rename: a hidden temporary file beside the memories.
    std::fs::write(
        wt.join(".ralph/agent/.tmp-0123456789abcdef"),
        "# Memories\n",
    )
    .unwrap();
    // A file of the user's own there, named alike, is still the user's.
    std::fs::write(wt.join(".ralph/agent/.tmp-notes"), "mine\n").unwrap();
    let out = ws.run(&["runs", "rm", "one"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(
        err.contains("not committed (`.ralph/agent/.tmp-notes`)"),
        "{err}"
    );

    std::fs::remove_file(wt.join(".ralph/agent/.tmp-notes")).unwrap();
    let out = ws.run(&["runs", "rm", "one"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(!wt.exists());
}
