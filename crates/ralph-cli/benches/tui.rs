//! What the full-screen view costs on the 200 MB snapshot-shaped pi stream (the issue's
//! bounds: ralph under 64 MB resident, and its CPU time within 3× that of the
//! `--output json` run of the same stream).
//!
//! In the same rounds, alternating: `ralph run --output json` with stdout to null, and
//! `ralph run --tui` in a real terminal (a tmux window of this benchmark's own server), each
//! measured by this benchmark as the process that waits for ralph (wait4: CPU time and peak
//! RSS of ralph and the agent's `cat`). The view stays up after the loop ends until `q`,
//! which the benchmark types once the screen says so; the wait for that is idle time, not
//! CPU. Prints the medians and the ratio to the json run; asserts nothing about time.
//!
//! Run: `cargo bench -p ralph-cli --bench tui` (`BENCH_ROUNDS`, default 3). Needs tmux
//! (scripts/test.sh installs it); without it the benchmark says so and measures nothing.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use support::{Measured, REPLAYING_PI, env_number, fake_pi, median, quiet_command, run_measured};

/// The bounds, printed beside the figures.
const MAX_RSS_MB: f64 = 64.0;
const MAX_CPU_RATIO: f64 = 3.0;

/// The longest one run may take before the benchmark gives up on it.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);
/// How often the terminal's screen is read while waiting.
const POLL: Duration = Duration::from_millis(50);

/// Set to a file, this benchmark runs the rest of its arguments as a child, measures it
/// and writes `<exit code> <peak RSS KiB> <CPU µs>` there: the measuring wrapper inside
/// the terminal, whose stdio the child inherits.
const MEASURE_TO: &str = "RALPH_BENCH_MEASURE_TO";

fn measure_and_report(to: &Path) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (program, rest) = args.split_first().expect("a command to measure");
    let m = run_measured(Command::new(program).args(rest));
    let line = format!(
        "{} {} {}\n",
        m.code.unwrap_or(-1),
        m.max_rss_kib,
        m.cpu.as_micros()
    );
    std::fs::write(to, line).expect("write the measurement");
}

struct Bench {
    dir: tempfile::TempDir,
    path: std::ffi::OsString,
    stream: PathBuf,
}

impl Bench {
    fn ralph() -> &'static Path {
        Path::new(env!("CARGO_BIN_EXE_ralph"))
    }

    fn fresh_workspace(&self) {
        let _ = std::fs::remove_dir_all(self.dir.path().join("work/.ralph"));
    }

    fn json(&self) -> Measured {
        self.fresh_workspace();
        let m = run_measured(
            quiet_command(Self::ralph(), self.dir.path(), &self.path, &self.stream)
                .args(["run", "--output", "json", "-p", "x"]),
        );
        assert!(matches!(m.code, Some(0 | 2)), "json run: {:?}", m.code);
        m
    }

    /// `ralph run --tui` in a tmux window; `q` once the loop has ended.
    fn tui(&self) -> Measured {
        self.fresh_workspace();
        let report = self.dir.path().join("tui.measured");
        let _ = std::fs::remove_file(&report);
        let socket = self.dir.path().join("tmux.sock");
        let tmux = |args: &[&str]| {
            Command::new("tmux")
                .arg("-S")
                .arg(&socket)
                .args(args)
                .env_remove("TMUX")
                .env("PATH", &self.path)
                .env("BENCH_STREAM", &self.stream)
                .env("HOME", self.dir.path())
                .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
                .env("XDG_CACHE_HOME", self.dir.path().join("cache"))
                .env(MEASURE_TO, &report)
                .current_dir(self.dir.path().join("work"))
                .output()
                .expect("tmux")
        };
        let me = std::env::current_exe().expect("this benchmark");
        let started = tmux(&[
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "40",
            &me.display().to_string(),
            &Self::ralph().display().to_string(),
            "run",
            "--tui",
            "-p",
            "x",
        ]);
        assert!(started.status.success(), "tmux new-session");
        let deadline = Instant::now() + RUN_TIMEOUT;
        loop {
            let screen = tmux(&["capture-pane", "-p"]);
            if String::from_utf8_lossy(&screen.stdout).contains("the loop has ended") {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the loop never ended in the view"
            );
            std::thread::sleep(POLL);
        }
        tmux(&["send-keys", "q"]);
        while !report.exists() {
            assert!(Instant::now() < deadline, "the view never quit");
            std::thread::sleep(POLL);
        }
        let _ = tmux(&["kill-server"]);
        let text = std::fs::read_to_string(&report).expect("the measurement");
        let fields: Vec<i64> = text
            .split_whitespace()
            .map(|f| f.parse().expect("a number"))
            .collect();
        assert!(matches!(fields[0], 0 | 2), "tui run: exit {}", fields[0]);
        Measured {
            code: i32::try_from(fields[0]).ok(),
            max_rss_kib: fields[1],
            cpu: Duration::from_micros(u64::try_from(fields[2]).unwrap_or(0)),
        }
    }
}

fn main() {
    if support::generating() {
        return;
    }
    if let Some(to) = std::env::var_os(MEASURE_TO) {
        measure_and_report(Path::new(&to));
        return;
    }
    if Command::new("tmux").arg("-V").output().is_err() {
        println!("tui bench: tmux is not installed; nothing measured");
        return;
    }
    let rounds = env_number("BENCH_ROUNDS", 3).max(1) as usize;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = fake_pi(dir.path(), REPLAYING_PI);
    std::fs::create_dir(dir.path().join("work")).expect("work dir");
    std::fs::write(
        dir.path().join("work/ralph.yml"),
        "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 1\n",
    )
    .expect("ralph.yml");
    let stream = support::large_pi_stream(dir.path());
    let raw = std::fs::metadata(&stream).expect("the stream").len();
    let bench = Bench { dir, path, stream };

    let (mut json_cpu, mut tui_cpu, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let (mut json_rss, mut tui_rss) = (0, 0);
    for _ in 0..rounds {
        let json = bench.json();
        let tui = bench.tui();
        json_rss = json.max_rss_kib.max(json_rss);
        tui_rss = tui.max_rss_kib.max(tui_rss);
        json_cpu.push(json.cpu.as_secs_f64());
        tui_cpu.push(tui.cpu.as_secs_f64());
        ratios.push(tui.cpu.as_secs_f64() / json.cpu.as_secs_f64().max(f64::EPSILON));
    }
    let mb = |kib: i64| kib as f64 / 1024.0;
    println!(
        "stream: {:.1} MB of pi output, {rounds} rounds, medians",
        raw as f64 / 1e6
    );
    println!(
        "  ralph run --output json   CPU {:>6.3}s  peak RSS {:>5.1} MB",
        median(json_cpu),
        mb(json_rss)
    );
    println!(
        "  ralph run --tui           CPU {:>6.3}s  peak RSS {:>5.1} MB (bound {MAX_RSS_MB} MB)",
        median(tui_cpu),
        mb(tui_rss)
    );
    println!(
        "  CPU, tui / json           {:.2}× (median of the rounds' ratios; bound {MAX_CPU_RATIO}×)",
        median(ratios)
    );
}
