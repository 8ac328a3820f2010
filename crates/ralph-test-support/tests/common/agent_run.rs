//! Running a real agent CLI with a timeout and reading its JSON-lines stdout.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

/// Generous: a run against the mock takes a few seconds; this only stops a hang.
const AGENT_TIMEOUT: Duration = Duration::from_secs(120);

/// Runs `command` with stdin at EOF (pi blocks on an open stdin pipe) and waits for it, reading
/// its output as it comes (pi's json lines fill a pipe buffer quickly).
pub(crate) fn run(mut command: Command) -> Output {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = command.spawn().expect("the agent starts");
    ralph_test_support::wait_output(child, AGENT_TIMEOUT)
}

/// Every stdout line parsed as JSON.
pub(crate) fn json_lines(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|error| {
                panic!(
                    "stdout line is not JSON ({error}): {line}\nstderr:\n{}",
                    stderr(output)
                )
            })
        })
        .collect()
}

pub(crate) fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A fresh directory under `root` for the agent to work in.
pub(crate) fn workdir(root: &Path) -> std::path::PathBuf {
    let dir = root.join("work");
    std::fs::create_dir_all(&dir).expect("the work dir is created");
    dir
}

/// The real agent `name`, `None` when real-agent tests are skipped; panics with the install
/// instructions when it is missing (a test returning the error would only show its Debug form).
pub(crate) fn require_agent(name: &str) -> Option<std::path::PathBuf> {
    ralph_test_support::real_agent(name).unwrap_or_else(|error| panic!("{error}"))
}
