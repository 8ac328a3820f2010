//! What the `ralph` benchmarks share: a fake `pi` on `PATH` and their settings.
#![allow(dead_code, reason = "each benchmark uses the part it needs")]

use std::ffi::OsString;
use std::path::Path;

/// A numeric setting from the environment (`BENCH_ITERATIONS`, …), or `default`.
pub(crate) fn env_number(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A fake `pi` that answers `--version` and otherwise replays `$BENCH_STREAM` as its
/// output.
pub(crate) const REPLAYING_PI: &str = r#"#!/bin/sh
[ "$1" = "--version" ] && { echo "0.0.0-bench"; exit 0; }
exec cat "$BENCH_STREAM"
"#;

/// The middle value of `v` (the upper one of the two middles for an even count).
pub(crate) fn median<T: PartialOrd>(mut v: Vec<T>) -> T {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    v.swap_remove(v.len() / 2)
}

/// Installs `script` as an executable `pi` in `dir/bin`, and returns a `PATH` that finds
/// it first.
pub(crate) fn fake_pi(dir: &Path, script: &str) -> OsString {
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).expect("bin dir");
    let agent = bin.join("pi");
    std::fs::write(&agent, script).expect("fake agent");
    let mut perms = std::fs::metadata(&agent).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&agent, perms).expect("chmod");
    let mut dirs = vec![bin];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).expect("PATH")
}

/// `program` run in `dir/work` with the fake agent's `PATH`, the stream it replays, a
/// private home and caches under `dir`, and no terminal: every stream is null, so the
/// figures measure ralph and the agent, not a reader.
pub(crate) fn quiet_command(
    program: &Path,
    dir: &Path,
    path: &OsString,
    stream: &Path,
) -> std::process::Command {
    use std::process::Stdio;
    let mut cmd = std::process::Command::new(program);
    cmd.current_dir(dir.join("work"))
        .env("PATH", path)
        .env("BENCH_STREAM", stream)
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// How a measured child ended and what it used (its own figures and those of the children
/// it waited for, from wait4).
pub(crate) struct Measured {
    pub(crate) code: Option<i32>,
    /// Peak resident memory, KiB: the largest of it and its waited-for children.
    pub(crate) max_rss_kib: i64,
    /// User plus system CPU time.
    pub(crate) cpu: std::time::Duration,
}

/// Runs `cmd` to its end and measures it (see [`Measured`]).
#[expect(
    clippy::zombie_processes,
    reason = "wait4 reaps the child: Child::wait would lose its rusage"
)]
pub(crate) fn run_measured(cmd: &mut std::process::Command) -> Measured {
    let child = cmd.spawn().expect("spawn");
    let pid = i32::try_from(child.id()).expect("pid");
    let mut status = 0;
    // SAFETY: wait4 fills the zeroed struct and the status it is given, for our child.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        let waited = libc::wait4(pid, &mut status, 0, &mut usage);
        assert_eq!(waited, pid, "wait4");
        usage
    };
    let time = |t: libc::timeval| {
        std::time::Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + std::time::Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    Measured {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        max_rss_kib: usage.ru_maxrss,
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
    }
}

/// Set to a path, a benchmark only writes the large pi stream there and exits: the stream
/// is generated in a process of its own, so that the children the benchmark starts (which
/// share its memory until they exec) do not inherit its peak in their max RSS.
const GENERATE_TO: &str = "RALPH_BENCH_GENERATE_TO";

/// Call first in `main`: true when this process was started only to generate the stream
/// (it has, and must exit).
pub(crate) fn generating() -> bool {
    use std::io::Write;
    let Some(path) = std::env::var_os(GENERATE_TO) else {
        return false;
    };
    let generated =
        ralph_test_support::streamgen::pi_stream(&ralph_test_support::streamgen::PiSpec::large());
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).expect("stream"));
    w.write_all(&generated.bytes).expect("write stream");
    w.flush().expect("flush stream");
    true
}

/// The 200 MB snapshot-shaped pi stream, written to `dir/pi-large.jsonl` by a child
/// process of this benchmark (see [`generating`]).
pub(crate) fn large_pi_stream(dir: &Path) -> std::path::PathBuf {
    let stream = dir.join("pi-large.jsonl");
    let status = std::process::Command::new(std::env::current_exe().expect("this benchmark"))
        .env(GENERATE_TO, &stream)
        .status()
        .expect("generate the stream");
    assert!(status.success(), "generating the stream failed");
    stream
}
