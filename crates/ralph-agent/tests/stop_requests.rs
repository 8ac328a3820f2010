//! Stop requests from the caller: graceful (Ctrl-C), immediate (second Ctrl-C), from the
//! sink (limits), and before the run even started.

mod common;

use std::time::{Duration, Instant};

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

/// After the first Ctrl-C, when the second one comes: the agent has exited by then, and
/// the teardown waits on what it left.
const SECOND_INTERRUPT_AFTER: Duration = Duration::from_secs(1);

#[tokio::test]
async fn second_interrupt_after_the_agent_exited_kills_what_it_left_at_once() {
    let out = tempfile::tempdir().unwrap();
    /// Presses Ctrl-C at the first output, and again [`SECOND_INTERRUPT_AFTER`] later.
    struct InterruptTwice(Option<StopController>);
    impl OutputSink for InterruptTwice {
        fn on_stdout(&mut self, _bytes: &[u8]) -> Flow {
            if let Some(controller) = self.0.take() {
                controller.interrupt(Instant::now());
                tokio::spawn(async move {
                    tokio::time::sleep(SECOND_INTERRUPT_AFTER).await;
                    controller.interrupt(Instant::now());
                });
            }
            Flow::Continue
        }
    }
    // The agent dies of SIGTERM; the child it leaves ignores it.
    let script = r#"sh -c 'trap "" TERM; echo $$ > "$FAKE_OUT/g.tmp"; mv "$FAKE_OUT/g.tmp" "$FAKE_OUT/g.pid"; exec sleep 60' &
        while [ ! -s "$FAKE_OUT/g.pid" ]; do sleep 0.01; done; echo started; wait"#;
    let spec = SpawnSpec::new("sh")
        .args(["-c", script])
        .env("FAKE_OUT", out.path());
    let kill_grace = Duration::from_secs(30);
    let deadlines = RunDeadlines {
        kill_grace,
        ..short()
    };
    let started = Instant::now();
    let outcome = run_with_controller(spec, deadlines, |c| InterruptTwice(Some(c))).await;
    let took = started.elapsed();
    assert_interrupted_by(&outcome, libc::SIGTERM);
    assert!(took < kill_grace / 3, "the second Ctrl-C waited: {took:?}");
    assert_pid_gone(read_pid_file(&out.path().join("g.pid")).await);
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
