//! The limit lines of the live view.

use std::time::Duration;

use super::*;

#[test]
fn a_switch_says_which_way_and_which_backends() {
    assert_eq!(
        failover(3, "pi", 0, "claude", 1),
        "↪ rate limited on pi: iteration 3 runs on claude (fallback 1)"
    );
    assert_eq!(
        failover(4, "pi", 2, "pi", 0),
        "↩ the limit of pi is over: iteration 4 runs on it again, after pi (fallback 2)"
    );
}

#[test]
fn the_countdown_says_the_time_left_in_whole_seconds_and_when_the_wait_ends() {
    // 2026-11-26 10:38:00 UTC.
    let now = 1_795_689_480;
    let cases = [
        (251_200, now + 252, "retrying in 4m 12s (at 10:42 UTC)"),
        // Rounded up: never 0s while the wait goes on.
        (300, now + 1, "retrying in 1s (at 10:38 UTC)"),
        (0, now, "retrying now"),
        (
            3_725_000,
            now + 3_725,
            "retrying in 1h 02m 05s (at 11:40 UTC)",
        ),
        // A reset on another day says its date.
        (
            50_400_000,
            now + 50_400,
            "retrying in 14h 00m 00s (at 2026-11-27 00:38 UTC)",
        ),
    ];
    for (left_ms, at, says) in cases {
        assert_eq!(
            countdown("pi", Duration::from_millis(left_ms), at, now),
            format!("⏸ rate limited on pi: {says}")
        );
    }
}
