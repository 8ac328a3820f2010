//! `ralph runs rm` of a worktree loop killed with `kill -9`: what its agent left running
//! in the worktree is stopped before the worktree (and the record that leads to it) is
//! deleted, as `ralph run --continue` there would stop it; and by `ralph runs land`
//! before it rebases the branch under them.

use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use super::common::{Workspace, alive, code, gone, wait_for_pid};
use super::{repo, row, stderr, tree, worktrees};

/// Processes the test's agent left, SIGKILLed when the test ends, passed or failed.
struct KillOnDrop(Vec<i32>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        for &pid in &self.0 {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}

/// A worktree loop `w` killed with `kill -9` while its agent works for minutes, after
/// running `first` (a shell command, ending in `;`), starting a `sleep` in its group and
/// another in a session of its own that ignores SIGTERM, which outlive it. Returns the
/// workspace, the killed ralph's pid, the two sleeps' pids and the guard that kills
/// what is left when the test ends.
fn killed_with_two_sleeps_left(first: &str) -> (Workspace, u32, i32, i32, KillOnDrop) {
    let ws = repo(&format!(
        "- | | spawn=300 hang=300 | {first} setsid sh -c 'trap \"\" TERM; \
         echo $$ > \"$FAKE_STATE/detached.pid\"; exec sleep 301' </dev/null >/dev/null 2>&1 &\n"
    ));
    let child = ws.start(&["run", "--worktree=w", "-q", "-p", "x"]);
    let ralph = child.id();
    let state = ws.path().join(".fake");
    let agent = wait_for_pid(&state.join("pid-1"), "the agent");
    let grouped = wait_for_pid(&state.join("child-1"), "the agent's sleep");
    let detached = wait_for_pid(&state.join("detached.pid"), "the detached sleep");
    let guard = KillOnDrop(vec![grouped, detached, agent]);
    let out = ws.stop(child, Signal::SIGKILL);
    assert_eq!(out.status.code(), None, "ralph was not killed");
    assert!(gone(agent), "the agent outlived ralph");
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        alive(grouped) && alive(detached),
        "precondition: the agent's processes outlive ralph"
    );
    (ws, ralph, grouped, detached, guard)
}

#[test]
fn rm_of_a_killed_loop_stops_what_its_agent_left_running_there() {
    let (ws, ralph, grouped, detached, _guard) = killed_with_two_sleeps_left("");
    assert_eq!(
        row(&worktrees(&ws), "w")["status"].as_str(),
        Some("interrupted")
    );

    let out = ws.run(&["runs", "rm", "w"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 0, "{err}");
    assert!(gone(grouped), "the agent's sleep still runs: {err}");
    assert!(gone(detached), "the detached sleep still runs: {err}");
    // The two sleeps, and the agent's own foreground `sleep` (its `hang`) if it had
    // started it.
    assert!(err.starts_with("ralph: stopped "), "{err}");
    assert!(
        err.contains(&format!(
            " processes that an earlier ralph (pid {ralph}, killed before it could stop them) \
             had left running\n"
        )),
        "{err}"
    );
    assert!(!tree(&ws, "w").exists());
}

/// A process the agent detached with its environment cleared (`env -i setsid`) carries no
/// mark of the killed ralph, nor is in its agent's group: only the worktree it works in,
/// which `runs rm` is about to delete, leads to it. It is stopped, and counted.
#[test]
fn rm_of_a_killed_loop_stops_what_works_in_its_worktree_though_its_environment_was_cleared() {
    let ws = repo(
        "- | | hang=300 | env -i setsid sh -c \"echo \\$\\$ > '$FAKE_STATE/envless.pid'; \
         exec sleep 302\" </dev/null >/dev/null 2>&1 &\n",
    );
    let child = ws.start(&["run", "--worktree=w", "-q", "-p", "x"]);
    let state = ws.path().join(".fake");
    let agent = wait_for_pid(&state.join("pid-1"), "the agent");
    let envless = wait_for_pid(&state.join("envless.pid"), "the env-less sleep");
    let _guard = KillOnDrop(vec![envless, agent]);
    let out = ws.stop(child, Signal::SIGKILL);
    assert_eq!(out.status.code(), None, "ralph was not killed");
    assert!(gone(agent), "the agent outlived ralph");
    assert!(
        alive(envless),
        "precondition: the env-less sleep outlives ralph"
    );

    let out = ws.run(&["runs", "rm", "w"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 0, "{err}");
    assert!(gone(envless), "the env-less sleep still runs: {err}");
    // Nothing but the worktree led to it (it could have been the user's own): it is
    // named before it is stopped, then counted with the rest.
    let named = err
        .find(&format!("pid {envless} (sleep)"))
        .unwrap_or_else(|| panic!("the env-less sleep was not named: {err}"));
    assert!(err.starts_with("ralph: stopping "), "{err}");
    assert!(err[named..].contains("ralph: stopped "), "{err}");
    assert!(!tree(&ws, "w").exists());
}

/// `ralph runs land` of a worktree loop killed with `kill -9`: what its agent left
/// running there is stopped before the branch is rebased and checked under it, as
/// `ralph run --continue` there would. The killed ralph's record stays, for that
/// `--continue` to learn its iteration was killed.
#[test]
fn land_of_a_killed_loop_stops_what_its_agent_left_running_there_first() {
    // Its agent committed a file first: there is something to land.
    let (ws, ralph, grouped, detached, _guard) =
        killed_with_two_sleeps_left("echo w > f-w.txt; git add f-w.txt; git commit -qm w;");

    let out = ws.run(&["runs", "land", "w", "--check", "true"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 0, "{err}");
    assert!(gone(grouped), "the agent's sleep still runs: {err}");
    assert!(gone(detached), "the detached sleep still runs: {err}");
    assert!(
        err.starts_with("ralph: stopped ")
            && err.contains(&format!("an earlier ralph (pid {ralph}, killed before")),
        "{err}"
    );
    assert!(ws.path().join("f-w.txt").is_file(), "nothing landed: {err}");
    let runs = tree(&ws, "w").join(".ralph/runs");
    let kept = std::fs::read_dir(&runs)
        .unwrap()
        .flatten()
        .any(|run| run.path().join("agent.json").is_file());
    assert!(kept, "the killed ralph's record is gone from {runs:?}");
}
