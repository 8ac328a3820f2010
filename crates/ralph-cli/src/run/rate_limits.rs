//! The shell's part in provider limits: which of a hat's backends an attempt runs on
//! (the machine decides; a switch is reported as a `failover` run event), and the wait
//! before an iteration whose backend is limited.

use std::time::{Instant, SystemTime};

use ralph_agent::{StopController, StopLevel};
use ralph_core::machine::{BackendWait, Iteration};
use ralph_core::run_event::RunEvent;
use ralph_core::store::unix_ms;

use super::Run;
use super::run_clock::RunClock;
use crate::view::observer::Observer;

/// The backend `iteration` runs on (0 the hat's primary, `n` the `n`th of its
/// `fallback`), as the machine picks it for now; a switch from the hat's last attempt is
/// reported.
pub(super) fn pick_backend(
    run: &Run<'_>,
    iteration: &Iteration,
    observer: &mut dyn Observer,
) -> u32 {
    let now = unix_ms(SystemTime::now()) / 1000;
    let pick = run.machine.pick_backend(&iteration.hat, now);
    if let Some(from_fallback) = pick.switched_from {
        observer.observe(&RunEvent::Failover {
            iteration: iteration.number,
            hat: &iteration.hat,
            from: run.agents.on(&iteration.hat, from_fallback).kind.name(),
            from_fallback,
            to: run.agents.on(&iteration.hat, pick.fallback).kind.name(),
            to_fallback: pick.fallback,
        });
    }
    pick.fallback
}

/// Before `iteration` starts: when the backend it would run on is limited
/// (`on_rate_limit: wait`, or `failover` with every backend of its hat limited), says how
/// long the loop waits and sleeps that long, ticking the view (a live one counts down).
/// This is also where a continued run finishes the wait it was killed in. Returns the
/// iteration to run, or `None` when it does not run: the wait would outlast the runtime
/// (the machine ends the loop) or Ctrl-C ended it; its events then go back to the queue.
pub(super) async fn wait_for_backend(
    run: &mut Run<'_>,
    iteration: Iteration,
    session: &RunClock,
    observer: &mut dyn Observer,
    stop: &StopController,
) -> Option<Iteration> {
    let now_ms = unix_ms(SystemTime::now());
    let plan = match run
        .machine
        .rate_limit_wait(&iteration.hat, now_ms, session.elapsed())
    {
        BackendWait::Free => return Some(iteration),
        BackendWait::PastRuntime => {
            run.machine.give_back(iteration);
            return None;
        }
        BackendWait::Wait(plan) => plan,
    };
    observer.observe(&RunEvent::RateLimitWait {
        iteration: iteration.number,
        hat: &iteration.hat,
        wait_secs: plan.wait.as_secs(),
        resets_at: plan.resets_at,
        message: &plan.message,
    });
    let mut requests = stop.requests();
    let started = Instant::now();
    let sleep = async {
        tokio::select! {
            () = tokio::time::sleep(plan.wait) => {}
            () = requests.stopped() => {}
        }
    };
    // The ticks redraw the live view's countdown.
    run.steering.news().watched(sleep, observer).await;
    observer.wait_over();
    run.machine.waited(started.elapsed());
    if stop.current() > StopLevel::None {
        run.machine.give_back(iteration);
        return None;
    }
    Some(iteration)
}
