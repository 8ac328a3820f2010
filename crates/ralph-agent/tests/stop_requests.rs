//! Stop requests from the caller: graceful (Ctrl-C), immediate (second Ctrl-C), from the
//! sink (limits), and before the run even started.

mod common;

use common::*;
use ralph_agent::supervise::{
    ChildStatus, Flow, OutputSink, ProcessOutcome, RunDeadlines, SpawnSpec, StopController,
    StopLevel, Termination,
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

/// Runs `spec` with a sink that `sink` builds around the controller of the run's stop
/// requests.
async fn run_with_controller<S: OutputSink>(
    spec: SpawnSpec,
    deadlines: RunDeadlines,
    sink: impl FnOnce(StopController) -> S,
) -> ProcessOutcome {
    let (controller, requests) = StopController::new();
    supervise_with(spec, deadlines, &mut sink(controller), requests).await
}

/// Asserts that a stop request ended the run, that `signal` ended the agent, and that
/// nothing of its group is left.
fn assert_interrupted_by(outcome: &ProcessOutcome, signal: i32) {
    assert_eq!(
        (outcome.termination.clone(), outcome.child_status),
        (Termination::Interrupted, Some(ChildStatus::Signal(signal)))
    );
    assert_group_gone(pid_of(outcome));
}

/// Runs the fake agent `script` and requests a stop of `level` at its first output.
async fn stop_at_first_output(script: &str, level: StopLevel) -> ProcessOutcome {
    let out = tempfile::tempdir().unwrap();
    let spec = agent(script, out.path());
    run_with_controller(spec, short(), |controller| StopOnFirstOutput {
        controller,
        level,
    })
    .await
}

#[tokio::test]
async fn graceful_stop_sends_sigterm_and_reports_interrupted() {
    let outcome = stop_at_first_output("print-then-hang.sh", StopLevel::Graceful).await;
    assert_interrupted_by(&outcome, libc::SIGTERM);
}

#[tokio::test]
async fn immediate_stop_sends_sigkill_at_once() {
    // The agent would print "bye after term" on SIGTERM: with an immediate stop it never
    // gets the chance.
    let outcome = stop_at_first_output("term-says-bye.sh", StopLevel::Immediate).await;
    assert_interrupted_by(&outcome, libc::SIGKILL);
}

#[tokio::test]
async fn second_interrupt_escalates_a_stop_the_agent_ignores() {
    let out = tempfile::tempdir().unwrap();
    /// Presses Ctrl-C on every chunk of output.
    struct InterruptOnOutput(StopController);
    impl OutputSink for InterruptOnOutput {
        fn on_stdout(&mut self, _bytes: &[u8]) -> Flow {
            // First output: Ctrl-C. The agent ignores SIGTERM and keeps printing: Ctrl-C again.
            self.0.interrupt(std::time::Instant::now());
            Flow::Continue
        }
    }
    let deadlines = RunDeadlines {
        kill_grace: std::time::Duration::from_secs(30),
        ..short()
    };
    let spec = agent("slow-printer.sh", out.path()).args(["100000", "0.05"]);
    let spec = SpawnSpec {
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
    let outcome = run_with_controller(spec, deadlines, InterruptOnOutput).await;
    assert_interrupted_by(&outcome, libc::SIGKILL);
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
