use std::process::{Command, Stdio};

use super::*;
use crate::supervise::tree::read_stat;

/// A `sleep` working in `dir`, killed and reaped when dropped.
struct Sleep(std::process::Child);

impl Drop for Sleep {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn sleep_in(dir: &Path) -> (Sleep, ProcStat) {
    let child = Command::new("sleep")
        .arg("60")
        .current_dir(dir)
        .stdin(Stdio::null())
        .spawn()
        .expect("spawn sleep");
    let pid = i32::try_from(child.id()).expect("pid");
    let stat = read_stat(pid).expect("its stat");
    (Sleep(child), stat)
}

#[test]
fn a_process_is_taken_by_where_it_works_when_it_has_no_terminal_and_started_late_enough() {
    let (dir, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let dir = dir.path().canonicalize().unwrap();
    let inner = dir.join("src");
    std::fs::create_dir(&inner).unwrap();
    let (_a, in_sub) = sleep_in(&inner);
    let (_b, elsewhere) = sleep_in(other.path());
    // `sleep` has whatever terminal the test has: as `/proc` would show it without one.
    let detached = |s: ProcStat| ProcStat { tty_nr: 0, ..s };
    let stats = [detached(in_sub), detached(elsewhere)];
    assert_eq!(
        working_in(&dir, &stats, 0),
        BTreeSet::from([in_sub.pid]),
        "a process in a subdirectory, not one elsewhere"
    );
    // Started before the dead ralph: not its agent's.
    assert!(working_in(&dir, &stats, in_sub.start_ticks + 1).is_empty());
    // With a terminal: a shell or an editor of the user's.
    let with_terminal = [ProcStat {
        tty_nr: 34816,
        ..in_sub
    }];
    assert!(working_in(&dir, &with_terminal, 0).is_empty());
}
