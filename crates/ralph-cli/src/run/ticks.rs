//! The views' clock while the loop waits: a tick every frame for the clock and the
//! spinner, beside whatever the loop awaits.

use std::time::Instant;

use tokio::time::MissedTickBehavior;

use crate::view::term::status::FRAME_INTERVAL;

/// A ticker every [`FRAME_INTERVAL`] for the views' clock and spinner; ticks missed
/// while the thread was busy are skipped, not made up in a burst.
pub(crate) fn frame_ticker() -> tokio::time::Interval {
    let mut ticker = tokio::time::interval(FRAME_INTERVAL);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Skip);
    ticker
}

/// Awaits `work`, calling `tick` every [`FRAME_INTERVAL`] until it is done.
pub(crate) async fn with_ticks<T>(
    work: impl Future<Output = T>,
    mut tick: impl FnMut(Instant),
) -> T {
    let mut ticker = frame_ticker();
    let mut work = std::pin::pin!(work);
    loop {
        tokio::select! {
            done = &mut work => return done,
            now = ticker.tick() => tick(now.into_std()),
        }
    }
}
