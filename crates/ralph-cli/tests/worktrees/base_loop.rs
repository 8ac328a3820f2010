//! `ralph runs land` while a loop runs in the checkout that has the base checked out:
//! landing would move the files under that loop, so it is refused, whether the loop ran
//! before the landing or started during its check; the loop's own agent may land (a
//! loop fanning out lands its worktree loops onto its own branch).

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use super::common::{Workspace, code, wait_for_file, wait_output};
use super::land_race::landing_in_its_check;
use super::{git, repo_with_a_hanging_second_loop, stderr};

/// A worktree loop `one` that completed; the next loop hangs, and says it started in
/// the file returned.
fn completed_with_a_hanging_loop_next() -> (Workspace, PathBuf) {
    let (ws, started) = repo_with_a_hanging_second_loop("main-started");
    let out = ws.run(&["run", "--worktree=one", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    (ws, started)
}

/// A loop in the main checkout (where `main` is checked out), started and running (it
/// makes `started`).
fn loop_in_main(ws: &Workspace, started: &Path) -> Child {
    let child = ws
        .command(&["run", "-q", "-p", "x"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ralph");
    wait_for_file(started, "the loop in main");
    child
}

/// Checks that `out` is a landing refused for the loop `pid` in main, which it left as
/// it was (`before`).
fn refused_under(ws: &Workspace, out: &std::process::Output, pid: u32, before: &str) {
    let err = stderr(out);
    assert_eq!(code(out.status), 1, "landed under a running loop: {err}");
    assert!(
        err.contains(&format!("is running (pid {pid})"))
            && err.contains(&format!("kill -INT {pid}"))
            && err.contains("then land again")
            && err.contains("nothing landed"),
        "{err}"
    );
    assert_eq!(git(ws.path(), &["rev-parse", "refs/heads/main"]), before);
    assert!(!ws.path().join("f-one.txt").exists(), "main's files moved");
}

#[test]
fn land_refuses_while_a_loop_runs_where_the_base_is_checked_out() {
    let (ws, started) = completed_with_a_hanging_loop_next();
    let before = git(ws.path(), &["rev-parse", "refs/heads/main"]);
    let running = loop_in_main(&ws, &started);
    let pid = running.id();

    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    refused_under(&ws, &out, pid, &before);

    // Its own agent may: it asks for its files to move.
    let out = ws
        .command(&["runs", "land", "one", "--check", "true"])
        .env("RALPH_WORKSPACE", ws.path())
        .output()
        .expect("run ralph");
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(ws.path().join("f-one.txt").is_file());

    let out = ws.stop(running, nix::sys::signal::Signal::SIGINT);
    assert_eq!(code(out.status), 130, "{}", stderr(&out));
}

#[test]
fn a_loop_started_where_the_base_is_checked_out_during_the_check_stops_the_landing() {
    let (ws, started) = completed_with_a_hanging_loop_next();
    let before = git(ws.path(), &["rev-parse", "refs/heads/main"]);
    let (land, release) = landing_in_its_check(&ws, "one");
    let running = loop_in_main(&ws, &started);
    let pid = running.id();
    std::fs::write(&release, "").unwrap();
    let out = wait_output(land);
    refused_under(&ws, &out, pid, &before);

    let out = ws.stop(running, nix::sys::signal::Signal::SIGINT);
    assert_eq!(code(out.status), 130, "{}", stderr(&out));
    // Once it has stopped, the landing goes through.
    let out = ws.run(&["runs", "land", "one", "--check", "true"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(ws.path().join("f-one.txt").is_file());
}
