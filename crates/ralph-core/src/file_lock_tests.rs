use std::cell::RefCell;
use std::fs::File;
use std::time::Duration;

use nix::fcntl::{Flock, FlockArg};
use pretty_assertions::assert_eq;

use super::*;

const LIMIT: Duration = Duration::from_millis(300);
const NOTICE_AFTER: Duration = Duration::from_millis(50);

/// The lock file, held by a second open of it (`flock` locks belong to an open file, so
/// this process conflicts with itself, as another process would).
fn held(dir: &Path) -> (PathBuf, Flock<File>) {
    let path = dir.join("tasks.jsonl.lock");
    let holder = File::create(&path).unwrap();
    let lock = Flock::lock(holder, FlockArg::LockExclusive).unwrap();
    (path, lock)
}

/// The patience of a test: its times, notice and stop, the usual pacing.
fn patience<'a>(
    limit: Option<Duration>,
    notice_after: Duration,
    notice: &'a dyn Fn(&LockWait<'_>),
    stopped: &'a dyn Fn() -> bool,
) -> Patience<'a> {
    Patience {
        limit,
        notice_after,
        notice,
        stopped,
        retry_max: LOCK_RETRY_MAX,
    }
}

#[test]
fn a_held_lock_is_waited_for_a_bounded_time_telling_the_wait_and_naming_the_holder() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _holder) = held(dir.path());
    let told = RefCell::new(Vec::new());
    let notice = |wait: &LockWait<'_>| told.borrow_mut().push(wait.holder.clone());
    let started = Instant::now();
    let err = lock_patiently(
        File::open(&path).unwrap(),
        LockKind::Exclusive,
        &path,
        &patience(Some(LIMIT), NOTICE_AFTER, &notice, &|| false),
    )
    .unwrap_err();
    assert!(started.elapsed() >= LIMIT);
    assert_eq!(err.kind(), io::ErrorKind::TimedOut);
    let me = format!("process {}", std::process::id());
    assert!(err.to_string().starts_with(&me), "{err}");
    assert!(err.to_string().contains("end it"), "{err}");
    let told = told.into_inner();
    assert_eq!(told.len(), 1, "the wait is told once");
    assert_eq!(told[0].as_ref().map(|h| h.pid), Some(std::process::id()));
}

#[test]
fn a_lock_let_go_during_the_wait_is_taken() {
    let dir = tempfile::tempdir().unwrap();
    let (path, holder) = held(dir.path());
    let release = std::thread::spawn(move || {
        std::thread::sleep(NOTICE_AFTER);
        drop(holder);
    });
    let lock = lock_patiently(
        File::open(&path).unwrap(),
        LockKind::Shared,
        &path,
        &patience(
            Some(LIMIT * 10),
            LIMIT * 10,
            &|_| panic!("not told: the wait was short"),
            &|| false,
        ),
    );
    release.join().unwrap();
    assert!(lock.is_ok());
}

#[test]
fn an_unbounded_wait_ends_when_it_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _holder) = held(dir.path());
    let tries = std::cell::Cell::new(0);
    let stopped = || {
        tries.set(tries.get() + 1);
        tries.get() > 3
    };
    let err = lock_patiently(
        File::open(&path).unwrap(),
        LockKind::Exclusive,
        &path,
        &patience(None, LIMIT * 10, &|_| panic!("not told"), &stopped),
    )
    .unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::Interrupted);
    assert_eq!(tries.get(), 4);
}

#[test]
fn the_holder_is_read_from_proc_locks_skipping_waiters_and_other_files() {
    let dev = nix::sys::stat::makedev(0x103, 0x2a);
    let locks = "1: POSIX  ADVISORY  WRITE 10 103:2a:77 0 EOF\n\
                 2: FLOCK  ADVISORY  WRITE 11 103:2a:78 0 EOF\n\
                 2: -> FLOCK  ADVISORY  WRITE 12 103:2a:77 0 EOF\n\
                 3: FLOCK  ADVISORY  READ 13 103:2a:77 0 EOF\n";
    assert_eq!(holder_in(locks, dev, 77), Some(13));
    assert_eq!(holder_in(locks, dev, 79), None);
}
