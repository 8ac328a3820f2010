use std::time::UNIX_EPOCH;

use super::*;

/// When a pid's process started, as `/proc` would say: nobody knows.
fn unknown(_: u32) -> Option<u64> {
    None
}

#[test]
fn the_loop_that_closed_the_inbox_is_finishing_another_is_starting() {
    let ws = tempfile::tempdir().unwrap();
    let dir = RalphDir::in_workspace(ws.path());
    let run = dir.create_run(UNIX_EPOCH).unwrap();
    assert_eq!(
        dir.inbox_listener(&run, unknown).unwrap(),
        InboxListener::NoLoop
    );
    let lock = dir.lock().unwrap();
    assert_eq!(
        dir.inbox_listener(&run, unknown).unwrap(),
        InboxListener::Loop
    );

    // This process holds the lock and closes the inbox: the loop is finishing.
    run.close_inbox(Some(500)).unwrap();
    assert_eq!(
        run.inbox_closed_by().unwrap().holder.map(|by| by.pid),
        Some(std::process::id())
    );
    assert_eq!(run.inbox_closed_by().unwrap().started, Some(500));
    assert_eq!(
        dir.inbox_listener(&run, unknown).unwrap(),
        InboxListener::Finishing
    );

    // Closed by another ralph (one that ended): the lock's holder is a new loop.
    std::fs::write(run.inbox_closed_path(), "1 elsewhere\n").unwrap();
    assert_eq!(
        dir.inbox_listener(&run, unknown).unwrap(),
        InboxListener::Starting
    );
    // A mark that names no one is still a mark.
    std::fs::write(run.inbox_closed_path(), "").unwrap();
    assert_eq!(run.inbox_closed_by(), Some(ClosedBy::default()));
    assert_eq!(
        dir.inbox_listener(&run, unknown).unwrap(),
        InboxListener::Starting
    );

    run.reopen_inbox().unwrap();
    run.reopen_inbox().unwrap();
    assert_eq!(run.inbox_closed_by(), None);
    assert_eq!(
        dir.inbox_listener(&run, unknown).unwrap(),
        InboxListener::Loop
    );
    drop(lock);
    assert_eq!(
        dir.inbox_listener(&run, unknown).unwrap(),
        InboxListener::NoLoop
    );
}

#[test]
fn the_inbox_lock_is_never_taken_through_a_planted_link_fifo_or_directory() {
    let ws = tempfile::tempdir().unwrap();
    let dir = RalphDir::in_workspace(ws.path());
    let run = dir.create_run(UNIX_EPOCH).unwrap();
    let lock = run.inbox_lock_path();
    assert_eq!(lock, run.path().join("inbox.jsonl.lock"));
    let target = ws.path().join("elsewhere");
    std::fs::write(&target, "kept").unwrap();
    std::os::unix::fs::symlink(&target, &lock).unwrap();
    assert!(run.lock_inbox().is_err(), "a link");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
    std::fs::remove_file(&lock).unwrap();
    // A FIFO without a writer would block an open that waits for one.
    nix::unistd::mkfifo(&lock, nix::sys::stat::Mode::S_IRWXU).unwrap();
    assert!(run.lock_inbox().is_err(), "a FIFO");
    std::fs::remove_file(&lock).unwrap();
    std::fs::create_dir(&lock).unwrap();
    assert!(run.lock_inbox().is_err(), "a directory");
    std::fs::remove_dir(&lock).unwrap();
    drop(run.lock_inbox().expect("a lock file of its own"));
    // The run's directory gone: said as such, for emit to recreate it.
    std::fs::remove_dir_all(run.path()).unwrap();
    assert_eq!(
        run.lock_inbox().unwrap_err().kind(),
        std::io::ErrorKind::NotFound
    );
}

#[test]
fn a_loop_that_got_the_closers_pid_is_starting_not_finishing() {
    let ws = tempfile::tempdir().unwrap();
    let dir = RalphDir::in_workspace(ws.path());
    let run = dir.create_run(UNIX_EPOCH).unwrap();
    let _lock = dir.lock().unwrap();
    // This process closed the inbox, having started at tick 500.
    run.close_inbox(Some(500)).unwrap();
    let listener = |now: Option<u64>| dir.inbox_listener(&run, |_| now).unwrap();
    assert_eq!(listener(Some(500)), InboxListener::Finishing);
    // The lock's holder has the closer's pid but started at another time: the closer
    // ended, and a new loop got its pid.
    assert_eq!(listener(Some(900)), InboxListener::Starting);
    // Where the start time cannot be read, the pid decides, as before.
    assert_eq!(listener(None), InboxListener::Finishing);
    // A mark that does not say when its ralph started (an older ralph's).
    run.close_inbox(None).unwrap();
    assert_eq!(run.inbox_closed_by().unwrap().started, None);
    assert_eq!(listener(Some(900)), InboxListener::Finishing);
}

#[test]
fn a_mark_is_read_without_trusting_it() {
    let parse = |text: &str| ClosedBy::parse(text);
    assert_eq!(parse("41 box\nstarted 77\n").started, Some(77));
    assert_eq!(parse("41 box\nstarted 77\n").holder.unwrap().pid, 41);
    assert_eq!(parse("41 box\nstarted soon\n").started, None);
    assert_eq!(parse("41 box\nstarted\n").started, None);
    assert_eq!(parse("started 77\n").holder, None);
}
