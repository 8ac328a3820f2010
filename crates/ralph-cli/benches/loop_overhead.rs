//! ralph's own time per iteration: the wall time of `ralph run` over N iterations minus
//! the time the same fake agent takes when run alone N times, divided by N. The public
//! ralph-orchestrator is measured beside it, on the same fake agent, in the same rounds.
//!
//! The fake agent (`pi` on PATH) appends one event to `$RALPH_EVENTS_FILE` (a new payload
//! each time, so neither loop sees a stale loop), prints a real pi transcript and exits.
//! Both loops run it until their iteration limit.
//!
//! Run: `cargo bench -p ralph-cli --bench loop_overhead` (or scripts/bench-loop.sh, which
//! also builds ralph-orchestrator into a cache). Environment:
//! - `BENCH_ITERATIONS` (default 1000), `BENCH_ROUNDS` (default 3; medians are printed);
//! - `RALPH_UPSTREAM_BIN`: ralph-orchestrator's `ralph` (skipped when unset or missing);
//! - `BENCH_RALPH_BIN`: another build of ralph to measure instead of this one (an older
//!   commit's, to compare before and after with the same harness).
//!
//! Every loop runs in a new working directory, and the old ones are only removed at the
//! end. On ext4 without a journal (this project's CI machines), a new inode skips every
//! inode of its group freed in the last minute or more, one buffer lookup each: deleting
//! a loop's thousands of files just before the next loop made that loop pay for them,
//! several milliseconds per iteration, and more so the more files a build keeps.
//!
//! Prints figures and ratios; asserts nothing about time.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{env_number, fake_pi, median, quiet_command};

/// The budget the issue sets for ralph's own time per iteration.
const BUDGET_PER_ITERATION: Duration = Duration::from_millis(1);

const FAKE_AGENT: &str = r#"#!/bin/sh
[ "$1" = "--version" ] && { echo "0.0.0-bench"; exit 0; }
printf '{"topic":"bench.tick","payload":"%s","ts":"2026-01-01T00:00:00Z"}\n' "$$" >> "$RALPH_EVENTS_FILE"
exec cat "$BENCH_STREAM"
"#;

struct Bench {
    dir: tempfile::TempDir,
    iterations: u32,
    /// Loops run so far: each runs in `work-<n>` (see the module's note on ext4).
    loops: std::cell::Cell<u32>,
    path: std::ffi::OsString,
    stream: PathBuf,
}

impl Bench {
    fn new(iterations: u32) -> Bench {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = fake_pi(dir.path(), FAKE_AGENT);
        std::fs::create_dir(dir.path().join("work")).expect("work dir");
        Bench {
            iterations,
            loops: std::cell::Cell::new(0),
            path,
            stream: PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/fixtures/pi/anthropic/text.jsonl"),
            dir,
        }
    }

    /// A new working directory with the loop's `ralph.yml`.
    fn new_work(&self) -> PathBuf {
        let n = self.loops.get() + 1;
        self.loops.set(n);
        let work = self.dir.path().join(format!("work-{n}"));
        std::fs::create_dir(&work).expect("work dir");
        std::fs::write(
            work.join("ralph.yml"),
            format!(
                "cli:\n  backend: pi\nevent_loop:\n  max_iterations: {}\n",
                self.iterations
            ),
        )
        .expect("ralph.yml");
        work
    }

    fn command(&self, program: &Path) -> Command {
        quiet_command(program, self.dir.path(), &self.path, &self.stream)
    }

    /// The fake agent alone, N times, each with its output read to the end.
    fn agent_alone(&self) -> Duration {
        let events = self.dir.path().join("alone.jsonl");
        let agent = self.dir.path().join("bin/pi");
        let start = Instant::now();
        for _ in 0..self.iterations {
            let out = self
                .command(&agent)
                .args(["-p", "--mode", "json", "--no-session"])
                .env(ralph_types::env::EVENTS_FILE, &events)
                .stdout(Stdio::piped())
                .output()
                .expect("fake agent");
            assert!(out.status.success() && !out.stdout.is_empty());
        }
        start.elapsed()
    }

    /// One loop of N iterations; `args` after `run -p x`. Checks it really ran N.
    fn loop_run(&self, program: &Path, extra: &[&str], events_glob: &str) -> Duration {
        let work = self.new_work();
        let n = self.iterations.to_string();
        let start = Instant::now();
        let status = self
            .command(program)
            .current_dir(&work)
            .args(["run", "-p", "x", "--max-iterations", &n])
            .args(extra)
            .status()
            .expect("loop");
        let took = start.elapsed();
        assert_eq!(
            status.code(),
            Some(2),
            "{} did not end at its iteration limit",
            program.display()
        );
        let ticks = count_ticks(&work.join(".ralph"), events_glob);
        assert_eq!(
            ticks,
            self.iterations as usize,
            "{} ran {ticks} iterations",
            program.display()
        );
        took
    }
}

/// The fake agent's events found in the inbox files under `dir` whose path contains
/// `pattern`.
fn count_ticks(dir: &Path, pattern: &str) -> usize {
    let mut count = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().contains(pattern) {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                count += text
                    .lines()
                    .filter(|l| l.contains("\"bench.tick\""))
                    .count();
            }
        }
    }
    count
}

fn per_iteration(total: Duration, alone: Duration, n: u32) -> f64 {
    (total.as_secs_f64() - alone.as_secs_f64()) * 1000.0 / f64::from(n)
}

fn main() {
    let iterations = env_number("BENCH_ITERATIONS", 1000);
    let rounds = env_number("BENCH_ROUNDS", 3);
    let bench = Bench::new(iterations);
    let ralph = std::env::var_os("BENCH_RALPH_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_ralph")), PathBuf::from);
    println!("ralph: {}", ralph.display());
    let upstream = std::env::var_os("RALPH_UPSTREAM_BIN")
        .map(PathBuf::from)
        .filter(|p| p.is_file());
    match &upstream {
        Some(p) => println!("ralph-orchestrator: {}", p.display()),
        None => println!("ralph-orchestrator: not measured (set RALPH_UPSTREAM_BIN)"),
    }
    println!("{iterations} iterations, {rounds} rounds, medians:");

    let (mut alone, mut ours, mut theirs) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        alone.push(bench.agent_alone());
        ours.push(bench.loop_run(&ralph, &[], "inbox.jsonl"));
        if let Some(up) = &upstream {
            theirs.push(bench.loop_run(up, &["--no-tui"], "events-"));
        }
    }
    let alone = median(alone);
    let ours = median(ours);
    let ours_per = per_iteration(ours, alone, iterations);
    println!(
        "  agent alone        {:>8.3} s  ({:.3} ms per run)",
        alone.as_secs_f64(),
        alone.as_secs_f64() * 1000.0 / f64::from(iterations)
    );
    println!(
        "  ralph              {:>8.3} s  own time {ours_per:.3} ms per iteration (budget {} ms: {})",
        ours.as_secs_f64(),
        BUDGET_PER_ITERATION.as_millis(),
        if ours_per < BUDGET_PER_ITERATION.as_secs_f64() * 1000.0 {
            "within"
        } else {
            "OVER"
        }
    );
    if !theirs.is_empty() {
        let theirs = median(theirs);
        let theirs_per = per_iteration(theirs, alone, iterations);
        println!(
            "  ralph-orchestrator {:>8.3} s  own time {theirs_per:.3} ms per iteration",
            theirs.as_secs_f64()
        );
        println!(
            "  ratio: ralph-orchestrator's own time / ralph's = {:.2}",
            theirs_per / ours_per
        );
    }
}
