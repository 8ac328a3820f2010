//! Running a real agent CLI with a timeout and reading its JSON-lines stdout.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Generous: a run against the mock takes a few seconds; this only stops a hang.
const AGENT_TIMEOUT: Duration = Duration::from_secs(120);
const POLL: Duration = Duration::from_millis(20);

/// Runs `command` with stdin at EOF (pi blocks on an open stdin pipe) and waits for it, reading
/// its output as it comes (pi's json lines fill a pipe buffer quickly).
pub(crate) fn run(mut command: Command) -> Output {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("the agent starts");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout is piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr is piped")));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting works") {
            break status;
        }
        if started.elapsed() > AGENT_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            let stdout = stdout.join().unwrap_or_default();
            panic!(
                "the agent did not finish within {AGENT_TIMEOUT:?}; stdout:\n{}",
                String::from_utf8_lossy(&stdout)
            );
        }
        std::thread::sleep(POLL);
    };
    Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
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
