//! Worktree loops end to end: `ralph run --worktree`, `ralph runs` listing them,
//! `ralph runs land` and `ralph runs rm`, with the real binary, real git and the fake
//! agents committing files in their worktrees.

#[path = "worktrees/base_busy.rs"]
mod base_busy;
#[path = "worktrees/base_loop.rs"]
mod base_loop;
#[path = "worktrees/base_renamed.rs"]
mod base_renamed;
mod common;
#[path = "worktrees/cost.rs"]
mod cost;
#[path = "worktrees/creating.rs"]
mod creating;
#[path = "worktrees/dubious.rs"]
mod dubious;
#[path = "worktrees/from_subdir.rs"]
mod from_subdir;
#[path = "worktrees/git_locks.rs"]
mod git_locks;
#[path = "worktrees/held_elsewhere.rs"]
mod held_elsewhere;
#[path = "worktrees/inside.rs"]
mod inside;
#[path = "worktrees/land_race.rs"]
mod land_race;
#[path = "worktrees/leftovers.rs"]
mod leftovers;
#[path = "worktrees/lock_wait.rs"]
mod lock_wait;
#[path = "worktrees/made_half.rs"]
mod made_half;
#[path = "worktrees/moved_then_failed.rs"]
mod moved_then_failed;
#[path = "worktrees/nested.rs"]
mod nested;
#[path = "worktrees/odd_paths.rs"]
mod odd_paths;
#[path = "worktrees/put_back.rs"]
mod put_back;
#[path = "worktrees/ralph_files.rs"]
mod ralph_files;
#[path = "worktrees/rebase_fails.rs"]
mod rebase_fails;
#[path = "worktrees/rm_race.rs"]
mod rm_race;
#[path = "worktrees/signals.rs"]
mod signals;
#[path = "worktrees/stdout.rs"]
mod stdout;
#[path = "worktrees/sub_loops.rs"]
mod sub_loops;
#[path = "worktrees/terminal.rs"]
mod terminal;
#[path = "worktrees/unsaved.rs"]
mod unsaved;
#[path = "worktrees/watch.rs"]
mod watch;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{Workspace, code, wait_output};
use serde_json::Value;

/// A fake agent's plan line that commits `f-<worktree>.txt` (holding the worktree's
/// name and run id, as the agent saw them) and completes.
const COMMIT_OWN_FILE: &str = "pi/anthropic/text.jsonl | LOOP_COMPLETE | | \
    echo $RALPH_WORKTREE $RALPH_RUN_ID > f-$RALPH_WORKTREE.txt && \
    git add f-$RALPH_WORKTREE.txt && git commit -qm $RALPH_WORKTREE\n";

/// One that writes its worktree's name over the first line of `shared.txt`.
const EDIT_SHARED_LINE: &str = "pi/anthropic/text.jsonl | LOOP_COMPLETE | | \
    echo $RALPH_WORKTREE > shared.txt && git commit -qam $RALPH_WORKTREE\n";

const CONFIG: &str = "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 3\n";

/// A git repository with a committed ralph.yml and `shared.txt`, on branch `main`.
fn repo(plan: &str) -> Workspace {
    repo_with(CONFIG, plan)
}

/// [`repo`] with `config` as its ralph.yml.
fn repo_with(config: &str, plan: &str) -> Workspace {
    repo_in(&std::env::temp_dir(), config, plan)
}

/// [`repo_with`] in a directory under `parent`.
fn repo_in(parent: &Path, config: &str, plan: &str) -> Workspace {
    let ws = Workspace::new_in(parent, config, plan);
    std::fs::write(ws.path().join(".gitignore"), ".fake/\n.env\n*.local\n").expect("ignore");
    std::fs::write(ws.path().join("shared.txt"), "base\n").expect("shared");
    git(ws.path(), &["init", "-q", "-b", "main"]);
    git(ws.path(), &["config", "user.name", "ralph-test"]);
    git(ws.path(), &["config", "user.email", "test@ralph.invalid"]);
    git(ws.path(), &["add", "."]);
    git(ws.path(), &["commit", "-qm", "init"]);
    ws
}

/// [`repo`] whose first loop commits its own file and completes ([`COMMIT_OWN_FILE`]),
/// and whose next one says it runs by making `.fake/<marker>` (ignored: no change in any
/// checkout), then hangs; and that file.
fn repo_with_a_hanging_second_loop(marker: &str) -> (Workspace, PathBuf) {
    let ws = repo(COMMIT_OWN_FILE);
    let started = ws.path().join(".fake").join(marker);
    std::fs::write(
        ws.path().join(".fake/plan"),
        format!(
            "{COMMIT_OWN_FILE}- | | hang=60 | touch '{}'\n",
            started.display()
        ),
    )
    .expect("plan");
    (ws, started)
}

