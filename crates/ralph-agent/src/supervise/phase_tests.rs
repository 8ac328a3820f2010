//! Every transition of the supervisor's phase, driven by a fake clock: no process, no
//! sleeping. A timer is fired the way the run loop fires it, at the instant
//! [`Machine::deadline`] names, so these tests also pin which deadline each phase waits for.

use super::*;

const MS: Duration = Duration::from_millis(1);
const STARTUP: Duration = Duration::from_millis(1000);
const IDLE: Duration = Duration::from_millis(400);
const WALL: Duration = Duration::from_millis(10_000);
const EXIT_GRACE: Duration = Duration::from_millis(200);
const KILL_GRACE: Duration = Duration::from_millis(300);

const TERM: Option<ChildStatus> = Some(ChildStatus::Signal(libc::SIGTERM));
const KILL: Option<ChildStatus> = Some(ChildStatus::Signal(libc::SIGKILL));

fn deadlines() -> RunDeadlines {
    RunDeadlines {
        startup: Some(STARTUP),
        idle: Some(IDLE),
        wall: Some(WALL),
        exit_grace: EXIT_GRACE,
        kill_grace: KILL_GRACE,
    }
}

/// One run on a fake clock: events are given at offsets from the spawn.
struct Run {
    machine: Machine,
    t0: Instant,
}

impl Run {
    fn new(deadlines: RunDeadlines) -> Run {
        Run::with_stderr(deadlines, true)
    }

    fn with_stderr(deadlines: RunDeadlines, has_stderr: bool) -> Run {
        let t0 = Instant::now();
        Run {
            machine: Machine::new(deadlines, t0, has_stderr),
            t0,
        }
    }

    fn at(&mut self, offset: Duration, event: Event) -> Action {
        self.machine.on(event, self.t0 + offset)
    }

    /// The pending deadline as an offset from the spawn.
    fn deadline(&self) -> Option<Duration> {
        self.machine.deadline().map(|at| at - self.t0)
    }

    /// Moves the clock to the pending deadline and fires the timer there, as the loop
    /// does; returns when that was and what the machine asked for.
    fn fire(&mut self) -> (Duration, Action) {
        let Some(at) = self.deadline() else {
            panic!("no deadline pending in {:?}", self.machine.phase());
        };
        (at, self.at(at, Event::Timer))
    }

    fn phase(&self) -> Phase {
        self.machine.phase()
    }

    /// The agent is reaped at `offset` with both its streams already closed.
    fn exits_drained(&mut self, offset: Duration, status: Option<ChildStatus>) -> Action {
        self.at(offset, Event::StdoutClosed);
        self.at(offset, Event::StderrClosed);
        self.at(offset, Event::ChildExited(status))
    }

    fn exit(&self) -> Exit {
        match self.machine.exit() {
            Some(exit) => exit,
            None => panic!("not reaped: {:?}", self.phase()),
        }
    }
}

#[test]
fn startup_deadline_sends_term_and_an_exit_within_the_grace_ends_the_run() {
    let mut run = Run::new(deadlines());
    assert_eq!(run.deadline(), Some(STARTUP));
    assert_eq!(run.fire(), (STARTUP, Action::Terminate));
    assert_eq!(
        run.phase(),
        Phase::Terminating {
            term_sent: run.t0 + STARTUP,
            kill_at: run.t0 + STARTUP + KILL_GRACE
        }
    );
    // The kill is now what the loop waits for, not the startup deadline any more.
    assert_eq!(run.deadline(), Some(STARTUP + KILL_GRACE));
    let reaped = STARTUP + 50 * MS;
    assert_eq!(run.exits_drained(reaped, TERM), Action::StopWaiting);
    assert_eq!(
        (run.machine.termination(), run.exit()),
        (
            Termination::StartupTimeout,
            Exit {
                status: TERM,
                at: run.t0 + reaped,
                term_sent: Some(run.t0 + STARTUP)
            }
        )
    );
    assert_eq!(run.deadline(), None);
}

#[test]
fn every_byte_restarts_the_inactivity_deadline() {
    let mut run = Run::new(deadlines());
    assert_eq!(
        run.at(100 * MS, Event::Stdout(Flow::Continue)),
        Action::Wait
    );
    assert_eq!(run.deadline(), Some(100 * MS + IDLE));
    run.at(300 * MS, Event::Stdout(Flow::Continue));
    assert_eq!(run.fire(), (300 * MS + IDLE, Action::Terminate));
    run.exits_drained(800 * MS, TERM);
    assert_eq!(
        (run.machine.termination(), run.machine.time_to_first_byte()),
        (Termination::IdleTimeout, Some(100 * MS))
    );
}

