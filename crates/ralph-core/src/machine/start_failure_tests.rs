//! An agent that cannot be started: the loop stops at once when the cause lasts, and
//! counts the failure as any other when it may pass.

use std::collections::VecDeque;

use nix::errno::Errno;
use pretty_assertions::assert_eq;
use ralph_types::SpawnFailure;

use super::super::test_support::*;
use super::super::*;
use super::lasts;

/// What the supervisor reports when `program` could not be started with `errno`.
fn spawn_failure(program: &str, errno: Errno) -> SpawnFailure {
    SpawnFailure::new(
        program.as_ref(),
        &std::io::Error::from_raw_os_error(errno as i32),
    )
}

/// The report of an iteration whose agent could not be started with `errno`.
fn not_started(errno: Errno) -> IterationReport {
    let failure = spawn_failure("./agent.sh", errno);
    IterationReport {
        start_failure: Some(failure.clone()),
        ..report(
            IterationOutcome::Failed {
                reason: failure.to_string(),
            },
            &[],
        )
    }
}

#[test]
fn causes_that_last_are_told_from_those_that_may_pass() {
    let cases = [
        (Errno::ENOENT, true),
        (Errno::EACCES, true),
        (Errno::EPERM, true),
        (Errno::ENOEXEC, true),
        (Errno::ENOTDIR, true),
        (Errno::ELOOP, true),
        (Errno::EAGAIN, false),
        (Errno::ENOMEM, false),
        (Errno::ETXTBSY, false),
        (Errno::EMFILE, false),
    ];
    for (errno, lasting) in cases {
        assert_eq!(lasts(&spawn_failure("x", errno)), lasting, "{errno}");
    }
    // No number (a failure ralph made up, such as a live stdin already used): it may pass.
    let made_up = SpawnFailure::new("x".as_ref(), &std::io::Error::other("in use"));
    assert!(!lasts(&made_up));
}

#[test]
fn an_agent_the_system_will_not_run_stops_the_loop_at_its_first_failure() {
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    m.finish(it, not_started(Errno::EACCES), S);
    let reason = stop(&mut m);
    let StopReason::AgentCannotStart { hat, backend, why } = &reason else {
        panic!("expected agent_cannot_start, got {reason:?}");
    };
    assert_eq!((hat.as_str(), backend.as_str()), (DEFAULT_HAT, "pi"));
    assert!(why.contains("could not start `./agent.sh`"), "{why}");
    assert_eq!(reason.class(), EndClass::Failed);
    assert!(
        reason.to_string().contains("ralph run --continue"),
        "{reason}"
    );
    // The iteration still counts as failed, with its events kept for `--continue`.
    assert_eq!(m.state().consecutive_failures, 1);
    assert_eq!(
        m.state().pending,
        VecDeque::from([ev(crate::topic::TASK_START)])
    );
    assert_no_requeue_notice(&mut m);
}

/// The loop stops on the iteration, so no notice says its hat gets its events again.
fn assert_no_requeue_notice(m: &mut Machine) {
    let notices = m.take_notices();
    assert!(
        !notices
            .iter()
            .any(|n| matches!(n, Notice::EventsRequeued { .. })),
        "{notices:?}"
    );
}

#[test]
fn a_start_failure_that_may_pass_is_one_failure_more() {
    let mut m = Machine::new(solo());
    for _ in 0..2 {
        let it = run(&mut m);
        m.finish(it, not_started(Errno::EAGAIN), S);
    }
    // Below `max_consecutive_failures` (3): the loop goes on.
    let it = run(&mut m);
    m.finish(it, not_started(Errno::EAGAIN), S);
    assert_eq!(
        stop(&mut m),
        StopReason::ConsecutiveFailures { failures: 3 }
    );
}

#[test]
fn a_prompt_no_agent_can_take_stops_the_loop_at_its_first_failure() {
    let why = "the prompt contains a NUL byte, which cannot be passed to `custom` as a \
               command-line argument; remove it or deliver the prompt on stdin";
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    let report = IterationReport {
        unstartable: Some(why.to_owned()),
        ..report(
            IterationOutcome::Failed {
                reason: why.to_owned(),
            },
            &[],
        )
    };
    m.finish(it, report, S);
    assert_eq!(
        stop(&mut m),
        StopReason::AgentCannotStart {
            hat: DEFAULT_HAT.to_owned(),
            backend: "pi".to_owned(),
            why: why.to_owned(),
        }
    );
    // Its events kept for `--continue` once the prompt is fixed.
    assert_eq!(
        m.state().pending,
        VecDeque::from([ev(crate::topic::TASK_START)])
    );
    assert_no_requeue_notice(&mut m);
}
