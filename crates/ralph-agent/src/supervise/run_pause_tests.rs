//! Ctrl-Z and `fg` on the scripted run: the time paused is not the agent's silence.
//! A pause is played two ways: seen by the loop as it begins (the loop runs on while
//! ralph prepares to stop), or only after it ended, with a deadline that passed
//! meanwhile ready at once (ralph itself was stopped, so its loop did not run).

use super::*;

const SECOND: Duration = Duration::from_secs(1);
/// The idle timeout of these runs.
const IDLE: Duration = Duration::from_secs(2);
/// How long the user leaves ralph suspended: longer than the idle timeout.
const SUSPENDED: Duration = Duration::from_secs(5);
/// When the user presses Ctrl-Z.
const CTRL_Z: Duration = Duration::from_secs(1);

/// Ctrl-Z at `at` and `fg` `SUSPENDED` later, each seen by the loop as it happens.
fn pause_seen(controller: &StopController, at: Instant) -> Vec<(Instant, Press)> {
    let (pause, resume) = (controller.clone(), controller.clone());
    vec![
        (
            at,
            Box::new(move |clock| {
                pause.pause(clock.now());
            }),
        ),
        (
            at + SUSPENDED,
            Box::new(move |clock| resume.resume(clock.now())),
        ),
    ]
}

/// Ctrl-Z at `at`, then `SUSPENDED` passes with the loop frozen, then `fg`: the loop
/// sees the pause only once it is over.
fn pause_frozen(controller: &StopController, at: Instant) -> Vec<(Instant, Press)> {
    let controller = controller.clone();
    let press: Press = Box::new(move |clock| {
        controller.pause(clock.now());
        clock.time().now += SUSPENDED;
        controller.resume(clock.now());
    });
    vec![(at, press)]
}

/// An agent that writes at once, goes silent (as a model call does), and writes its
/// last line and exits 1.5 s after it went on: within its idle timeout of the time it
/// ran, far past it counting the time it was suspended.
fn busy_agent() -> Script {
    let last = 10 * MS + CTRL_Z + SUSPENDED + SECOND / 2;
    Script {
        deadlines: RunDeadlines {
            idle: Some(IDLE),
            ..no_deadlines()
        },
        stdout: vec![(10 * MS, b"hello\n"), (last, b"DONE\n")],
        exits: Some((last + 10 * MS, ChildStatus::Code(0))),
        ..Script::default()
    }
}

#[test]
fn an_agent_suspended_longer_than_its_idle_timeout_is_not_stopped_for_it() {
    for pause in [pause_seen, pause_frozen] {
        let played = play_into(busy_agent(), |c, t0| pause(c, t0 + CTRL_Z), |_| Lines);
        assert_eq!(
            (played.termination, played.signals),
            (Termination::Exited { code: 0 }, vec![])
        );
    }
}

#[test]
fn after_fg_the_idle_timeout_counts_on_from_where_it_stood() {
    // Silent after its first line: the idle timeout ends it, later by exactly the time
    // it was suspended.
    for pause in [pause_seen, pause_frozen] {
        let script = Script {
            stdout: vec![(10 * MS, b"hello\n")],
            exits: None,
            ..busy_agent()
        };
        let played = play_into(script, |c, t0| pause(c, t0 + CTRL_Z), |_| Lines);
        assert_eq!(
            (played.termination, played.signals),
            (
                Termination::IdleTimeout,
                vec![(10 * MS + IDLE + SUSPENDED, Signal::SIGTERM)]
            )
        );
    }
}

#[test]
fn the_wall_clock_deadline_does_not_count_the_time_suspended() {
    let wall = 3 * SECOND;
    for pause in [pause_seen, pause_frozen] {
        let script = Script {
            deadlines: RunDeadlines {
                wall: Some(wall),
                ..no_deadlines()
            },
            ..Script::default()
        };
        let played = play_into(script, |c, t0| pause(c, t0 + CTRL_Z), |_| Lines);
        assert_eq!(
            (played.termination, played.signals),
            (
                Termination::WallClockTimeout,
                vec![(wall + SUSPENDED, Signal::SIGTERM)]
            )
        );
    }
}

#[test]
fn a_pause_that_ended_before_the_run_began_moves_nothing() {
    let played = play_into(
        busy_agent(),
        |controller, t0| {
            // Paused and resumed before this run's loop first looks.
            controller.pause(t0 - SUSPENDED);
            controller.resume(t0);
            Vec::new()
        },
        |_| Lines,
    );
    assert_eq!(
        (played.termination, played.signals),
        (
            Termination::IdleTimeout,
            vec![(10 * MS + IDLE, Signal::SIGTERM)]
        )
    );
}

#[test]
fn the_time_to_the_first_byte_leaves_out_a_pause_before_it() {
    // Silent until half a second after `fg`: it ran CTRL_Z and that half second first.
    let first = CTRL_Z + SUSPENDED + SECOND / 2;
    for pause in [pause_seen, pause_frozen] {
        let script = Script {
            stdout: vec![(first, b"hello\n"), (first + SECOND, b"DONE\n")],
            exits: Some((first + 2 * SECOND, ChildStatus::Code(0))),
            ..busy_agent()
        };
        let played = play_into(script, |c, t0| pause(c, t0 + CTRL_Z), |_| Lines);
        assert_eq!(
            (played.termination, played.time_to_first_byte),
            (Termination::Exited { code: 0 }, Some(CTRL_Z + SECOND / 2))
        );
    }
}