#[test]
fn wall_clock_deadline_stops_an_agent_that_is_never_idle() {
    let wall = 500 * MS;
    let mut run = Run::new(RunDeadlines {
        wall: Some(wall),
        ..deadlines()
    });
    for i in 1..10 {
        run.at(i * 50 * MS, Event::Stdout(Flow::Continue));
    }
    assert_eq!(run.fire(), (wall, Action::Terminate));
    run.exits_drained(wall + MS, TERM);
    assert_eq!(run.machine.termination(), Termination::WallClockTimeout);
}

#[test]
fn no_deadline_means_no_timer_until_the_agent_exits() {
    let mut run = Run::new(RunDeadlines::none());
    assert_eq!(run.deadline(), None);
    run.at(5 * MS, Event::Stdout(Flow::Continue));
    assert_eq!(run.deadline(), None);
    assert_eq!(
        run.exits_drained(WALL * 10, Some(ChildStatus::Code(0))),
        Action::StopWaiting
    );
    assert_eq!(run.machine.termination(), Termination::Exited { code: 0 });
}

#[test]
fn a_timer_that_fires_before_the_deadline_changes_nothing() {
    let mut run = Run::new(deadlines());
    assert_eq!(run.at(STARTUP - MS, Event::Timer), Action::Wait);
    assert_eq!(
        (run.phase(), run.deadline()),
        (Phase::Running, Some(STARTUP))
    );
    run.fire();
    assert_eq!(
        run.at(STARTUP + KILL_GRACE - MS, Event::Timer),
        Action::Wait
    );
    assert!(matches!(run.phase(), Phase::Terminating { .. }));
}

#[test]
fn finished_agent_that_does_not_exit_is_stopped_after_the_exit_grace_as_a_success() {
    let mut run = Run::new(deadlines());
    run.at(10 * MS, Event::Stdout(Flow::Continue));
    run.at(20 * MS, Event::Stdout(Flow::Finished));
    // Only the first terminal event counts, and output no longer restarts anything.
    run.at(100 * MS, Event::Stdout(Flow::Finished));
    assert_eq!(run.deadline(), Some(20 * MS + EXIT_GRACE));
    assert_eq!(run.fire(), (20 * MS + EXIT_GRACE, Action::Terminate));
    run.exits_drained(300 * MS, TERM);
    let termination = run.machine.termination();
    assert_eq!(
        (termination.clone(), termination.is_success()),
        (Termination::StoppedAfterFinish, true)
    );
}

#[test]
fn finished_agent_that_exits_within_the_grace_reports_its_own_exit() {
    let mut run = Run::new(deadlines());
    run.at(20 * MS, Event::Stdout(Flow::Finished));
    run.exits_drained(50 * MS, Some(ChildStatus::Code(0)));
    assert_eq!(run.machine.termination(), Termination::Exited { code: 0 });
}

#[test]
fn term_ignored_is_followed_by_kill_after_the_kill_grace() {
    let mut run = Run::new(deadlines());
    let (term_at, _) = run.fire();
    assert_eq!(run.fire(), (term_at + KILL_GRACE, Action::Kill));
    assert_eq!(
        run.phase(),
        Phase::Killed {
            term_sent: Some(run.t0 + term_at),
            killed_at: run.t0 + term_at + KILL_GRACE
        }
    );
    // A stop request can no longer change anything, so the loop stops listening.
    assert_eq!(
        (run.machine.accepts_stop(), run.machine.child_running()),
        (false, true)
    );
    let reaped = term_at + KILL_GRACE + MS;
    assert_eq!(run.exits_drained(reaped, KILL), Action::StopWaiting);
    assert_eq!(
        (
            run.machine.termination(),
            run.exit().status,
            run.exit().term_sent
        ),
        (Termination::StartupTimeout, KILL, Some(run.t0 + term_at))
    );
}