/// `git <args>` in `dir`, which must succeed: its stdout.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::null())
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The worktree rows of `ralph runs --format json`, by name.
fn worktrees(ws: &Workspace) -> Vec<Value> {
    let out = ws.run(&["runs", "--format", "json"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .filter(|row| row.get("worktree").is_some())
        .collect()
}

fn row<'a>(rows: &'a [Value], name: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["worktree"] == name)
        .unwrap_or_else(|| panic!("no row for {name} in {rows:?}"))
}

fn ralph_branches(ws: &Workspace) -> Vec<String> {
    git(
        ws.path(),
        &["branch", "--list", "ralph/*", "--format=%(refname:short)"],
    )
    .lines()
    .map(str::to_owned)
    .collect()
}

fn tree(ws: &Workspace, name: &str) -> PathBuf {
    ws.path().join(".ralph/worktrees").join(name)
}

#[test]
fn six_loops_started_at_once_all_complete_and_all_land() {
    let ws = repo(COMMIT_OWN_FILE);
    let names: Vec<String> = (1..=6).map(|i| format!("task-{i}")).collect();
    let children: Vec<_> = names
        .iter()
        .map(|n| ws.start(&["run", &format!("--worktree={n}"), "-q", "-p", "do it"]))
        .collect();
    for (name, child) in names.iter().zip(children) {
        let out = wait_output(child);
        let err = stderr(&out);
        assert_eq!(code(out.status), 0, "{name}: {err}");
        assert!(!err.contains(".lock"), "{name} hit a git lock: {err}");
    }
    let mut branches = ralph_branches(&ws);
    branches.sort();
    let expected: Vec<String> = names.iter().map(|n| format!("ralph/{n}")).collect();
    assert_eq!(branches, expected);
    // The worktrees are invisible to git in the main checkout.
    assert_eq!(git(ws.path(), &["status", "--porcelain"]), "");

    let rows = worktrees(&ws);
    assert_eq!(rows.len(), 6, "{rows:?}");
    for name in &names {
        let r = row(&rows, name);
        let fields = (
            r["status"].as_str(),
            r["exit_code"].as_u64(),
            r["iterations"].as_u64(),
            r["ahead"].as_u64(),
            r["alive"].as_bool(),
            r["branch"].as_str(),
            r["path"].as_str(),
        );
        let path = format!(".ralph/worktrees/{name}");
        let branch = format!("ralph/{name}");
        assert_eq!(
            fields,
            (
                Some("completed"),
                Some(0),
                Some(1),
                Some(1),
                Some(false),
                Some(branch.as_str()),
                Some(path.as_str())
            )
        );
        // The agent saw its worktree's name and its run's id.
        let seen = std::fs::read_to_string(tree(&ws, name).join(format!("f-{name}.txt")))
            .expect("the agent's file");
        assert_eq!(
            seen.trim(),
            format!("{name} {}", r["run_id"].as_str().unwrap())
        );
    }
    let table = ws.run(&["runs"]);
    let table = String::from_utf8(table.stdout).expect("utf-8");
    assert!(
        table.contains("WORKTREE") && table.contains("task-6"),
        "{table}"
    );

    for name in &names {
        // The check runs in the rebased worktree, with the loop's environment.
        let check = format!("test \"$RALPH_WORKTREE\" = {name} && test -f f-{name}.txt");
        let out = ws.run(&["runs", "land", name, "--check", &check]);
        assert_eq!(code(out.status), 0, "{name}: {}", stderr(&out));
    }
    let files = git(ws.path(), &["ls-tree", "--name-only", "main"]);
    for name in &names {
        assert!(files.contains(&format!("f-{name}.txt")), "{files}");
        // main is checked out here (and clean): the working tree moved with it.
        assert!(ws.path().join(format!("f-{name}.txt")).is_file());
    }
    let merges = git(ws.path(), &["rev-list", "--merges", "--count", "main"]);
    assert_eq!(merges.trim(), "0", "landing made a merge commit");
    let landed = worktrees(&ws);
    assert!(
        landed
            .iter()
            .all(|r| r["status"] == "landed" && r["ahead"] == 0),
        "{landed:?}"
    );
    // Landed: nothing left that only the branch has, so rm needs no --force.
    for name in &names {
        let out = ws.run(&["runs", "rm", name]);
        assert_eq!(code(out.status), 0, "{}", stderr(&out));
        assert!(!tree(&ws, name).exists());
    }
    assert_eq!(ralph_branches(&ws), Vec::<String>::new());
    assert_eq!(worktrees(&ws), Vec::<Value>::new());
}

