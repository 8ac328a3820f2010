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

#[test]
fn a_pause_before_the_loop_started_is_not_taken_off_its_time() {
    const RAN: Duration = Duration::from_millis(50);
    let (stop, _requests) = StopController::new();
    // Ctrl-Z while `--worktree` made the worktree, before the loop began.
    let now = Instant::now();
    stop.pause(now - Duration::from_secs(10));
    stop.resume(now);
    let clock = RunClock::start(&stop);
    std::thread::sleep(RAN);
    assert!(clock.elapsed() >= RAN, "{:?}", clock.elapsed());
}
