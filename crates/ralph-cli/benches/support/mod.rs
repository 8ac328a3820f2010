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
