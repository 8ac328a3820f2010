//! Supervisor benchmark: throughput against a plain pipe, and spawn+teardown cost.
//!
//! 1. Generates a ~200 MB pi stream of the snapshot shape (non-ASCII text, thousands of
//!    deltas per message) under the target dir (once).
//! 2. Times `sh -c 'cat FILE | cat >/dev/null'` (the pipe's own speed), `run(cat FILE)`
//!    with a byte-counting sink, and `run_agent(cat FILE)` — the real path: supervision,
//!    parsing and the session summary — in the same process, alternating, and prints the
//!    medians and their ratios against the pipe. The parsed run is checked for loss:
//!    every text delta and every turn's cost must be accounted for. Peak memory of the
//!    parsed runs is read from VmHWM after resetting it.
//! 3. Supervises an agent that writes one timestamped line every 100 ms and prints how
//!    late each line reached the sink (the supervisor's share of streaming latency).
//! 4. Supervises `true` many times and prints ralph's own CPU time (user + system of
//!    this process, from getrusage) and wall time per spawn+teardown, in microseconds.
//!
//! Run with `cargo bench -p ralph-agent --bench supervise`; set `SUPERVISE_BENCH=spawn` to
//! measure only spawn+teardown (e.g. under a profiler).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ralph_agent::supervise::{
    Flow, OutputSink, RunDeadlines, SpawnSpec, StopRequests, Termination, run,
};
use ralph_agent::{Control, run_agent};
use ralph_stream::{AgentEvent, StreamFormat};
use ralph_test_support::streamgen;

const THROUGHPUT_ROUNDS: usize = 5;
const SPAWN_ROUNDS: u32 = 300;

struct CountBytes(u64);

impl OutputSink for CountBytes {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        self.0 += bytes.len() as u64;
        Flow::Continue
    }
}

