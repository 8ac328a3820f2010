//! A live stdin on a real child (`rpc-echo.sh` answers each line it reads): frames are
//! written in order while its output is read, the input ends when the child reports the end
//! of its turn, the abort command goes before the signals, nothing hangs when the child
//! exits with its stdin still open, and the input is closed when the run is over.

mod common;

use std::time::Duration;

use common::{assert_group_gone, fake, pid_of, short, supervise, supervise_with};
use ralph_agent::supervise::{
    ABORT_GRACE, Flow, LiveStdin, OutputSink, SpawnSpec, StdinSource, StopController, StopLevel,
    StopRequests, Termination,
};

/// Collects the output; at `got ask` queues a steering line, at `STOP` asks for a stop, at
/// `DONE` reports the end of the turn.
struct Turns {
    input: LiveStdin,
    stdout: String,
    steered: bool,
}

impl OutputSink for Turns {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        self.stdout.push_str(&String::from_utf8_lossy(bytes));
        if self.stdout.contains("got ask\n") && !self.steered {
            self.steered = true;
            assert!(self.input.send(b"steer\n".to_vec()));
        }
        if self.stdout.contains("got STOP\n") && !self.stdout.contains("aborted") {
            return Flow::Stop;
        }
        if self.stdout.ends_with("DONE\n") || self.stdout.contains("got done\n") {
            return Flow::Finished;
        }
        Flow::Continue
    }
}

fn echo(input: &LiveStdin) -> SpawnSpec {
    SpawnSpec::new(fake("rpc-echo.sh")).stdin(StdinSource::Live(input.clone()))
}

fn turns(input: &LiveStdin) -> Turns {
    Turns {
        input: input.clone(),
        stdout: String::new(),
        steered: false,
    }
}

#[tokio::test]
async fn frames_are_written_in_order_and_the_end_of_the_turn_closes_stdin() {
    let input = LiveStdin::new(Some(b"abort\n".to_vec()));
    for frame in ["ask\n", "done\n"] {
        assert!(input.send(frame.as_bytes().to_vec()));
    }
    let mut sink = turns(&input);
    let outcome = supervise(echo(&input), short(), &mut sink).await;
    assert_eq!(outcome.termination, Termination::Exited { code: 0 });
    assert!(outcome.stdin_complete);
    // `steer` was queued after `done` was (both before the child read them), and reached
    // it before end of file.
    assert_eq!(sink.stdout, "got ask\ngot done\ngot steer\neof\n");
    assert!(!input.is_open());
    assert!(!input.send(b"late\n".to_vec()));
    assert_group_gone(pid_of(&outcome));
}

#[tokio::test]
async fn a_stop_sends_the_abort_command_and_a_child_that_ends_its_turn_is_not_signalled() {
    let input = LiveStdin::new(Some(b"abort\n".to_vec()));
    assert!(input.send(b"STOP\n".to_vec()));
    let mut sink = turns(&input);
    let outcome = supervise(echo(&input), short(), &mut sink).await;
    assert_eq!(outcome.termination, Termination::StoppedByCaller);
    // It read the abort, ended its turn, saw end of file and exited by itself.
    assert_eq!(sink.stdout, "got STOP\naborted\nDONE\neof\n");
    assert_eq!(outcome.leftovers_signalled, 0);
    assert!(outcome.wall < ABORT_GRACE, "{:?}", outcome.wall);
}

#[tokio::test]
async fn ctrl_c_with_an_ignored_abort_terms_after_the_grace_and_stdin_ends_before_the_signal() {
    let input = LiveStdin::new(Some(b"ignored-abort\n".to_vec()));
    let (controller, requests) = StopController::new();
    controller.request(StopLevel::Graceful);
    // Asked before the spawn: nothing starts at all.
    let mut sink = turns(&input);
    let outcome = supervise_with(echo(&input), short(), &mut sink, requests).await;
    assert_eq!(outcome.termination, Termination::Interrupted);
    assert_eq!(outcome.pid, None);
    assert!(!input.is_open());

    // Asked while it runs: the abort line is answered as any line, the child stays; at
    // the end of the grace its stdin closes (it prints `eof` and exits 0 before the TERM
    // lands, or dies of it).
    let input = LiveStdin::new(Some(b"ignored-abort\n".to_vec()));
    let (controller, requests) = StopController::new();
    let mut sink = turns(&input);
    let spec = echo(&input);
    let stopper = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        controller.request(StopLevel::Graceful);
    });
    let outcome = supervise_with(spec, short(), &mut sink, requests).await;
    stopper.await.expect("the stopper");
    assert_eq!(outcome.termination, Termination::Interrupted);
    assert!(
        sink.stdout.starts_with("got ignored-abort\n"),
        "{}",
        sink.stdout
    );
    assert!(outcome.wall >= ABORT_GRACE, "{:?}", outcome.wall);
    assert_group_gone(pid_of(&outcome));
}

