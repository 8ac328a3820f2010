use super::*;

#[test]
fn the_time_paused_is_not_the_loops() {
    let (stop, _requests) = StopController::new();
    let clock = RunClock::start(&stop);
    // Paused an hour (as far as the clock can tell, the pause began before the loop).
    let now = Instant::now();
    stop.pause(now - Duration::from_secs(3600));
    stop.resume(now);
    assert!(
        clock.elapsed() < Duration::from_secs(60),
        "{:?}",
        clock.elapsed()
    );
}
