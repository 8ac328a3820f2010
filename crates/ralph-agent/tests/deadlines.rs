//! Each deadline fires when, and only when, it should, and is reported as itself.

mod common;

use std::time::Duration;

use common::*;
use ralph_agent::supervise::{ChildStatus, Flow, OutputSink, RunDeadlines, SpawnSpec, Termination};

const MS: Duration = Duration::from_millis(1);

#[tokio::test]
async fn silent_agent_hits_the_startup_deadline() {
    let out = tempfile::tempdir().unwrap();
    let deadlines = RunDeadlines {
        startup: Some(500 * MS),
        idle: Some(100 * MS),
        ..short()
    };
    let mut sink = Collect::default();
    let outcome = supervise(agent("never-print.sh", out.path()), deadlines, &mut sink).await;
    assert_eq!(
        (
            outcome.termination.clone(),
            outcome.child_status,
            outcome.time_to_first_byte
        ),
        (
            Termination::StartupTimeout,
            Some(ChildStatus::Signal(15)),
            None
        )
    );
    assert!(outcome.wall >= 500 * MS, "fired early: {:?}", outcome.wall);
    assert_group_gone(pid_of(&outcome));
}

#[tokio::test]
async fn agent_that_prints_then_hangs_hits_the_inactivity_deadline() {
    let out = tempfile::tempdir().unwrap();
    let deadlines = RunDeadlines {
        startup: Some(Duration::from_secs(20)),
        idle: Some(400 * MS),
        ..short()
    };
    let mut sink = Collect::default();
    let outcome = supervise(
        agent("print-then-hang.sh", out.path()),
        deadlines,
        &mut sink,
    )
    .await;
    assert_eq!(
        (
            outcome.termination.clone(),
            outcome.child_status,
            sink.stdout.as_slice()
        ),
        (
            Termination::IdleTimeout,
            Some(ChildStatus::Signal(15)),
            b"hello\n".as_slice()
        )
    );
    assert!(outcome.wall >= 400 * MS);
    assert_group_gone(pid_of(&outcome));
}

#[tokio::test]
async fn agent_that_prints_slowly_for_longer_than_the_inactivity_deadline_is_not_killed() {
    let out = tempfile::tempdir().unwrap();
    // 12 lines, 0.15 s apart: about 1.8 s in total, each gap far below the 1.2 s deadline.
    let deadlines = RunDeadlines {
        startup: Some(Duration::from_secs(20)),
        idle: Some(1200 * MS),
        ..short()
    };
    let spec = agent("slow-printer.sh", out.path()).args(["12", "0.15"]);
    let mut sink = Collect::default();
    let outcome = supervise(spec, deadlines, &mut sink).await;
    let expected: String = (1..=12).map(|i| format!("line {i}\n")).collect();
    assert_eq!(
        (
            outcome.termination,
            String::from_utf8_lossy(&sink.stdout).into_owned()
        ),
        (Termination::Exited { code: 0 }, expected)
    );
    assert!(
        outcome.wall > 1200 * MS,
        "the run must outlast the deadline to prove anything"
    );
}

#[tokio::test]
async fn wall_clock_deadline_stops_a_busy_agent() {
    let out = tempfile::tempdir().unwrap();
    // Prints every 0.05 s for far longer than the wall clock: never idle, always too long.
    let deadlines = RunDeadlines {
        idle: Some(Duration::from_secs(10)),
        wall: Some(700 * MS),
        ..short()
    };
    let spec = agent("slow-printer.sh", out.path()).args(["100000", "0.05"]);
    let mut sink = Collect::default();
    let outcome = supervise(spec, deadlines, &mut sink).await;
    assert_eq!(outcome.termination, Termination::WallClockTimeout);
    assert!(outcome.wall >= 700 * MS);
    assert!(sink.stdout.starts_with(b"line 1\n"));
    assert_group_gone(pid_of(&outcome));
}

/// Reports `Finished` when it sees the fake agent's `DONE` line.
#[derive(Default)]
struct FinishOnDone {
    stdout: Vec<u8>,
}

impl OutputSink for FinishOnDone {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        self.stdout.extend_from_slice(bytes);
        if self.stdout.ends_with(b"DONE\n") {
            Flow::Finished
        } else {
            Flow::Continue
        }
    }
}

#[tokio::test]
async fn finished_agent_that_does_not_exit_is_stopped_after_the_exit_grace_as_a_success() {
    let out = tempfile::tempdir().unwrap();
    let deadlines = RunDeadlines {
        idle: Some(Duration::from_secs(20)),
        exit_grace: 400 * MS,
        ..short()
    };
    let mut sink = FinishOnDone::default();
    let outcome = supervise(
        agent("finish-then-hang.sh", out.path()),
        deadlines,
        &mut sink,
    )
    .await;
    assert_eq!(
        (
            outcome.termination.clone(),
            outcome.termination.is_success(),
            sink.stdout.as_slice()
        ),
        (
            Termination::StoppedAfterFinish,
            true,
            b"working\nDONE\n".as_slice()
        )
    );
    assert!(outcome.wall >= 400 * MS);
    assert_group_gone(pid_of(&outcome));
}

#[tokio::test]
async fn finished_agent_that_exits_within_the_grace_reports_its_exit() {
    let out = tempfile::tempdir().unwrap();
    let deadlines = RunDeadlines {
        exit_grace: Duration::from_secs(20),
        ..short()
    };
    let mut sink = FinishOnDone::default();
    let outcome = supervise(
        agent("finish-then-exit.sh", out.path()),
        deadlines,
        &mut sink,
    )
    .await;
    assert_eq!(
        (outcome.termination, outcome.child_status),
        (Termination::Exited { code: 0 }, Some(ChildStatus::Code(0)))
    );
}

#[tokio::test]
async fn agent_that_closes_stdout_but_keeps_running_hits_the_inactivity_deadline() {
    let out = tempfile::tempdir().unwrap();
    let deadlines = RunDeadlines {
        idle: Some(500 * MS),
        ..short()
    };
    let mut sink = Collect::default();
    let outcome = supervise(agent("close-stdout.sh", out.path()), deadlines, &mut sink).await;
    assert_eq!(
        (outcome.termination.clone(), sink.stdout.as_slice()),
        (Termination::IdleTimeout, b"bye stdout\n".as_slice())
    );
    assert_group_gone(pid_of(&outcome));
}

#[tokio::test]
async fn no_deadline_fires_for_a_quick_agent() {
    let mut sink = Collect::default();
    let spec = SpawnSpec::new("sh").args(["-c", "echo quick"]);
    let deadlines = RunDeadlines {
        startup: Some(Duration::from_secs(20)),
        idle: Some(Duration::from_secs(20)),
        ..short()
    };
    let outcome = supervise(spec, deadlines, &mut sink).await;
    assert_eq!(
        (
            outcome.termination,
            sink.stdout.as_slice(),
            outcome.stdout_bytes
        ),
        (Termination::Exited { code: 0 }, b"quick\n".as_slice(), 6)
    );
}