#[test]
fn the_second_landing_on_the_same_line_needs_a_rebase_and_keeps_its_branch() {
    let ws = repo(EDIT_SHARED_LINE);
    for name in ["first", "second"] {
        let out = ws.run(&["run", &format!("--worktree={name}"), "-q", "-p", "edit"]);
        assert_eq!(code(out.status), 0, "{}", stderr(&out));
    }
    let out = ws.run(&["runs", "land", "first"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let before = git(ws.path(), &["rev-parse", "ralph/second"]);

    let out = ws.run(&["runs", "land", "second"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("shared.txt"), "{}", stderr(&out));
    // The branch, its worktree and main are as they were; no rebase is left half done.
    assert_eq!(git(ws.path(), &["rev-parse", "ralph/second"]), before);
    assert_eq!(
        git(
            &tree(&ws, "second"),
            &["status", "--porcelain", "--untracked-files=no"]
        ),
        ""
    );
    assert_eq!(
        std::fs::read_to_string(ws.path().join("shared.txt")).unwrap(),
        "first\n"
    );
    assert_eq!(
        std::fs::read_to_string(tree(&ws, "second").join("shared.txt")).unwrap(),
        "second\n"
    );
    let rows = worktrees(&ws);
    assert_eq!(row(&rows, "second")["status"], "needs-rebase");
    assert_eq!(row(&rows, "second")["ahead"], 1);
    assert_eq!(row(&rows, "first")["status"], "landed");

    // Its commits are not on main: rm refuses without --force, and takes them with it.
    let out = ws.run(&["runs", "rm", "second"]);
    assert_eq!(code(out.status), 1);
    assert!(stderr(&out).contains("1 commit(s)"), "{}", stderr(&out));
    assert!(tree(&ws, "second").is_dir());
    let out = ws.run(&["runs", "rm", "second", "--force"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert_eq!(ralph_branches(&ws), ["ralph/first"]);
}

#[test]
fn a_failed_check_lands_nothing_and_uncommitted_work_blocks_rm() {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=checked", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    // An agent's `git clean -fdx` in the main checkout loses neither the worktree (a
    // repository to git clean) nor what ralph knows of it (in git's own directory).
    git(ws.path(), &["clean", "-fdxq", "-e", ".fake"]);
    assert_eq!(row(&worktrees(&ws), "checked")["status"], "completed");
    let main_before = git(ws.path(), &["rev-parse", "main"]);
    let out = ws.run(&["runs", "land", "checked", "--check", "exit 3"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert_eq!(git(ws.path(), &["rev-parse", "main"]), main_before);
    assert_eq!(row(&worktrees(&ws), "checked")["status"], "check-failed");

    // A landing is refused while the base's checkout has uncommitted changes.
    std::fs::write(ws.path().join("shared.txt"), "edited by hand\n").unwrap();
    let out = ws.run(&["runs", "land", "checked", "--check", "true"]);
    assert_eq!(code(out.status), 1);
    assert!(stderr(&out).contains("uncommitted"), "{}", stderr(&out));
    assert_eq!(git(ws.path(), &["rev-parse", "main"]), main_before);
    git(ws.path(), &["checkout", "--", "shared.txt"]);

    // Work not committed in the worktree is not deleted without --force.
    let out = ws.run(&["runs", "land", "checked", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    std::fs::write(tree(&ws, "checked").join("notes.txt"), "unsaved").unwrap();
    let out = ws.run(&["runs", "rm", "checked"]);
    assert_eq!(code(out.status), 1);
    assert!(stderr(&out).contains("not committed"), "{}", stderr(&out));
    let out = ws.run(&["runs", "rm", "nobody"]);
    assert_eq!(code(out.status), 1);
    assert!(
        stderr(&out).contains("no worktree loop"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_killed_worktree_loop_shows_dead_and_continue_finishes_it() {
    // The first iteration ends without completing (its state is saved), the second is
    // killed while its agent works, and `--continue` runs it again.
    let ws = repo(&format!(
        "pi/anthropic/text.jsonl | | |\n- | | hang=60 |\n{COMMIT_OWN_FILE}"
    ));
    let child = ws.start(&["run", "--worktree=killed", "-q", "-p", "x"]);
    let pid = child.id();
    ws.wait_for_agent(2);
    let r = row(&worktrees(&ws), "killed").clone();
    assert_eq!(
        (
            r["status"].as_str(),
            r["alive"].as_bool(),
            r["pid"].as_u64()
        ),
        (Some("running"), Some(true), Some(u64::from(pid)))
    );
    assert!(r["host"].as_str().is_some_and(|h| !h.is_empty()), "{r}");
    let alive = String::from_utf8(ws.run(&["runs"]).stdout).unwrap();
    assert!(alive.contains(&format!(":{pid}")), "{alive}");

    // A second loop in the worktree is refused, as in any workspace.
    let mut second = ws.command(&["run", "-q", "-p", "y"]);
    second.current_dir(tree(&ws, "killed"));
    let out = second.output().expect("ralph");
    assert_eq!(code(out.status), 1);
    assert!(stderr(&out).contains("already running"), "{}", stderr(&out));
    // Neither removed nor landed while it runs, even with --force.
    for args in [
        &["runs", "rm", "killed", "--force"][..],
        &["runs", "land", "killed"][..],
    ] {
        let out = ws.run(args);
        assert_eq!(code(out.status), 1, "{args:?}");
        assert!(stderr(&out).contains("running"), "{}", stderr(&out));
    }

    let out = ws.stop(child, nix::sys::signal::Signal::SIGKILL);
    assert_eq!(out.status.code(), None, "ralph was not killed");
    let r = row(&worktrees(&ws), "killed").clone();
    assert_eq!(
        (r["status"].as_str(), r["alive"].as_bool(), &r["pid"]),
        (Some("interrupted"), Some(false), &Value::Null)
    );

    let mut resume = ws.command(&["run", "--continue", "-q"]);
    resume.current_dir(tree(&ws, "killed"));
    let out = resume.output().expect("ralph");
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let r = row(&worktrees(&ws), "killed").clone();
    assert_eq!(
        (
            r["status"].as_str(),
            r["exit_code"].as_u64(),
            r["ahead"].as_u64(),
            r["iterations"].as_u64()
        ),
        (Some("completed"), Some(0), Some(1), Some(2))
    );
}

#[test]
fn hooks_of_a_worktree_loop_get_its_name_and_run_id() {
    let config = format!(
        "{CONFIG}hooks:\n  enabled: true\n  events:\n    pre.loop.start:\n      - name: saw\n        \
         command: 'echo $RALPH_WORKTREE $RALPH_RUN_ID > .ralph/hook-saw'\n        on_error: block\n"
    );
    let ws = repo_with(&config, COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=hooked", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let run_id = row(&worktrees(&ws), "hooked")["run_id"].clone();
    let saw = std::fs::read_to_string(tree(&ws, "hooked").join(".ralph/hook-saw")).unwrap();
    assert_eq!(saw.trim(), format!("hooked {}", run_id.as_str().unwrap()));
    // Outside a worktree loop there is no RALPH_WORKTREE (and this agent's commit fails
    // without a name: the loop's end does not matter here).
    ws.run(&["run", "-q", "--max-iterations", "1", "-p", "x"]);
    let saw = std::fs::read_to_string(ws.path().join(".ralph/hook-saw")).unwrap();
    assert_eq!(saw.split_whitespace().count(), 1, "{saw:?}");
}

#[test]
fn a_loop_based_on_another_branch_lands_there_and_rm_keeps_work_whose_base_is_gone() {
    let ws = repo(COMMIT_OWN_FILE);
    git(ws.path(), &["branch", "feature"]);
    // A worktree loop named `name` based on feature, which completes.
    let run_on_feature = |name: &str| {
        let worktree = format!("--worktree={name}");
        let out = ws.run(&["run", &worktree, "--base", "feature", "-q", "-p", "x"]);
        assert_eq!(code(out.status), 0, "{}", stderr(&out));
    };
    run_on_feature("on-feature");
    assert_eq!(row(&worktrees(&ws), "on-feature")["base"], "feature");
    let main_before = git(ws.path(), &["rev-parse", "main"]);
    // feature is checked out nowhere: only its ref moves.
    let out = ws.run(&["runs", "land", "on-feature", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert_eq!(git(ws.path(), &["rev-parse", "main"]), main_before);
    assert_eq!(
        git(ws.path(), &["rev-parse", "feature"]),
        git(ws.path(), &["rev-parse", "ralph/on-feature"])
    );

    run_on_feature("orphan");
    git(ws.path(), &["branch", "-D", "feature"]);
    let out = ws.run(&["runs", "rm", "orphan"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("feature, the branch it was started from"),
        "{err}"
    );
    assert!(err.contains("--keep-branch"), "{err}");
    let out = ws.run(&["runs", "rm", "orphan", "--force"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
}
