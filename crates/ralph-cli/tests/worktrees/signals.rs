//! Ctrl-C and SIGTERM while a worktree command runs git (and git its hooks) or a check:
//! what runs is stopped with its process group, nothing is left running, ralph exits
//! 130 at once and says in what state it left the repository. And a slow hook: ralph
//! says what it waits for.

use std::path::{Path, PathBuf};

use nix::sys::signal::Signal;

use super::common::{Workspace, code, gone, wait_for_pid};
use super::{COMMIT_OWN_FILE, git, repo, row, stderr, tree, worktrees};

/// A shell command that starts a `sleep` far longer than any test, writes its pid to
/// `pid_file` and waits for it: a hung hook or check whose child ralph must stop.
pub(super) fn hang(pid_file: &Path) -> String {
    format!("sleep 100000 & echo $! > '{}'; wait", pid_file.display())
}

/// A repository with a finished worktree loop `one` one commit ahead of main.
/// Where [`hang`]'s sleep writes its pid in `ws`.
pub(super) fn hung_pid(ws: &Workspace) -> PathBuf {
    ws.path().join("hung.pid")
}

/// Starts `ralph <args>` in `ws`, waits until the sleep of a hook or check has written
/// its pid to [`hung_pid`], then sends ralph `signal`: ralph must exit 130 with the sleep
/// stopped. Its stderr.
pub(super) fn stopped_while_hung(ws: &Workspace, args: &[&str], signal: Signal) -> String {
    let child = ws.start(args);
    let sleeper = wait_for_pid(&hung_pid(ws), "the hung sleep");
    let out = ws.stop(child, signal);
    let err = stderr(&out);
    assert_eq!(code(out.status), 130, "{err}");
    assert!(gone(sleeper), "the hung sleep was left running: {err}");
    err
}

fn landable() -> (Workspace, PathBuf) {
    let ws = repo(COMMIT_OWN_FILE);
    let out = ws.run(&["run", "--worktree=one", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let pid_file = hung_pid(&ws);
    (ws, pid_file)
}

#[test]
fn ctrl_c_during_the_check_of_a_landing_stops_the_check_and_lands_nothing() {
    let (ws, pid_file) = landable();
    let err = stopped_while_hung(
        &ws,
        &["runs", "land", "one", "--check", &hang(&pid_file)],
        Signal::SIGINT,
    );
    assert!(err.contains("nothing landed"), "{err}");
    assert_eq!(row(&worktrees(&ws), "one")["ahead"], 1);
}

#[test]
fn sigterm_while_a_hook_of_the_rebase_hangs_aborts_the_rebase() {
    let (ws, pid_file) = landable();
    // main moves on, so that the landing's rebase checks out the new main: git runs
    // post-checkout there, which hangs (once: the abort would run it too).
    std::fs::write(ws.path().join("other.txt"), "x\n").unwrap();
    git(ws.path(), &["add", "other.txt"]);
    git(ws.path(), &["commit", "-qm", "main moves"]);
    let once = ws.path().join("hook-ran");
    let script = format!(
        "[ -e '{0}' ] && exit 0\ntouch '{0}'\n{1}",
        once.display(),
        hang(&pid_file)
    );
    install_hook(&ws, "post-checkout", &script);
    let err = stopped_while_hung(
        &ws,
        &["runs", "land", "one", "--check", "true"],
        Signal::SIGTERM,
    );
    assert!(err.contains("the rebase was aborted"), "{err}");
    // The worktree is back on its branch, not left mid-rebase: it lands again.
    let on = git(&tree(&ws, "one"), &["symbolic-ref", "-q", "HEAD"]);
    assert_eq!(on.trim(), "refs/heads/ralph/one");
    let again = ws.run(&["runs", "land", "one", "--check", "true"]);
    assert_eq!(code(again.status), 0, "{}", stderr(&again));
}

/// Makes `hook` of the repository at `ws` an executable script.
pub(super) fn install_hook(ws: &Workspace, hook: &str, script: &str) {
    let path = ws.path().join(".git/hooks").join(hook);
    std::fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

#[test]
fn ctrl_c_while_the_worktree_is_made_stops_git_hooks_and_leaves_nothing_half_made() {
    let ws = repo(COMMIT_OWN_FILE);
    let pid_file = hung_pid(&ws);
    install_hook(&ws, "post-checkout", &hang(&pid_file));
    let err = stopped_while_hung(
        &ws,
        &["run", "--worktree=one", "-q", "-p", "x"],
        Signal::SIGINT,
    );
    assert!(err.contains("was not made"), "{err}");
    assert!(super::ralph_branches(&ws).is_empty(), "{err}");
    assert!(!tree(&ws, "one").exists(), "{err}");
    let listed = git(ws.path(), &["worktree", "list", "--porcelain"]);
    assert_eq!(listed.matches("worktree ").count(), 1, "{listed}");
}

/// The same stop under `--output json`: no loop started, so stdout is one `error` line
/// with exit code 130, as docs/run-events.md says, and the schema takes it.
#[test]
fn ctrl_c_while_the_worktree_is_made_ends_json_output_with_an_error_line_of_130() {
    let ws = repo(COMMIT_OWN_FILE);
    let pid_file = hung_pid(&ws);
    install_hook(&ws, "post-checkout", &hang(&pid_file));
    let child = ws.start(&["run", "--worktree=one", "--output", "json", "-p", "x"]);
    wait_for_pid(&pid_file, "the hung sleep");
    let out = ws.stop(child, Signal::SIGINT);
    assert_eq!(code(out.status), 130, "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert_eq!(
        (&lines[0]["type"], &lines[0]["exit_code"]),
        (&serde_json::json!("error"), &serde_json::json!(130))
    );
    let validator = super::common::run_events_validator();
    assert!(validator.is_valid(&lines[0]), "{text}");
    // The schema is exact: the code an error line cannot have is refused.
    let mut other = lines[0].clone();
    other["exit_code"] = serde_json::json!(2);
    assert!(!validator.is_valid(&other));
}

#[test]
fn a_slow_hook_under_git_is_announced_while_it_runs() {
    let ws = repo(COMMIT_OWN_FILE);
    install_hook(&ws, "post-checkout", "sleep 4");
    let out = ws.run(&["run", "--worktree=slow", "-q", "-p", "x"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 0, "{err}");
    assert!(err.contains("`git worktree add"), "{err}");
    assert!(err.contains("is still running after 3 s"), "{err}");
    assert!(err.contains("hooks"), "{err}");
    // What ralph will do, not what it did: git still runs.
    assert!(
        err.contains("ralph stops it if it still runs after 300 s"),
        "{err}"
    );
}

#[test]
fn sigterm_while_post_merge_hangs_after_the_base_moved_records_the_landing() {
    let (ws, pid_file) = landable();
    install_hook(&ws, "post-merge", &hang(&pid_file));
    let err = stopped_while_hung(
        &ws,
        &["runs", "land", "one", "--check", "true"],
        Signal::SIGTERM,
    );
    assert!(err.contains("landed"), "{err}");
    assert_eq!(row(&worktrees(&ws), "one")["status"], "landed", "{err}");
}