#[test]
fn kill_not_honoured_gives_up_after_the_reap_timeout() {
    let mut run = Run::new(deadlines());
    run.fire();
    let (killed_at, _) = run.fire();
    assert_eq!(run.deadline(), Some(killed_at + REAP_TIMEOUT));
    assert_eq!(
        run.at(killed_at + REAP_TIMEOUT - MS, Event::Timer),
        Action::Wait
    );
    assert_eq!(run.fire(), (killed_at + REAP_TIMEOUT, Action::GiveUp));
    assert_eq!(
        (
            run.phase(),
            run.deadline(),
            run.machine.exit(),
            run.machine.child_running()
        ),
        (Phase::GaveUp, None, None, false)
    );
    // The reason stands; there is no status to report.
    assert_eq!(run.machine.termination(), Termination::StartupTimeout);
}

#[test]
fn exit_while_terminating_keeps_ralphs_reason_even_for_a_clean_exit() {
    let mut run = Run::new(deadlines());
    run.at(5 * MS, Event::Stdout(Flow::Continue));
    let (term_at, _) = run.fire();
    // A TERM handler that exits 0: still ralph's stop, not the agent's success.
    assert_eq!(
        run.at(
            term_at + 10 * MS,
            Event::ChildExited(Some(ChildStatus::Code(0)))
        ),
        Action::Wait
    );
    assert!(matches!(run.phase(), Phase::Exited(_)));
    // The kill is off; the drain bound is what the loop waits for now.
    assert_eq!(run.deadline(), Some(term_at + 10 * MS + POST_EXIT_DRAIN));
    assert_eq!(
        (run.machine.termination(), run.exit().term_sent),
        (Termination::IdleTimeout, Some(run.t0 + term_at))
    );
}

#[test]
fn output_closed_before_the_exit_ends_the_run_at_the_exit() {
    let mut run = Run::new(deadlines());
    assert_eq!(run.at(10 * MS, Event::StdoutClosed), Action::Wait);
    assert_eq!(run.at(10 * MS, Event::StderrClosed), Action::Wait);
    // Closing its output is not exiting: the agent is still supervised.
    assert_eq!(
        (run.phase(), run.deadline()),
        (Phase::Running, Some(STARTUP))
    );
    assert_eq!(
        run.at(20 * MS, Event::ChildExited(Some(ChildStatus::Code(3)))),
        Action::StopWaiting
    );
    assert!(matches!(run.phase(), Phase::Finished(_)));
    assert_eq!(run.machine.termination(), Termination::Exited { code: 3 });
}

#[test]
fn output_closed_after_the_exit_ends_the_run_when_both_streams_closed() {
    let mut run = Run::new(deadlines());
    run.at(10 * MS, Event::Stdout(Flow::Continue));
    assert_eq!(
        run.at(20 * MS, Event::ChildExited(Some(ChildStatus::Code(0)))),
        Action::Wait
    );
    assert_eq!(run.at(30 * MS, Event::StdoutClosed), Action::Wait);
    assert_eq!(run.at(40 * MS, Event::StderrClosed), Action::StopWaiting);
    assert_eq!(run.exit().at, run.t0 + 20 * MS);
}

#[test]
fn output_held_open_after_the_exit_stops_the_wait_after_the_drain_bound() {
    // A leftover process keeps the pipes: no hang after the agent finished.
    let mut run = Run::new(deadlines());
    run.at(20 * MS, Event::Stdout(Flow::Finished));
    run.at(30 * MS, Event::ChildExited(Some(ChildStatus::Code(0))));
    // The exit grace no longer matters once the agent was reaped.
    assert_eq!(run.deadline(), Some(30 * MS + POST_EXIT_DRAIN));
    assert_eq!(run.at(40 * MS, Event::Stdout(Flow::Continue)), Action::Wait);
    assert_eq!(run.fire(), (30 * MS + POST_EXIT_DRAIN, Action::StopWaiting));
    assert_eq!(
        (run.machine.termination(), run.exit().term_sent),
        (Termination::Exited { code: 0 }, None)
    );
}

#[test]
fn on_a_pty_only_stdout_has_to_close() {
    let mut run = Run::with_stderr(deadlines(), false);
    assert!(!run.machine.stderr_open());
    run.at(10 * MS, Event::ChildExited(Some(ChildStatus::Code(0))));
    assert_eq!(run.at(20 * MS, Event::StdoutClosed), Action::StopWaiting);
}

