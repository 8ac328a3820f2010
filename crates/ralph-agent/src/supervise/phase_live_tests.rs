//! The phase machine with a live stdin: closed at the terminal event, the abort command
//! before the signals, and the silence after a failed turn the agent may retry.

use super::*;

/// A run whose stdin is kept open for commands; `can_abort` when the backend has an abort
/// command.
fn live(can_abort: bool) -> Run {
    live_with(deadlines(), can_abort)
}

fn live_with(deadlines: RunDeadlines, can_abort: bool) -> Run {
    let mut run = Run::new(deadlines);
    run.machine = run.machine.with_live_stdin(can_abort);
    run
}

/// Deadlines whose inactivity one is longer than [`RETRY_SETTLE`].
fn patient() -> RunDeadlines {
    RunDeadlines {
        idle: Some(RETRY_SETTLE * 2),
        ..deadlines()
    }
}

#[test]
fn the_terminal_event_closes_the_live_stdin_once() {
    let mut run = live(true);
    assert_eq!(run.at(10 * MS, Event::Stdout(Flow::Continue)), Action::Wait);
    assert!(run.machine.stdin_live());
    assert_eq!(
        run.at(20 * MS, Event::Stdout(Flow::Finished)),
        Action::CloseStdin
    );
    assert!(!run.machine.stdin_live());
    assert_eq!(run.at(30 * MS, Event::Stdout(Flow::Finished)), Action::Wait);
    // Without a live stdin the terminal event closes nothing.
    let mut plain = Run::new(deadlines());
    assert_eq!(
        plain.at(20 * MS, Event::Stdout(Flow::Finished)),
        Action::Wait
    );
}

#[test]
fn every_graceful_stop_aborts_first_and_terminates_after_the_abort_grace() {
    let stops = [
        (Event::Stdout(Flow::Stop), Termination::StoppedByCaller),
        (Event::Stop(StopLevel::Graceful), Termination::Interrupted),
    ];
    for (event, reason) in stops {
        let mut run = live(true);
        assert_eq!(run.at(50 * MS, event), Action::Abort);
        assert_eq!(
            run.phase(),
            Phase::Aborting {
                term_at: run.t0 + 50 * MS + ABORT_GRACE
            }
        );
        // A second graceful stop while aborting changes nothing.
        assert_eq!(
            run.at(60 * MS, Event::Stop(StopLevel::Graceful)),
            Action::Wait
        );
        assert_eq!(run.fire(), (50 * MS + ABORT_GRACE, Action::Terminate));
        assert_eq!(
            run.fire(),
            (50 * MS + ABORT_GRACE + KILL_GRACE, Action::Kill)
        );
        run.exits_drained(50 * MS + ABORT_GRACE + KILL_GRACE, KILL);
        assert_eq!(run.machine.termination(), reason);
    }
    // A deadline too: the inactivity one here.
    let mut run = live(true);
    run.at(10 * MS, Event::Stdout(Flow::Continue));
    assert_eq!(run.fire(), (10 * MS + IDLE, Action::Abort));
}

#[test]
fn an_agent_that_ends_its_turn_after_the_abort_gets_its_stdin_closed_and_exits_as_stopped() {
    let mut run = live(true);
    assert_eq!(run.at(50 * MS, Event::Stdout(Flow::Stop)), Action::Abort);
    // What the parsing sink answers once the terminal event follows its stop.
    assert_eq!(
        run.at(70 * MS, Event::Stdout(Flow::FinishedAfterStop)),
        Action::CloseStdin
    );
    assert_eq!(
        run.exits_drained(80 * MS, Some(ChildStatus::Code(0))),
        Action::StopWaiting
    );
    let exit = run.exit();
    assert_eq!((exit.term_sent, exit.at), (None, run.t0 + 80 * MS));
    assert_eq!(run.machine.termination(), Termination::StoppedByCaller);
    assert!(!run.machine.signalled());
}

#[test]
fn a_stop_that_comes_with_the_terminal_event_closes_the_stdin_without_an_abort() {
    // A budget crossed on the turn's last event: the turn is over, so there is nothing to
    // abort; the agent's input closes and it exits, stopped by ralph all the same.
    let mut run = live(true);
    assert_eq!(
        run.at(50 * MS, Event::Stdout(Flow::FinishedAfterStop)),
        Action::CloseStdin
    );
    assert_eq!(
        run.exits_drained(60 * MS, Some(ChildStatus::Code(0))),
        Action::StopWaiting
    );
    assert_eq!(run.machine.termination(), Termination::StoppedByCaller);
    assert!(!run.machine.signalled());
}