#[tokio::test]
async fn a_child_that_exits_with_its_stdin_open_ends_the_run_at_once() {
    let input = LiveStdin::new(None);
    assert!(input.send(b"exit\n".to_vec()));
    let mut sink = turns(&input);
    let deadlines = short();
    let outcome = supervise(echo(&input), deadlines, &mut sink).await;
    assert_eq!(outcome.termination, Termination::Exited { code: 3 });
    assert!(outcome.wall < deadlines.exit_grace + Duration::from_secs(5));
    assert!(!input.is_open());
}

#[tokio::test]
async fn one_live_stdin_cannot_feed_two_runs() {
    let input = LiveStdin::new(None);
    assert!(input.send(b"done\n".to_vec()));
    let first = supervise(echo(&input), short(), &mut turns(&input)).await;
    assert_eq!(first.termination, Termination::Exited { code: 0 });
    let second = supervise(echo(&input), short(), &mut turns(&input)).await;
    assert!(
        matches!(second.termination, Termination::FailedToStart { .. }),
        "{:?}",
        second.termination
    );
}

#[tokio::test]
async fn dropping_the_run_kills_the_child_and_closes_its_input() {
    let input = LiveStdin::new(Some(b"abort\n".to_vec()));
    assert!(input.send(b"hello\n".to_vec()));
    let spec = echo(&input);
    let mut sink = turns(&input);
    let (started, mut answered) = tokio::sync::oneshot::channel::<()>();
    let mut started = Some(started);
    let task = tokio::spawn(async move {
        let mut watch = Watch {
            inner: &mut sink,
            started: &mut started,
        };
        ralph_agent::supervise::run(spec, short(), &mut watch, StopRequests::never()).await
    });
    tokio::time::timeout(Duration::from_secs(30), &mut answered)
        .await
        .expect("in time")
        .expect("the child answered");
    assert!(input.is_open());
    task.abort();
    assert!(task.await.is_err_and(|e| e.is_cancelled()));
    assert!(!input.is_open());
    assert!(!input.send(b"late\n".to_vec()));
}

/// Passes output on and says when the first of it arrived.
struct Watch<'a> {
    inner: &'a mut Turns,
    started: &'a mut Option<tokio::sync::oneshot::Sender<()>>,
}

impl OutputSink for Watch<'_> {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        if let Some(started) = self.started.take() {
            let _ = started.send(());
        }
        self.inner.on_stdout(bytes)
    }
}

/// The startup and idle deadlines hold while the child's stdin is kept open for steering:
/// a child that waits on its input forever is stopped (the abort command first, which it
/// ignores, then the signals), and its input is closed.
#[tokio::test]
async fn the_startup_and_idle_deadlines_stop_a_child_that_waits_on_its_open_input() {
    let deadline = Duration::from_millis(400);
    for (first, expected) in [
        (None, Termination::StartupTimeout),
        (Some("hello\n"), Termination::IdleTimeout),
    ] {
        let input = LiveStdin::new(Some(b"ignored-abort\n".to_vec()));
        if let Some(frame) = first {
            assert!(input.send(frame.as_bytes().to_vec()));
        }
        let deadlines = ralph_agent::supervise::RunDeadlines {
            startup: Some(deadline),
            idle: Some(deadline),
            ..short()
        };
        let mut sink = turns(&input);
        let outcome = supervise(echo(&input), deadlines, &mut sink).await;
        assert_eq!(outcome.termination, expected, "{}", sink.stdout);
        assert!(!input.is_open());
        assert_group_gone(pid_of(&outcome));
    }
}
