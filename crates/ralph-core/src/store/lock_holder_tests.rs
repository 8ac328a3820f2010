use std::io::Write;

use super::*;

#[test]
fn a_holder_recorded_on_another_host_is_not_this_hosts() {
    let elsewhere = LockHolder::parse("77 some-other-runner-4f7c\n").unwrap();
    assert_eq!(elsewhere.pid, 77);
    assert_eq!(elsewhere.host.as_deref(), Some("some-other-runner-4f7c"));
    assert_eq!(elsewhere.on_this_host(), this_host().is_none());
    // An older ralph wrote the pid alone: taken to be this machine's, as before.
    assert!(LockHolder::parse("77").unwrap().on_this_host());
    assert_eq!(LockHolder::parse("not a pid"), None);
}

#[test]
fn the_record_names_the_command_that_holds_the_lock_on_a_line_of_its_own() {
    for by in [HeldBy::Loop, HeldBy::Land, HeldBy::LandBase, HeldBy::Remove] {
        for host in [Some("devbox"), None] {
            let text = LockHolder::record(by, host);
            let read = LockHolder::parse(&text).unwrap();
            assert_eq!(read.pid, std::process::id(), "{text:?}");
            assert_eq!(read.host.as_deref(), host, "{text:?}");
            assert_eq!(read.by, by, "{text:?}");
        }
    }
    // A loop writes what every ralph wrote before: `<pid> <host>` alone.
    assert_eq!(
        LockHolder::record(HeldBy::Loop, Some("devbox")),
        format!("{} devbox\n", std::process::id())
    );
}

#[test]
fn a_second_line_this_ralph_does_not_know_counts_as_a_loop() {
    for text in [
        "77 devbox\nsomething else\n",
        "77 devbox\n\u{1b}[2Jland\n",
        "77 devbox\nlanding\n",
        "77 devbox\n\n",
    ] {
        assert_eq!(
            LockHolder::parse(text).unwrap().by,
            HeldBy::Loop,
            "{text:?}"
        );
    }
    // Only the first line names the pid and host.
    let holder = LockHolder::parse("77\nland\n").unwrap();
    assert_eq!((holder.host, holder.by), (None, HeldBy::Land));
}

#[test]
fn a_hostile_lock_file_is_read_no_further_than_its_first_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // A huge file: its first line is read, the rest never.
    let huge = dir.path().join("huge.lock");
    let mut file = std::fs::File::create(&huge).unwrap();
    write!(file, "77 devbox\nland\n").unwrap();
    file.write_all(&vec![b'x'; 8 * 1024 * 1024]).unwrap();
    drop(file);
    assert_eq!(read_holder(&huge).unwrap().by, HeldBy::Land);
    // A pid and host padded past what is read: no holder, no error.
    let padded = dir.path().join("padded.lock");
    std::fs::write(&padded, format!("{}77 devbox\nland\n", " ".repeat(200))).unwrap();
    assert_eq!(read_holder(&padded), None);
    // Bytes that are not text.
    let binary = dir.path().join("binary.lock");
    std::fs::write(&binary, b"77 \xff\xfe\nland\n").unwrap();
    assert_eq!(read_holder(&binary).unwrap().by, HeldBy::Land);
    // A link to a holder's file is not the lock: not followed.
    let link = dir.path().join("link.lock");
    std::os::unix::fs::symlink(&huge, &link).unwrap();
    assert_eq!(read_holder(&link), None);
    // A FIFO without a writer: never waited on.
    let fifo = dir.path().join("fifo.lock");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    assert_eq!(read_holder(&fifo), None);
}
