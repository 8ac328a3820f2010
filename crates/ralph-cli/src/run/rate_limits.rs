//! The shell's part in provider limits: which of a hat's backends an attempt runs on
//! (the machine decides; a switch is reported as a `failover` run event), and the wait
//! before a limited iteration runs again.

use std::time::{Instant, SystemTime};

use ralph_agent::StopController;
use ralph_core::machine::Iteration;
use ralph_core::run_event::RunEvent;
use ralph_core::store::unix_ms;

use super::Run;
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

/// After an iteration that ended on a provider's limit (`on_rate_limit: wait`, or
/// `failover` with every backend of the hat limited): says how long the loop waits and
/// sleeps that long, ticking the view (a live one counts down); Ctrl-C ends the
/// wait at once (the loop then stops as interrupted).
pub(super) async fn wait_out(
    run: &mut Run<'_>,
    session: Instant,
    observer: &mut dyn Observer,
    stop: &StopController,
) {
    let now = unix_ms(SystemTime::now()) / 1000;
    let Some(plan) = run.machine.rate_limit_wait(now, session.elapsed()) else {
        return;
    };
    let message = run
        .machine
        .state()
        .rate_limit
        .as_ref()
        .map(|l| l.message.clone())
        .unwrap_or_default();
    observer.observe(&RunEvent::RateLimitWait {
        iteration: run.machine.state().iterations + 1,
        wait_secs: plan.wait.as_secs(),
        resets_at: plan.resets_at,
        message: &message,
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
}
