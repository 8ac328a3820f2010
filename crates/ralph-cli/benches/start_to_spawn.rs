//! Time from `ralph run` starting to the agent's process starting, with the version
//! probe uncached (the first run in an environment, or after the agent changed) and
//! cached (every later run), in the same rounds.
//!
//! The fake agent (`pi` on PATH) answers `--version` after [`VERSION_DELAY`] (a stand-in
//! for a Node-based CLI's start: `pi --version` takes about 1 s on an idle machine and
//! over 5 s under load), and when run as the agent writes the time it started, in
//! nanoseconds since the epoch, then exits at once. The uncached round clears the probe
//! cache before each run; the cached round keeps it.
//!
//! Run: `cargo bench -p ralph-cli --bench start_to_spawn` (or scripts/bench-start.sh).
//! `BENCH_ROUNDS` (default 5; medians are printed). Prints figures and their ratio;
//! asserts nothing about time.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use support::{env_number, fake_pi, median};

/// How long the fake agent's `--version` takes.
const VERSION_DELAY: &str = "0.5";
/// The target for a cached start (issue 11, item 12).
const CACHED_BUDGET: Duration = Duration::from_millis(50);

const FAKE_AGENT: &str = r#"#!/bin/sh
[ "$1" = "--version" ] && { sleep "$BENCH_VERSION_DELAY"; echo "0.0.0-bench"; exit 0; }
date +%s%N > "$BENCH_SPAWNED"
printf '{"topic":"LOOP_COMPLETE","payload":"","ts":"2026-01-01T00:00:00Z"}\n' >> "$RALPH_EVENTS_FILE"
"#;

struct Bench {
    dir: tempfile::TempDir,
    path: std::ffi::OsString,
}

impl Bench {
    fn new() -> Bench {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = fake_pi(dir.path(), FAKE_AGENT);
        Bench { path, dir }
    }

    fn cache(&self) -> PathBuf {
        self.dir.path().join("cache")
    }

    /// One `ralph run` in a fresh workspace: the time from just before ralph is started
    /// to the moment the agent wrote its start time.
    fn start_to_spawn(&self, ralph: &Path, round: u32, label: &str) -> Duration {
        let work = self.dir.path().join(format!("work-{label}-{round}"));
        std::fs::create_dir(&work).expect("work dir");
        std::fs::write(
            work.join("ralph.yml"),
            "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 1\n",
        )
        .expect("ralph.yml");
        let spawned = work.join("spawned");
        let started = SystemTime::now();
        let status = Command::new(ralph)
            .args(["run", "-p", "bench"])
            .current_dir(&work)
            .env("PATH", &self.path)
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .env("XDG_CACHE_HOME", self.cache())
            .env("BENCH_VERSION_DELAY", VERSION_DELAY)
            .env("BENCH_SPAWNED", &spawned)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("run ralph");
        assert!(status.code().is_some(), "ralph was killed: {status}");
        let nanos: u64 = std::fs::read_to_string(&spawned)
            .expect("the agent did not start")
            .trim()
            .parse()
            .expect("a time in nanoseconds");
        let at = UNIX_EPOCH + Duration::from_nanos(nanos);
        at.duration_since(started).unwrap_or_default()
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let rounds = env_number("BENCH_ROUNDS", 5).max(1);
    let ralph = PathBuf::from(env!("CARGO_BIN_EXE_ralph"));
    let bench = Bench::new();
    let mut uncached = Vec::new();
    let mut cached = Vec::new();
    for round in 0..rounds {
        let _ = std::fs::remove_dir_all(bench.cache());
        uncached.push(bench.start_to_spawn(&ralph, round, "uncached"));
        cached.push(bench.start_to_spawn(&ralph, round, "cached"));
    }
    let (uncached, cached) = (median(uncached), median(cached));
    println!(
        "start to agent spawn, {rounds} rounds, medians (`--version` takes {VERSION_DELAY} s):"
    );
    println!("  uncached probe: {:>8.1} ms", ms(uncached));
    println!(
        "  cached probe:   {:>8.1} ms (target: under {} ms)",
        ms(cached),
        CACHED_BUDGET.as_millis()
    );
    println!(
        "  uncached / cached: {:.1}x",
        uncached.as_secs_f64() / cached.as_secs_f64().max(f64::EPSILON)
    );
}
