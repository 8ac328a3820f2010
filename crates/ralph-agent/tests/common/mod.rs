//! Shared helpers for the supervision tests: fake agent paths, sinks, process checks.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{kill, killpg};
use nix::unistd::Pid;
use ralph_agent::supervise::{
    Flow, OutputSink, ProcessOutcome, RunDeadlines, SpawnSpec, StopRequests, run,
};

/// Generous bound on any single run, so a broken supervisor fails instead of hanging.
pub const OUTER_TIMEOUT: Duration = Duration::from_secs(60);

pub fn fake(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fake-agents")
        .join(name)
}

/// Short deadlines for tests; each test overrides what it exercises.
pub fn short() -> RunDeadlines {
    RunDeadlines {
        startup: None,
        idle: None,
        wall: Some(Duration::from_secs(30)),
        exit_grace: Duration::from_millis(300),
        kill_grace: Duration::from_millis(300),
    }
}

/// Keeps every stdout byte.
#[derive(Default)]
pub struct Collect {
    pub stdout: Vec<u8>,
}

impl OutputSink for Collect {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        self.stdout.extend_from_slice(bytes);
        Flow::Continue
    }
}

/// Counts stdout bytes and checks they are all zero (what `flood.sh` writes).
#[derive(Default)]
pub struct CountZeros {
    pub bytes: u64,
    pub non_zero: u64,
}

impl OutputSink for CountZeros {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        self.bytes += bytes.len() as u64;
        self.non_zero += bytes.iter().filter(|b| **b != 0).count() as u64;
        Flow::Continue
    }
}

pub async fn supervise(
    spec: SpawnSpec,
    deadlines: RunDeadlines,
    sink: &mut impl OutputSink,
) -> ProcessOutcome {
    supervise_with(spec, deadlines, sink, StopRequests::never()).await
}

pub async fn supervise_with(
    spec: SpawnSpec,
    deadlines: RunDeadlines,
    sink: &mut impl OutputSink,
    stop: StopRequests,
) -> ProcessOutcome {
    // Past the run's own wall deadline (plus the graces), the supervisor has hung.
    let outer = deadlines.wall.map_or(OUTER_TIMEOUT, |wall| {
        (wall + OUTER_TIMEOUT / 2).max(OUTER_TIMEOUT)
    });
    match tokio::time::timeout(outer, run(spec, deadlines, sink, stop)).await {
        Ok(outcome) => outcome,
        Err(_) => panic!("supervised run did not end within {outer:?}"),
    }
}

/// Appends a path argument.
pub trait ArgPath {
    fn arg_path(self, path: &Path) -> SpawnSpec;
}

impl ArgPath for SpawnSpec {
    fn arg_path(self, path: &Path) -> SpawnSpec {
        self.args([path.as_os_str()])
    }
}

/// The spec of a fake agent whose `$FAKE_OUT` is `out`.
pub fn agent(name: &str, out: &Path) -> SpawnSpec {
    SpawnSpec::new(fake(name)).env("FAKE_OUT", out)
}

/// Asserts that no process with this pid exists (not even a zombie).
pub fn assert_pid_gone(pid: i32) {
    assert_eq!(
        kill(Pid::from_raw(pid), None),
        Err(Errno::ESRCH),
        "process {pid} still exists: {}",
        std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default()
    );
}

/// True while a process with this pid exists, even a zombie.
pub fn exists(pid: i32) -> bool {
    kill(Pid::from_raw(pid), None).is_ok()
}

/// Asserts that process group `pgid` has no member left.
pub fn assert_group_gone(pgid: i32) {
    assert_eq!(
        killpg(Pid::from_raw(pgid), None),
        Err(Errno::ESRCH),
        "process group {pgid} still has members"
    );
}

/// True when the process no longer runs (gone or a zombie).
pub fn not_running(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.trim_start().starts_with(['Z', 'X']))
            .unwrap_or(true),
    }
}

/// Waits (bounded) until `path` holds a pid, and returns it.
pub async fn read_pid_file(path: &Path) -> i32 {
    let until = Instant::now() + OUTER_TIMEOUT;
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        assert!(Instant::now() < until, "no pid in {}", path.display());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

pub fn pid_of(outcome: &ProcessOutcome) -> i32 {
    match outcome.pid {
        Some(pid) => pid as i32,
        None => panic!("the run has no pid: {outcome:?}"),
    }
}

/// The running (not zombie) processes started with `RALPH_AGENT_RUN=<token>` in their
/// environment: what is left of the run whose token that is.
pub fn marked_alive(token: &str) -> Vec<i32> {
    let needle = format!("\0RALPH_AGENT_RUN={token}\0");
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| {
            let Ok(env) = std::fs::read(format!("/proc/{pid}/environ")) else {
                return false;
            };
            let mut hay = vec![0u8];
            hay.extend_from_slice(&env);
            hay.push(0);
            let marked = hay.windows(needle.len()).any(|w| w == needle.as_bytes());
            marked && !not_running(pid)
        })
        .collect()
}

/// SIGKILLs `pids` (what a failed test would otherwise leave running).
pub fn kill_all(pids: &[i32]) {
    for &pid in pids {
        let _ = kill(Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL);
    }
}