#[test]
fn one_stop_request_terminates_and_a_second_one_escalates_to_kill() {
    let mut run = Run::new(deadlines());
    let ctrl_c = 50 * MS;
    assert_eq!(
        run.at(ctrl_c, Event::Stop(StopLevel::Graceful)),
        Action::Terminate
    );
    assert_eq!(run.deadline(), Some(ctrl_c + KILL_GRACE));
    // The same level again (a new receiver's first look) sends nothing twice.
    assert_eq!(
        run.at(60 * MS, Event::Stop(StopLevel::Graceful)),
        Action::Wait
    );
    assert_eq!(
        run.at(80 * MS, Event::Stop(StopLevel::Immediate)),
        Action::Kill
    );
    assert_eq!(
        run.phase(),
        Phase::Killed {
            term_sent: Some(run.t0 + ctrl_c),
            killed_at: run.t0 + 80 * MS
        }
    );
    assert_eq!(
        run.at(90 * MS, Event::Stop(StopLevel::Immediate)),
        Action::Wait
    );
    run.exits_drained(90 * MS, KILL);
    assert_eq!(run.machine.termination(), Termination::Interrupted);
}

#[test]
fn an_immediate_stop_kills_without_term() {
    let mut run = Run::new(deadlines());
    assert_eq!(run.at(MS, Event::Stop(StopLevel::None)), Action::Wait);
    assert_eq!(
        run.at(10 * MS, Event::Stop(StopLevel::Immediate)),
        Action::Kill
    );
    run.exits_drained(11 * MS, KILL);
    assert_eq!(
        (run.machine.termination(), run.exit().term_sent),
        (Termination::Interrupted, None)
    );
}

#[test]
fn the_first_reason_wins() {
    let mut run = Run::new(deadlines());
    run.at(10 * MS, Event::Stdout(Flow::Continue));
    let (term_at, _) = run.fire();
    // Ctrl-C during the idle stop escalates it but does not rename it; the sink's stop
    // is no longer heard.
    assert_eq!(
        run.at(term_at + MS, Event::Stdout(Flow::Stop)),
        Action::Wait
    );
    assert_eq!(
        run.at(term_at + 2 * MS, Event::Stop(StopLevel::Immediate)),
        Action::Kill
    );
    run.exits_drained(term_at + 3 * MS, KILL);
    assert_eq!(run.machine.termination(), Termination::IdleTimeout);
}

#[test]
fn the_sink_stop_terminates_and_later_answers_are_ignored() {
    let mut run = Run::new(deadlines());
    assert_eq!(
        run.at(10 * MS, Event::Stdout(Flow::Stop)),
        Action::Terminate
    );
    assert_eq!(run.at(20 * MS, Event::Stdout(Flow::Stop)), Action::Wait);
    assert_eq!(run.at(30 * MS, Event::Stdout(Flow::Finished)), Action::Wait);
    // The kill grace still counts from the first stop.
    assert_eq!(run.deadline(), Some(10 * MS + KILL_GRACE));
    run.exits_drained(40 * MS, TERM);
    let termination = run.machine.termination();
    assert_eq!(
        (termination.clone(), termination.is_success()),
        (Termination::StoppedByCaller, false)
    );
}

#[test]
fn nothing_is_stopped_after_the_exit() {
    let mut run = Run::new(deadlines());
    run.at(
        10 * MS,
        Event::ChildExited(Some(ChildStatus::Signal(libc::SIGUSR1))),
    );
    assert_eq!(
        (run.machine.accepts_stop(), run.machine.child_running()),
        (false, false)
    );
    assert_eq!(run.at(20 * MS, Event::Stdout(Flow::Stop)), Action::Wait);
    assert_eq!(
        run.at(30 * MS, Event::Stop(StopLevel::Immediate)),
        Action::Wait
    );
    // A second reaping (impossible, but harmless) does not restart the drain.
    run.at(40 * MS, Event::ChildExited(None));
    assert_eq!(run.exit().at, run.t0 + 10 * MS);
    assert_eq!(
        run.machine.termination(),
        Termination::Signaled {
            signal: libc::SIGUSR1
        }
    );
}

#[test]
fn a_lost_status_is_reported_as_such() {
    let mut run = Run::new(deadlines());
    assert_eq!(run.exits_drained(10 * MS, None), Action::StopWaiting);
    assert_eq!(run.machine.termination(), Termination::StatusLost);
}

#[path = "phase_live_tests.rs"]
mod live;
