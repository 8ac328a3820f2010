//! `ralph run --tui` following a 200 MB snapshot-shaped pi stream live, against
//! `ralph run --output json` on the same stream: ralph's CPU time (user + system) and
//! peak resident memory for each, and the CPU ratio. The TUI gets a real terminal (a
//! pseudo-terminal of 100×30 whose output is read and dropped), so it draws every frame
//! it would on screen.
//!
//! Run: `cargo bench -p ralph-cli --bench tui_follow`. Environment: `BENCH_ROUNDS`
//! (default 3; medians are printed). Prints figures and the ratio against the issue's
//! budgets (CPU within 3× of JSON, under 64 MB resident); asserts nothing about time.

mod support;

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ralph_test_support::streamgen::{PiSpec, pi_stream};
use support::{env_number, fake_pi};

/// The issue's budgets.
const CPU_RATIO_BUDGET: f64 = 3.0;
const RSS_BUDGET_KB: i64 = 64 * 1024;
const COLUMNS: u16 = 100;
const ROWS: u16 = 30;
/// How often the TUI run's record is looked at for its end.
const POLL: Duration = Duration::from_millis(20);

const FAKE_AGENT: &str = r#"#!/bin/sh
[ "$1" = "--version" ] && { echo "0.0.0-bench"; exit 0; }
exec cat "$BENCH_STREAM"
"#;

/// What one run of ralph cost.
#[derive(Clone, Copy, Debug)]
struct Cost {
    cpu: Duration,
    max_rss_kb: i64,
}

fn ralph() -> PathBuf {
    let exe = std::env::current_exe().expect("bench exe");
    let dir = exe.parent().and_then(Path::parent).expect("target dir");
    dir.join("ralph")
}

/// Waits for `pid` and returns its CPU time and peak memory.
fn wait_cost(pid: u32) -> Cost {
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = i32::try_from(pid).expect("pid");
    // SAFETY: waits for our own child; the pointers are to live locals.
    let got = unsafe { libc::wait4(pid, &raw mut status, 0, &raw mut usage) };
    assert_eq!(got, pid, "wait4: {}", std::io::Error::last_os_error());
    assert!(libc::WIFEXITED(status), "ralph did not exit: {status}");
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    Cost {
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
        max_rss_kb: usage.ru_maxrss,
    }
}

struct Bench {
    dir: tempfile::TempDir,
    path: std::ffi::OsString,
    stream: PathBuf,
}

impl Bench {
    fn new() -> Bench {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = fake_pi(dir.path(), FAKE_AGENT);
        let stream = dir.path().join("pi.jsonl");
        std::fs::write(&stream, pi_stream(&PiSpec::large()).bytes).expect("stream");
        Bench { dir, path, stream }
    }

    /// A fresh workspace for one run.
    fn workspace(&self, name: &str) -> PathBuf {
        let work = self.dir.path().join(name);
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir(&work).expect("work dir");
        std::fs::write(
            work.join("ralph.yml"),
            "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 1\n",
        )
        .expect("ralph.yml");
        work
    }

    fn command(&self, work: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(ralph());
        cmd.args(["run", "-p", "follow the stream"])
            .args(args)
            .current_dir(work)
            .env("PATH", &self.path)
            .env("BENCH_STREAM", &self.stream)
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
            .env("TERM", "xterm-256color")
            .env_remove("NO_COLOR");
        cmd
    }

    #[allow(
        clippy::zombie_processes,
        reason = "wait_cost reaps it with wait4, for its resource usage"
    )]
    fn json(&self) -> Cost {
        let work = self.workspace("json");
        let child = self
            .command(&work, &["--output", "json"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn ralph");
        wait_cost(child.id())
    }

    /// `--tui` on a pseudo-terminal; `q` once the loop has ended (the TUI stays for it).
    #[allow(
        clippy::zombie_processes,
        reason = "wait_cost reaps it with wait4, for its resource usage"
    )]
    fn tui(&self) -> (Cost, u64) {
        let work = self.workspace("tui");
        let (master, slave) = pty();
        let fd = |f: &OwnedFd| Stdio::from(f.try_clone().expect("dup"));
        let mut cmd = self.command(&work, &["--tui"]);
        cmd.stdin(fd(&slave)).stdout(fd(&slave)).stderr(fd(&slave));
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                libc::ioctl(0, libc::TIOCSCTTY, 0);
                Ok(())
            });
        }
        let child = cmd.spawn().expect("spawn ralph");
        drop(slave);
        let mut reader = std::fs::File::from(master.try_clone().expect("dup"));
        let drained = std::thread::spawn(move || {
            let mut buf = vec![0u8; 1 << 16];
            let mut total = 0u64;
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                total += n as u64;
            }
            total
        });
        let record = work.join(".ralph/runs");
        let deadline = Instant::now() + Duration::from_secs(600);
        while !ended(&record) {
            assert!(Instant::now() < deadline, "the TUI run never ended");
            std::thread::sleep(POLL);
        }
        let mut writer = std::fs::File::from(master);
        writer.write_all(b"q").expect("q");
        let cost = wait_cost(child.id());
        drop(writer);
        (cost, drained.join().unwrap_or(0))
    }
}

/// Whether the run under `runs` has recorded its end.
fn ended(runs: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(runs) else {
        return false;
    };
    entries.flatten().any(|run| {
        std::fs::read(run.path().join("run-events.jsonl"))
            .is_ok_and(|r| r.windows(15).any(|w| w == b"\"loop_finished\""))
    })
}

fn pty() -> (OwnedFd, OwnedFd) {
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize {
        ws_row: ROWS,
        ws_col: COLUMNS,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: the out-pointers are to live locals; the fds are ours once it succeeds.
    let got = unsafe {
        libc::openpty(
            &raw mut master,
            &raw mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &raw const size,
        )
    };
    assert_eq!(got, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: openpty just opened both.
    unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let rounds = env_number("BENCH_ROUNDS", 3).max(1);
    let bench = Bench::new();
    let size = std::fs::metadata(&bench.stream).expect("stream").len();
    println!(
        "stream: {:.1} MB of pi events, {rounds} round(s)",
        size as f64 / 1e6
    );
    let (mut json_cpu, mut tui_cpu) = (Vec::new(), Vec::new());
    let (mut json_rss, mut tui_rss, mut drawn) = (0, 0, 0);
    for _ in 0..rounds {
        let json = bench.json();
        let (tui, bytes) = bench.tui();
        json_cpu.push(json.cpu);
        tui_cpu.push(tui.cpu);
        json_rss = json_rss.max(json.max_rss_kb);
        tui_rss = tui_rss.max(tui.max_rss_kb);
        drawn = bytes;
    }
    let (json, tui) = (median(json_cpu), median(tui_cpu));
    let ratio = tui.as_secs_f64() / json.as_secs_f64();
    println!(
        "--output json: cpu {json:.2?}, max rss {} MB",
        json_rss / 1024
    );
    println!(
        "--tui:         cpu {tui:.2?}, max rss {} MB, {:.1} MB drawn to the terminal",
        tui_rss / 1024,
        drawn as f64 / 1e6
    );
    println!(
        "cpu ratio tui/json: {ratio:.2} (budget {CPU_RATIO_BUDGET}); rss {} (budget {} MB)",
        if tui_rss < RSS_BUDGET_KB {
            "within"
        } else {
            "OVER"
        },
        RSS_BUDGET_KB / 1024
    );
}
