use super::*;

#[test]
fn a_second_lock_is_refused_with_the_holders_pid_until_the_first_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(LOCK_FILE);
    let first = lock(&path, None).unwrap();
    match lock(&path, None) {
        Err(LockError::Held { pid, path: p }) => {
            assert_eq!((pid, p), (Some(std::process::id()), path.clone()));
        }
        other => panic!("expected Held, got {other:?}"),
    }
    drop(first);
    assert!(lock(&path, None).is_ok());
}

#[test]
fn the_users_lock_holds_when_the_workspaces_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(LOCK_FILE);
    let user = dir.path().join("user/ralph/locks/w.lock");
    let first = lock(&path, Some(&user)).unwrap();
    // The agent deleted `.ralph/` with its lock: a second loop still finds the user's.
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(
        lock(&path, Some(&user)),
        Err(LockError::Held { path: p, .. }) if p == user
    ));
    assert!(is_held(&user).unwrap());
    drop(first);
    assert!(!is_held(&user).unwrap());
    assert!(lock(&path, Some(&user)).is_ok());
}

#[test]
fn a_workspace_gets_the_same_user_lock_name_however_it_is_spelled() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("x")).unwrap();
    let spelled = dir.path().join(".").join("x").join("..");
    let named = user_lock_path(dir.path());
    assert_eq!(named, user_lock_path(&spelled));
    if std::env::var_os("HOME").is_some_and(|h| std::path::Path::new(&h).is_absolute()) {
        assert!(named.is_some_and(|p| {
            p.ends_with(format!(
                "{:016x}.lock",
                ralph_types::user_dirs::fnv1a(
                    dir.path()
                        .canonicalize()
                        .unwrap()
                        .as_os_str()
                        .as_encoded_bytes()
                )
            ))
        }));
    }
}

#[test]
fn a_loop_starting_while_someone_asks_whether_one_runs_still_starts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(LOCK_FILE);
    drop(lock(&path, None).unwrap());
    // What `is_held` holds for an instant, held here across the first try.
    let probe = Flock::lock(
        crate::fsafe::open_read(&path, crate::fsafe::Links::Refuse).unwrap(),
        FlockArg::LockSharedNonblock,
    )
    .unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(PROBE_WAIT);
        drop(probe);
    });
    assert!(lock(&path, None).is_ok());
    release.join().unwrap();
}
