//! The pauses `ralph run --tui` takes off its header's clock.

use std::time::{Duration, Instant};

use ralph_agent::StopController;

use super::paused_ms_since;

/// When the latest iteration started, on the wall clock.
const STARTED_AT_MS: u64 = 1_795_643_710_000;

#[test]
fn the_pauses_since_the_iteration_started_are_counted_across_the_two_clocks() {
    const BEFORE_START: Duration = Duration::from_secs(30);
    const SUSPENDED: Duration = Duration::from_secs(3600);
    let (stop, _requests) = StopController::new();
    let t0 = Instant::now();
    // A Ctrl-Z ended before the iteration started: the loop's clock left it out already.
    stop.pause(t0);
    stop.resume(t0 + Duration::from_secs(5));
    let started = t0 + BEFORE_START;
    // One during the iteration, 10 s into it.
    stop.pause(started + Duration::from_secs(10));
    stop.resume(started + Duration::from_secs(10) + SUSPENDED);
    let now = started + SUSPENDED + Duration::from_secs(15);
    let now_ms = STARTED_AT_MS + 3_615_000;
    assert_eq!(
        paused_ms_since(&stop, STARTED_AT_MS, now, now_ms),
        3_600_000
    );
    // Nothing paused: nothing to take off.
    let (calm, _requests) = StopController::new();
    assert_eq!(paused_ms_since(&calm, STARTED_AT_MS, now, now_ms), 0);
}
