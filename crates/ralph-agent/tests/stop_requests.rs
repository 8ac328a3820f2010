//! Stop requests from the caller: graceful (Ctrl-C), immediate (second Ctrl-C), from the
//! sink (limits), and before the run even started.

mod common;

use common::*;
use ralph_agent::supervise::{
    ChildStatus, Flow, OutputSink, StopController, StopLevel, Termination,
};

/// Requests a stop of `level` as soon as the agent has printed something.
struct StopOnFirstOutput {
    controller: StopController,
    level: StopLevel,
}

impl OutputSink for StopOnFirstOutput {
    fn on_stdout(&mut self, _bytes: &[u8]) -> Flow {
        self.controller.request(self.level);
        Flow::Continue
    }
}

#[tokio::test]
async fn graceful_stop_sends_sigterm_and_reports_interrupted() {
    let out = tempfile::tempdir().unwrap();
    let (controller, requests) = StopController::new();
    let mut sink = StopOnFirstOutput {
        controller,
        level: StopLevel::Graceful,
    };
    let outcome = supervise_with(
        agent("print-then-hang.sh", out.path()),
        short(),
        &mut sink,
        requests,
    )
    .await;
    assert_eq!(
        (outcome.termination.clone(), outcome.child_status),
        (
            Termination::Interrupted,
            Some(ChildStatus::Signal(libc::SIGTERM))
        )
    );
    assert_group_gone(pid_of(&outcome));
}

#[tokio::test]
async fn immediate_stop_sends_sigkill_at_once() {
    let out = tempfile::tempdir().unwrap();
    let (controller, requests) = StopController::new();
    let mut sink = StopOnFirstOutput {
        controller,
        level: StopLevel::Immediate,
    };
    // The agent would print "bye after term" on SIGTERM: with an immediate stop it never
    // gets the chance.
    let outcome = supervise_with(
        agent("term-says-bye.sh", out.path()),
        short(),
        &mut sink,
        requests,
    )
    .await;
    assert_eq!(
        (outcome.termination.clone(), outcome.child_status),
        (
            Termination::Interrupted,
            Some(ChildStatus::Signal(libc::SIGKILL))
        )
    );
    assert_group_gone(pid_of(&outcome));
}

#[tokio::test]
async fn second_interrupt_escalates_a_stop_the_agent_ignores() {
    let out = tempfile::tempdir().unwrap();
    let (controller, requests) = StopController::new();
    struct TwoInterrupts(StopController, usize);
    impl OutputSink for TwoInterrupts {
        fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
            self.1 += bytes.len();
            // First output: Ctrl-C. The agent ignores SIGTERM and keeps printing: Ctrl-C again.
            self.0.interrupt(std::time::Instant::now());
            Flow::Continue
        }
    }
    let mut sink = TwoInterrupts(controller, 0);
    let deadlines = ralph_agent::supervise::RunDeadlines {
        kill_grace: std::time::Duration::from_secs(30),
        ..short()
    };
    let spec = agent("slow-printer.sh", out.path()).args(["100000", "0.05"]);
    let spec = ralph_agent::supervise::SpawnSpec {
        program: "sh".into(),
        args: vec![
            "-c".into(),
            "trap '' TERM; exec \"$0\" \"$@\"".into(),
            spec.program,
        ]
        .into_iter()
        .chain(spec.args)
        .collect(),
        ..spec
    };
    let outcome = supervise_with(spec, deadlines, &mut sink, requests).await;
    assert_eq!(
        (outcome.termination.clone(), outcome.child_status),
        (
            Termination::Interrupted,
            Some(ChildStatus::Signal(libc::SIGKILL))
        )
    );
    assert_group_gone(pid_of(&outcome));
}

#[tokio::test]
async fn sink_stop_reports_stopped_by_caller() {
    let out = tempfile::tempdir().unwrap();
    struct StopNow;
    impl OutputSink for StopNow {
        fn on_stdout(&mut self, _bytes: &[u8]) -> Flow {
            Flow::Stop
        }
    }
    let outcome = supervise(
        agent("print-then-hang.sh", out.path()),
        short(),
        &mut StopNow,
    )
    .await;
    assert_eq!(
        (
            outcome.termination.clone(),
            outcome.termination.is_success()
        ),
        (Termination::StoppedByCaller, false)
    );
    assert_group_gone(pid_of(&outcome));
}

#[tokio::test]
async fn stop_requested_before_the_run_starts_nothing() {
    let out = tempfile::tempdir().unwrap();
    let (controller, requests) = StopController::new();
    controller.request(StopLevel::Graceful);
    let mut sink = Collect::default();
    let outcome = supervise_with(
        agent("print-then-hang.sh", out.path()),
        short(),
        &mut sink,
        requests,
    )
    .await;
    assert_eq!(
        (outcome.termination, outcome.pid, outcome.stdout_bytes),
        (Termination::Interrupted, None, 0)
    );
}