/// The generated stream on disk, and what a parser must find in it.
fn input_file() -> (PathBuf, streamgen::Expect) {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("supervise-bench-pi-large.jsonl");
    let generated = streamgen::pi_stream(&streamgen::PiSpec::large());
    if std::fs::metadata(&path).map(|m| m.len()).ok() != Some(generated.bytes.len() as u64) {
        let file = std::fs::File::create(&path).expect("create bench input");
        let mut w = BufWriter::with_capacity(1 << 20, file);
        w.write_all(&generated.bytes).expect("write bench input");
        w.flush().expect("flush bench input");
    }
    (path, generated.expect)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn cpu_time() -> Duration {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

fn deadlines() -> RunDeadlines {
    RunDeadlines {
        wall: Some(Duration::from_secs(120)),
        ..RunDeadlines::none()
    }
}

async fn supervised_cat(file: &Path, size: u64) -> Duration {
    let start = Instant::now();
    let mut sink = CountBytes(0);
    let spec = SpawnSpec::new("cat").args([file.as_os_str()]);
    let outcome = run(spec, deadlines(), &mut sink, StopRequests::never()).await;
    let took = start.elapsed();
    assert_eq!(outcome.termination, Termination::Exited { code: 0 });
    assert_eq!(sink.0, size, "bytes lost");
    took
}

/// The real path: supervised, parsed, summarized; checked for loss.
async fn parsed_cat(file: &Path, expect: &streamgen::Expect) -> Duration {
    let start = Instant::now();
    let mut text = String::with_capacity(expect.text.len());
    let mut deltas = 0usize;
    let spec = SpawnSpec::new("cat").args([file.as_os_str()]);
    let run = run_agent(
        spec,
        StreamFormat::Pi,
        deadlines(),
        StopRequests::never(),
        |event, _| {
            if let AgentEvent::TextDelta { text: t } = event {
                text.push_str(t);
                deltas += 1;
            }
            Control::Continue
        },
    )
    .await;
    let took = start.elapsed();
    assert_eq!(run.outcome.termination, Termination::Exited { code: 0 });
    assert_eq!(deltas, expect.text_deltas, "text deltas lost");
    assert!(text == expect.text, "text lost or changed");
    assert_eq!(run.summary.turns, expect.turns, "turns lost");
    let cost = run.summary.cost_usd.expect("cost");
    assert!(
        (cost - expect.cost_usd).abs() < 1e-9,
        "cost lost: {cost} vs {}",
        expect.cost_usd
    );
    took
}

/// Resets the peak-RSS counter (VmHWM), so the next reading covers only what follows.
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn peak_rss_mib() -> f64 {
    let kib: f64 = std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(f64::NAN);
    kib / 1024.0
}

fn piped_cat(file: &Path) -> Duration {
    let start = Instant::now();
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg("cat \"$0\" | cat >/dev/null")
        .arg(file)
        .status()
        .expect("run sh");
    assert!(status.success());
    start.elapsed()
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    if std::env::var_os("SUPERVISE_BENCH").is_none_or(|v| v != "spawn") {
        throughput(&rt);
    }
    line_latency(&rt);
    spawn_teardown(&rt);
}

const LATENCY_LINES: usize = 20;

/// A fake pi that writes one `text_delta` event every 100 ms, carrying its write time;
/// records how long after the write each delta reached the event callback through the
/// whole path (pipe, supervisor, framing, parser).
fn line_latency(rt: &tokio::runtime::Runtime) {
    let script = format!(
        "import sys, time\nfor _ in range({LATENCY_LINES}):\n    time.sleep(0.1)\n    sys.stdout.write('{{\"type\":\"message_update\",\"assistantMessageEvent\":{{\"type\":\"text_delta\",\"delta\":\"%d\"}}}}\\n' % time.time_ns())\n    sys.stdout.flush()\n"
    );
    let spec = SpawnSpec::new("python3").args(["-c", script.as_str()]);
    let mut lags = Vec::new();
    let run = rt.block_on(run_agent(
        spec,
        StreamFormat::Pi,
        deadlines(),
        StopRequests::never(),
        |event, _| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            if let AgentEvent::TextDelta { text } = event
                && let Ok(ns) = text.parse::<u64>()
            {
                lags.push(now.saturating_sub(Duration::from_nanos(ns)));
            }
            Control::Continue
        },
    ));
    assert_eq!(run.outcome.termination, Termination::Exited { code: 0 });
    assert_eq!(lags.len(), LATENCY_LINES, "deltas lost");
    let worst = lags.iter().max().copied().unwrap_or_default();
    println!(
        "delta write -> event callback: median {:.0} us, worst {:.0} us ({LATENCY_LINES} deltas, 100 ms apart)",
        median(lags.clone()).as_secs_f64() * 1e6,
        worst.as_secs_f64() * 1e6
    );
}

fn throughput(rt: &tokio::runtime::Runtime) {
    let (file, expect) = input_file();
    let size = std::fs::metadata(&file).expect("bench input").len();
    println!(
        "input: {} ({:.1} MB pi stream)",
        file.display(),
        size as f64 / 1e6
    );

    // Warm the page cache and every path once.
    piped_cat(&file);
    rt.block_on(supervised_cat(&file, size));
    rt.block_on(parsed_cat(&file, &expect));
    let (mut pipe, mut supervised, mut parsed) = (Vec::new(), Vec::new(), Vec::new());
    let mut peak = 0f64;
    for _ in 0..THROUGHPUT_ROUNDS {
        pipe.push(piped_cat(&file));
        supervised.push(rt.block_on(supervised_cat(&file, size)));
        reset_peak_rss();
        parsed.push(rt.block_on(parsed_cat(&file, &expect)));
        peak = peak.max(peak_rss_mib());
    }
    let (pipe, supervised, parsed) = (median(pipe), median(supervised), median(parsed));
    let mbps = |d: Duration| size as f64 / 1e6 / d.as_secs_f64();
    let row = |name: &str, d: Duration| {
        println!(
            "{name:<34}: median {:>8.1} ms ({:>5.0} MB/s), ratio to the pipe {:.2}",
            d.as_secs_f64() * 1e3,
            mbps(d),
            d.as_secs_f64() / pipe.as_secs_f64()
        )
    };
    row("cat FILE | cat >/dev/null", pipe);
    row("supervised cat, byte sink", supervised);
    row("supervised cat, parsed+summarized", parsed);
    println!(
        "peak RSS during a parsed run      : {peak:.1} MiB (nothing lost: every delta, turn and cost checked)"
    );
}

fn spawn_teardown(rt: &tokio::runtime::Runtime) {
    rt.block_on(async {
        let spec = SpawnSpec::new("true");
        run(spec, deadlines(), &mut CountBytes(0), StopRequests::never()).await;
    });
    let cpu0 = cpu_time();
    let wall0 = Instant::now();
    for _ in 0..SPAWN_ROUNDS {
        let outcome = rt.block_on(run(
            SpawnSpec::new("true"),
            deadlines(),
            &mut CountBytes(0),
            StopRequests::never(),
        ));
        assert_eq!(outcome.termination, Termination::Exited { code: 0 });
    }
    let cpu = (cpu_time() - cpu0) / SPAWN_ROUNDS;
    let wall = wall0.elapsed() / SPAWN_ROUNDS;
    println!(
        "spawn+teardown of `true`  : {:.0} us of ralph CPU, {:.0} us wall (mean of {SPAWN_ROUNDS})",
        cpu.as_secs_f64() * 1e6,
        wall.as_secs_f64() * 1e6
    );
    // VmHWM, not getrusage's ru_maxrss: the latter keeps the peak of the process image
    // before exec (cargo's own, under `cargo bench`).
    let hwm_kib: f64 = std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(f64::NAN);
    println!("peak RSS of this process  : {:.1} MiB", hwm_kib / 1024.0);
}
