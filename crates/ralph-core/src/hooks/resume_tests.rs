use std::os::unix::fs::symlink;

use super::*;

fn ralph_dir() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".ralph");
    fs::create_dir(&dir).unwrap();
    (tmp, dir)
}

#[test]
fn a_request_is_taken_once() {
    let (_tmp, dir) = ralph_dir();
    let signal = ResumeSignal::new(&dir);
    assert!(!signal.take().unwrap());
    signal.request().unwrap();
    assert!(signal.take().unwrap());
    assert!(!signal.take().unwrap());
}

#[test]
fn suspending_drops_an_old_request_and_marks_the_hook() {
    let (_tmp, dir) = ralph_dir();
    let signal = ResumeSignal::new(&dir);
    signal.request().unwrap();
    signal.suspend("pre.loop.start guard").unwrap();
    assert!(!signal.take().unwrap());
    assert_eq!(
        signal.suspended().unwrap().as_deref(),
        Some("pre.loop.start guard")
    );
    signal.clear().unwrap();
    assert_eq!(signal.suspended().unwrap(), None);
}

#[test]
fn a_planted_link_is_neither_followed_nor_a_request() {
    let (tmp, dir) = ralph_dir();
    let outside = tmp.path().join("outside");
    fs::write(&outside, "keep").unwrap();
    symlink(&outside, dir.join(RESUME_FILE)).unwrap();
    let signal = ResumeSignal::new(&dir);
    assert!(!signal.take().unwrap());
    assert!(signal.request().is_err());
    assert_eq!(fs::read_to_string(&outside).unwrap(), "keep");
    symlink(&outside, dir.join(SUSPENDED_FILE)).unwrap();
    assert!(signal.suspended().is_err());
}
