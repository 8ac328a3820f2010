//! Supervisor benchmark: throughput against a plain pipe, and spawn+teardown cost.
//!
//! 1. Generates a 200 MB JSON-lines file with non-ASCII text under the target dir (once).
//! 2. Times `sh -c 'cat FILE | cat >/dev/null'` (the pipe's own speed) and
//!    `run(cat FILE)` with a byte-counting sink, in the same process, alternating, and
//!    prints the medians and their ratio.
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
    Deadlines, Flow, OutputSink, SpawnSpec, StopRequests, Termination, run,
};

const INPUT_BYTES: u64 = 200 * 1000 * 1000;
const THROUGHPUT_ROUNDS: usize = 5;
const SPAWN_ROUNDS: u32 = 300;

struct CountBytes(u64);

impl OutputSink for CountBytes {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        self.0 += bytes.len() as u64;
        Flow::Continue
    }
}

fn input_file() -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("supervise-bench-200mb.jsonl");
    if std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) >= INPUT_BYTES {
        return path;
    }
    let file = std::fs::File::create(&path).expect("create bench input");
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut written = 0u64;
    let mut i = 0u64;
    while written < INPUT_BYTES {
        let line = format!(
            "{{\"type\":\"message_update\",\"assistantMessageEvent\":{{\"type\":\"text_delta\",\"delta\":\"héllo → 世界 🎉 日本語テキスト {i} lorem ipsum dolor sit amet, consectetur adipiscing elit\"}},\"n\":{i}}}\n"
        );
        w.write_all(line.as_bytes()).expect("write bench input");
        written += line.len() as u64;
        i += 1;
    }
    w.flush().expect("flush bench input");
    path
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

fn deadlines() -> Deadlines {
    Deadlines {
        wall: Some(Duration::from_secs(120)),
        ..Deadlines::none()
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

/// Records, per line, how long after its write (the timestamp in the line) it arrived.
#[derive(Default)]
struct Lag {
    pending: Vec<u8>,
    lags: Vec<Duration>,
}

impl OutputSink for Lag {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        self.pending.extend_from_slice(bytes);
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            if let Some(ns) = std::str::from_utf8(&line)
                .ok()
                .and_then(|l| l.trim().parse::<u64>().ok())
            {
                self.lags.push(now.saturating_sub(Duration::from_nanos(ns)));
            }
        }
        Flow::Continue
    }
}

fn line_latency(rt: &tokio::runtime::Runtime) {
    let script = format!(
        "import sys, time\nfor _ in range({LATENCY_LINES}):\n    time.sleep(0.1)\n    sys.stdout.write(str(time.time_ns()) + '\\n')\n    sys.stdout.flush()\n"
    );
    let spec = SpawnSpec::new("python3").args(["-c", script.as_str()]);
    let mut sink = Lag::default();
    let outcome = rt.block_on(run(spec, deadlines(), &mut sink, StopRequests::never()));
    assert_eq!(outcome.termination, Termination::Exited { code: 0 });
    assert_eq!(sink.lags.len(), LATENCY_LINES, "lines lost");
    let worst = sink.lags.iter().max().copied().unwrap_or_default();
    println!(
        "line write -> sink latency: median {:.0} us, worst {:.0} us ({LATENCY_LINES} lines, 100 ms apart)",
        median(sink.lags.clone()).as_secs_f64() * 1e6,
        worst.as_secs_f64() * 1e6
    );
}

fn throughput(rt: &tokio::runtime::Runtime) {
    let file = input_file();
    let size = std::fs::metadata(&file).expect("bench input").len();
    println!("input: {} ({:.1} MB)", file.display(), size as f64 / 1e6);

    // Warm the page cache and both paths once.
    piped_cat(&file);
    rt.block_on(supervised_cat(&file, size));
    let mut pipe = Vec::new();
    let mut supervised = Vec::new();
    for _ in 0..THROUGHPUT_ROUNDS {
        pipe.push(piped_cat(&file));
        supervised.push(rt.block_on(supervised_cat(&file, size)));
    }
    let (pipe, supervised) = (median(pipe), median(supervised));
    let mbps = |d: Duration| size as f64 / 1e6 / d.as_secs_f64();
    println!(
        "cat FILE | cat >/dev/null : median {:>8.1} ms ({:.0} MB/s)",
        pipe.as_secs_f64() * 1e3,
        mbps(pipe)
    );
    println!(
        "ralph run(cat FILE), sink : median {:>8.1} ms ({:.0} MB/s)",
        supervised.as_secs_f64() * 1e3,
        mbps(supervised)
    );
    println!(
        "ratio supervised / pipe   : {:.2}",
        supervised.as_secs_f64() / pipe.as_secs_f64()
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
