//! `ralph tools task` and `ralph tools memory` while another process holds their lock:
//! they say on stderr that they wait and for whom, and go on once it is let go.

mod common;

use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::stderr_watch::StderrWatch;
use common::{Workspace, code};
use ralph_core::file_lock::LOCK_WAIT_LIMIT;

/// `flock LOCK sleep …` in a process group of its own (`sleep` inherits the lock: both
/// are ended to let it go), started and holding the lock before this returns.
fn hold(lock: &std::path::Path) -> Child {
    let holder = Command::new("flock")
        .arg(lock)
        .args(["sleep", "60"])
        .stdin(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("flock(1) runs");
    let started = Instant::now();
    while !std::fs::read_to_string("/proc/locks")
        .unwrap()
        .contains(&format!(" {} ", holder.id()))
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "flock took the lock"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    holder
}

fn waits_for_the_holder_then_goes_on(lock: &str, args: &[&str]) {
    let ws = Workspace::new("", "");
    std::fs::create_dir_all(ws.path().join(".ralph/agent")).unwrap();
    let lock = ws.path().join(lock);
    let mut holder = hold(&lock);
    let mut command = ws.command(args);
    let mut waiter = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Waited for, not slept for: ralph tells the wait only once it has waited a while,
    // and on a busy machine it may start late.
    let stderr = StderrWatch::take(&mut waiter);
    stderr.wait_for("ralph: waiting for the lock");
    assert!(
        waiter.try_wait().unwrap().is_none(),
        "it waits for the lock"
    );
    let group = nix::unistd::Pid::from_raw(i32::try_from(holder.id()).unwrap());
    nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL).unwrap();
    holder.wait().unwrap();
    let status = waiter.wait().unwrap();
    let stderr = stderr.all();
    assert_eq!(code(status), 0, "{stderr}");
    let expected = format!(
        "ralph: waiting for the lock `{}`, held by process {} (flock); giving up after {} s",
        lock.display(),
        holder.id(),
        LOCK_WAIT_LIMIT.as_secs()
    );
    assert!(stderr.contains(&expected), "{stderr}");
}

#[test]
fn a_task_command_says_it_waits_for_a_held_lock() {
    waits_for_the_holder_then_goes_on(
        ".ralph/agent/tasks.jsonl.lock",
        &["tools", "task", "add", "x"],
    );
}

#[test]
fn a_memory_command_says_it_waits_for_a_held_lock() {
    waits_for_the_holder_then_goes_on(
        ".ralph/agent/memories.md.lock",
        &["tools", "memory", "add", "a lesson", "-t", "fix"],
    );
}
