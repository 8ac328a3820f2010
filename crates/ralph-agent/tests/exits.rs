//! Exit codes, signals, failures to start, and byte-exact output, large and small.

mod common;

use std::io::Write;
use std::time::Duration;

use common::*;
use ralph_agent::supervise::{ChildStatus, RunDeadlines, SpawnSpec, Termination};

#[tokio::test]
async fn replayed_transcript_reaches_the_sink_byte_for_byte() {
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("transcript.jsonl");
    let mut file = std::fs::File::create(&path).unwrap();
    let mut expected = Vec::new();
    for i in 0..20_000 {
        let line = format!("{{\"type\":\"message_update\",\"delta\":\"héllo → 世界 🎉 {i}\"}}\n");
        expected.extend_from_slice(line.as_bytes());
    }
    file.write_all(&expected).unwrap();
    drop(file);
    let mut sink = Collect::default();
    let spec = agent("replay.sh", out.path()).arg_path(&path);
    let outcome = supervise(spec, short(), &mut sink).await;
    assert_eq!(
        (
            outcome.termination,
            outcome.stdout_bytes,
            outcome.stdin_complete
        ),
        (Termination::Exited { code: 0 }, expected.len() as u64, true)
    );
    assert!(sink.stdout == expected, "replayed bytes differ");
}

#[tokio::test]
async fn non_zero_exit_is_reported_with_the_stderr_tail() {
    let out = tempfile::tempdir().unwrap();
    let mut sink = Collect::default();
    let spec = agent("exit-code.sh", out.path()).args(["7"]);
    let outcome = supervise(spec, short(), &mut sink).await;
    assert_eq!(
        (
            outcome.termination,
            outcome.child_status,
            outcome.stderr_tail.as_str(),
            outcome.stderr_bytes,
            sink.stdout.as_slice()
        ),
        (
            Termination::Exited { code: 7 },
            Some(ChildStatus::Code(7)),
            "something failed\n",
            17,
            b"out\n".as_slice()
        )
    );
}

#[tokio::test]
async fn crash_by_signal_is_reported_as_signaled() {
    let out = tempfile::tempdir().unwrap();
    let mut sink = Collect::default();
    let outcome = supervise(agent("crash.sh", out.path()), short(), &mut sink).await;
    assert_eq!(
        (
            outcome.termination,
            outcome.child_status,
            sink.stdout.as_slice()
        ),
        (
            Termination::Signaled {
                signal: libc::SIGUSR1
            },
            Some(ChildStatus::Signal(libc::SIGUSR1)),
            b"about to crash\n".as_slice()
        )
    );
}

#[tokio::test]
async fn missing_program_fails_to_start_with_a_useful_message() {
    let mut sink = Collect::default();
    let outcome = supervise(SpawnSpec::new("ralph-no-such-agent"), short(), &mut sink).await;
    let Termination::FailedToStart { error } = &outcome.termination else {
        panic!("expected FailedToStart, got {:?}", outcome.termination);
    };
    assert_eq!(
        (error.program.as_str(), error.kind, outcome.pid),
        ("ralph-no-such-agent", std::io::ErrorKind::NotFound, None)
    );
    assert!(error.to_string().contains("not found on PATH"), "{error}");
}

/// How long the 1 GiB flood may take before the test calls it hung.
const FLOOD_GUARD: Duration = Duration::from_secs(600);

#[tokio::test]
async fn one_gigabyte_flood_is_counted_without_loss() {
    let out = tempfile::tempdir().unwrap();
    let mut sink = CountZeros::default();
    let spec = agent("flood.sh", out.path()).args([(1u64 << 30).to_string()]);
    // The wall deadline is only a guard against a hang: this test is about losing no
    // byte, and a debug build on a busy 2-core machine has taken over 60 s for the GiB.
    let deadlines = RunDeadlines {
        wall: Some(FLOOD_GUARD),
        ..short()
    };
    let outcome = supervise(spec, deadlines, &mut sink).await;
    assert_eq!(
        (
            outcome.termination,
            sink.bytes,
            sink.non_zero,
            outcome.stdout_bytes
        ),
        (Termination::Exited { code: 0 }, 1 << 30, 0, 1 << 30)
    );
}
