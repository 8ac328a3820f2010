use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

use super::*;

/// How long a process's state is waited for: a signal is delivered in microseconds; the
/// rest is room for a loaded machine.
const SETTLE: Duration = Duration::from_secs(5);

/// A `sleep` in a process group of its own, killed when dropped.
struct Sleeper(Child);

impl Sleeper {
    fn start() -> Sleeper {
        let child = Command::new("sleep")
            .arg("60")
            .process_group(0)
            .spawn()
            .expect("start sleep");
        Sleeper(child)
    }

    fn pgid(&self) -> i32 {
        i32::try_from(self.0.id()).expect("pid fits")
    }

    /// Waits until its state (`/proc/PID/stat`) is `stopped` (`T`) or not; false when it
    /// did not come.
    fn becomes(&self, stopped: bool) -> bool {
        let until = Instant::now() + SETTLE;
        while Instant::now() < until {
            if self.stopped() == stopped {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    fn stopped(&self) -> bool {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.0.id()))
            .expect("read /proc/PID/stat");
        // The state follows the command name, which is in parentheses.
        let after_name = &stat[stat.rfind(')').expect("stat has a name") + 1..];
        after_name.split_whitespace().next() == Some("T")
    }
}

impl Drop for Sleeper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_pause_stops_the_enrolled_groups_and_the_last_resume_continues_them() {
    let pauses = Pauses::new();
    let sleeper = Sleeper::start();
    let _enrolled = pauses.enroll(sleeper.pgid());
    let t0 = Instant::now();
    assert_eq!(pauses.pause(t0), 1);
    assert!(sleeper.becomes(true), "not stopped by the pause");
    // A second pause (a read from the background during Ctrl-Z) and its resume.
    pauses.pause(t0);
    pauses.resume(t0 + Duration::from_secs(1));
    assert!(sleeper.becomes(true), "continued before the last resume");
    assert!(pauses.watch().borrow().paused);
    pauses.resume(t0 + Duration::from_secs(3));
    assert!(sleeper.becomes(false), "not continued by the last resume");
    assert_eq!(
        *pauses.watch().borrow(),
        PauseState {
            paused: false,
            total: Duration::from_secs(3)
        }
    );
}

#[test]
fn a_group_that_starts_during_a_pause_is_stopped_at_once_and_continued_with_the_rest() {
    let pauses = Pauses::new();
    pauses.pause(Instant::now());
    let sleeper = Sleeper::start();
    let enrolled = pauses.enroll(sleeper.pgid());
    assert!(
        sleeper.becomes(true),
        "started during the pause and not stopped"
    );
    // A run that ends during the pause leaves nothing stopped behind.
    drop(enrolled);
    assert!(sleeper.becomes(false), "left stopped by a run that ended");
    pauses.resume(Instant::now());
}

#[test]
fn a_resume_without_a_pause_changes_nothing() {
    let pauses = Pauses::new();
    pauses.resume(Instant::now());
    assert_eq!(*pauses.watch().borrow(), PauseState::default());
}