#[test]
fn an_agent_that_ignores_the_abort_is_signalled() {
    let mut run = live(true);
    assert_eq!(run.at(50 * MS, Event::Stdout(Flow::Stop)), Action::Abort);
    assert!(!run.machine.signalled());
    assert_eq!(run.fire(), (50 * MS + ABORT_GRACE, Action::Terminate));
    assert!(run.machine.signalled());
}

#[test]
fn a_second_ctrl_c_while_aborting_kills_at_once() {
    let mut run = live(true);
    assert_eq!(
        run.at(50 * MS, Event::Stop(StopLevel::Graceful)),
        Action::Abort
    );
    assert_eq!(
        run.at(90 * MS, Event::Stop(StopLevel::Immediate)),
        Action::Kill
    );
    assert_eq!(
        run.phase(),
        Phase::Killed {
            term_sent: None,
            killed_at: run.t0 + 90 * MS
        }
    );
    assert!(!run.machine.stdin_live());
}

#[test]
fn without_an_abort_command_or_once_stdin_closed_a_stop_goes_straight_to_term() {
    let mut no_abort = live(false);
    assert_eq!(
        no_abort.at(50 * MS, Event::Stdout(Flow::Stop)),
        Action::Terminate
    );
    assert!(!no_abort.machine.stdin_live());
    // The turn ended (stdin closed), then the exit grace ran out: no abort for a finished
    // agent.
    let mut finished = live(true);
    finished.at(10 * MS, Event::Stdout(Flow::Finished));
    assert_eq!(finished.fire(), (10 * MS + EXIT_GRACE, Action::Terminate));
    assert_eq!(
        finished.machine.termination(),
        Termination::StoppedAfterFinish
    );
    // The writer failed (the agent closed its stdin): signals only.
    let mut broken = live(true);
    broken.machine.stdin_closed();
    assert_eq!(
        broken.at(50 * MS, Event::Stop(StopLevel::Graceful)),
        Action::Terminate
    );
}

#[test]
fn an_abort_that_cannot_be_queued_terminates_at_once() {
    let mut run = live(true);
    assert_eq!(run.at(50 * MS, Event::Stdout(Flow::Stop)), Action::Abort);
    assert_eq!(
        run.machine.abort_refused(run.t0 + 50 * MS),
        Action::Terminate
    );
    assert_eq!(
        run.phase(),
        Phase::Terminating {
            term_sent: run.t0 + 50 * MS,
            kill_at: run.t0 + 50 * MS + KILL_GRACE
        }
    );
    // Outside an abort it changes nothing.
    let mut running = live(true);
    assert_eq!(running.machine.abort_refused(running.t0), Action::Wait);
    assert_eq!(running.phase(), Phase::Running);
}

#[test]
fn silence_after_a_settling_turn_ends_it_and_any_output_before_keeps_it_running() {
    let mut run = live_with(patient(), true);
    assert_eq!(run.at(10 * MS, Event::Stdout(Flow::Settling)), Action::Wait);
    // Another `Settling` keeps the first instant; the idle deadline is later.
    assert_eq!(run.at(20 * MS, Event::Stdout(Flow::Settling)), Action::Wait);
    assert_eq!(run.fire(), (10 * MS + RETRY_SETTLE, Action::CloseStdin));
    assert!(!run.machine.stdin_live());
    // It is then finished: the exit grace governs.
    assert_eq!(
        run.fire(),
        (10 * MS + RETRY_SETTLE + EXIT_GRACE, Action::Terminate)
    );
    assert_eq!(run.machine.termination(), Termination::StoppedAfterFinish);

    // The agent retried: its next output cancels the settling.
    let mut retried = live(true);
    retried.at(10 * MS, Event::Stdout(Flow::Settling));
    assert_eq!(
        retried.at(11 * MS, Event::Stdout(Flow::Continue)),
        Action::Wait
    );
    assert_eq!(retried.fire(), (11 * MS + IDLE, Action::Abort));
}

#[test]
fn settling_means_nothing_without_a_live_stdin_or_once_stopping() {
    let mut plain = Run::new(patient());
    plain.at(10 * MS, Event::Stdout(Flow::Settling));
    assert_eq!(
        plain.fire(),
        (10 * MS + RETRY_SETTLE * 2, Action::Terminate)
    );
    let mut aborting = live(true);
    assert_eq!(
        aborting.at(10 * MS, Event::Stdout(Flow::Stop)),
        Action::Abort
    );
    aborting.at(20 * MS, Event::Stdout(Flow::Settling));
    assert_eq!(aborting.fire(), (10 * MS + ABORT_GRACE, Action::Terminate));
}
