use std::sync::mpsc;

use super::*;

/// The loop ends as soon as the stop is raised, and ralph's exit comes next: it must
/// wait for the signal's message, which the signal thread writes after raising the stop
/// (a loop that ended on a quick agent could otherwise exit before it is out). Here the
/// message is held until the exit has been seen waiting for it. End to end the window is
/// a few instructions wide and can only be stressed (tests/terminal.rs under load).
#[test]
fn the_exit_waits_for_the_message_of_a_stop_signal_it_ended_on() {
    let (controller, requests) = StopController::new();
    let (release, released) = mpsc::channel::<()>();
    let released = std::sync::Mutex::new(released);
    let signal_thread = std::thread::spawn(move || {
        take(&controller, Which::Interrupt, &|level, _what, _hint| {
            released.lock().unwrap().recv().unwrap();
            Some(format!("{level:?}"))
        });
    });
    while requests.current() == StopLevel::None {
        std::thread::yield_now();
    }
    // The stop is raised and its message not yet written: the exit does not go.
    assert!(!wait_said(), "the exit went before the message");
    release.send(()).unwrap();
    assert!(wait_said());
    signal_thread.join().unwrap();
}
