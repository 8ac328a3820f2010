//! Waiting for a child process in tests: bounded, with its pipes drained concurrently.

use std::io::Read;
use std::process::Child;
use std::process::Output;
use std::time::Duration;
use std::time::Instant;

/// How often the child is checked while waiting.
const POLL: Duration = Duration::from_millis(10);

/// Waits for `child`, collecting its stdout and stderr as they come (so a full pipe never
/// blocks it). Kills it and panics, with its stderr, when it runs longer than `timeout`: a
/// broken run fails the test instead of hanging it.
pub fn wait_output(mut child: Child, timeout: Duration) -> Output {
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the process did not finish within {timeout:?}\nstderr:\n{}",
                String::from_utf8_lossy(&stderr.join().unwrap_or_default())
            );
        }
        std::thread::sleep(POLL);
    };
    Output {
        status,
        stdout: stdout.join().expect("stdout reader"),
        stderr: stderr.join().expect("stderr reader"),
    }
}

/// The one JSON value a successful command printed; fails the test with its stderr when it
/// did not succeed.
pub fn success_json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}
