use std::time::Duration;

use ralph_agent::StopController;
use tokio::time::Instant;

use super::*;

const LONG_PAUSE: Duration = Duration::from_secs(3600);
const CTRL_C_AFTER: Duration = Duration::from_millis(10);
const WHY: (&str, &str, &str) = ("check", "pre.iteration.start", "exit 1");

/// A Ctrl-C on `stop` once `after` has passed.
fn ctrl_c_after(stop: &StopController, after: Duration) {
    let stop = stop.clone();
    tokio::spawn(async move {
        tokio::time::sleep(after).await;
        stop.interrupt(std::time::Instant::now());
    });
}

/// A suspension by hook `WHY` in a fresh `.ralph/`, with the signal that ends it.
fn suspension() -> (tempfile::TempDir, ResumeSignal) {
    let dir = tempfile::tempdir().unwrap();
    let signal = ResumeSignal::new(dir.path());
    (dir, signal)
}

/// Time is paused: it moves only to the next timer, so when `pause` returns shows what
/// woke it. A Ctrl-C ends the pause at the moment it comes, not at a later poll.
#[tokio::test(start_paused = true)]
async fn ctrl_c_ends_a_pause_the_moment_it_comes() {
    let (stop, _requests) = StopController::new();
    let start = Instant::now();
    ctrl_c_after(&stop, CTRL_C_AFTER);
    assert_eq!(pause(LONG_PAUSE, &stop, None).await, Held::Interrupted);
    assert_eq!(start.elapsed(), CTRL_C_AFTER);
}

#[tokio::test(start_paused = true)]
async fn a_pause_without_a_stop_lasts_its_delay() {
    let (stop, _requests) = StopController::new();
    let start = Instant::now();
    assert_eq!(pause(LONG_PAUSE, &stop, None).await, Held::Done);
    assert_eq!(start.elapsed(), LONG_PAUSE);
}

#[tokio::test(start_paused = true)]
async fn a_stop_made_before_the_pause_ends_it_at_once() {
    let (stop, _requests) = StopController::new();
    stop.interrupt(std::time::Instant::now());
    let start = Instant::now();
    assert_eq!(pause(LONG_PAUSE, &stop, None).await, Held::Interrupted);
    assert_eq!(start.elapsed(), Duration::ZERO);
}

#[tokio::test(start_paused = true)]
async fn ctrl_c_ends_a_suspension_the_moment_it_comes() {
    let (dir, signal) = suspension();
    let (stop, _requests) = StopController::new();
    let start = Instant::now();
    ctrl_c_after(&stop, CTRL_C_AFTER);
    let held = wait_for_resume(&signal, dir.path(), WHY, &stop, None).await;
    assert_eq!(held.unwrap(), Held::Interrupted);
    assert_eq!(start.elapsed(), CTRL_C_AFTER);
    assert_eq!(
        signal.suspended().unwrap(),
        None,
        "the suspension is cleared"
    );
}

#[tokio::test(start_paused = true)]
async fn a_resume_ends_a_suspension_at_the_next_look() {
    const RESUME_AFTER: Duration = Duration::from_secs(1);
    let (dir, signal) = suspension();
    let (stop, _requests) = StopController::new();
    let start = Instant::now();
    let resumer = signal.clone();
    tokio::spawn(async move {
        tokio::time::sleep(RESUME_AFTER).await;
        resumer.request().unwrap();
    });
    let held = wait_for_resume(&signal, dir.path(), WHY, &stop, None).await;
    assert_eq!(held.unwrap(), Held::Done);
    assert!(start.elapsed() >= RESUME_AFTER);
    assert!(start.elapsed() <= RESUME_AFTER + RESUME_POLL_INTERVAL);
}
