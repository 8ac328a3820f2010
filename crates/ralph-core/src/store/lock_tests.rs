use super::*;

#[test]
fn a_second_lock_is_refused_with_the_holders_pid_until_the_first_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(LOCK_FILE);
    let first = lock(&path, None).unwrap();
    match lock(&path, None) {
        Err(LockError::Held { pid, path: p, .. }) => {
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
    assert_eq!(held_by(&user).unwrap(), Some(HeldBy::Loop));
    drop(first);
    assert_eq!(held_by(&user).unwrap(), None);
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
    // What `held_by` holds for an instant, held here across the first try.
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

#[test]
fn the_lock_file_names_the_holders_pid_and_host() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(LOCK_FILE);
    let _held = lock(&path, None).unwrap();
    let holder = read_holder(&path).unwrap();
    assert_eq!(holder.pid, std::process::id());
    assert_eq!(holder.host, this_host());
    assert!(holder.on_this_host());
}

#[test]
fn a_lock_file_restored_from_another_host_does_not_hold_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(LOCK_FILE);
    // What an artifact or a volume brings back: the file, without the other machine's flock.
    std::fs::write(&path, "77 some-other-runner-4f7c\n").unwrap();
    assert_eq!(held_by(&path).unwrap(), None);
    let _held = lock(&path, None).unwrap();
    assert_eq!(read_holder(&path).unwrap().pid, std::process::id());
}

#[test]
fn a_lock_held_on_another_host_is_said_so_without_a_kill_to_run_here() {
    let elsewhere = LockError::Held {
        pid: Some(77),
        by: HeldBy::Loop,
        host: Some("runner-b".to_owned()),
        path: "w/.ralph/loop.lock".into(),
    };
    let text = elsewhere.to_string();
    assert!(
        text.contains("(pid 77 on host runner-b) is already running"),
        "{text}"
    );
    assert!(!text.contains("kill"), "{text}");
    let here = LockError::Held {
        pid: Some(77),
        by: HeldBy::Loop,
        host: None,
        path: "w/.ralph/loop.lock".into(),
    };
    assert!(here.to_string().contains("(pid 77) is already running"));
    assert!(here.to_string().contains("`kill -INT 77`"));
}

#[test]
fn a_user_directory_that_cannot_hold_a_lock_leaves_it_out_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(LOCK_FILE);
    // A file where the user's lock directory would be (as unusable as one this user
    // may not write: tests run as root, who may write anywhere).
    std::fs::write(dir.path().join("user"), "").unwrap();
    let user = dir.path().join("user/ralph/locks/w.lock");
    let first = lock(&path, Some(&user)).expect("the lock under .ralph/ is enough");
    let why = first.user_lock_skipped().expect("a reason").to_string();
    assert!(why.contains("user/ralph/locks"), "{why}");
    // It still is the lock: a second loop is refused.
    assert!(matches!(
        lock(&path, Some(&user)),
        Err(LockError::Held { path: p, .. }) if p == path
    ));
    // With a usable directory, nothing is left out.
    let usable = dir.path().join("home/ralph/locks/w.lock");
    drop(first);
    assert!(
        lock(&path, Some(&usable))
            .unwrap()
            .user_lock_skipped()
            .is_none()
    );
}

#[test]
fn a_removal_lock_refuses_a_running_loop_and_keeps_one_from_starting() {
    let dir = tempfile::tempdir().unwrap();
    let ralph = super::super::RalphDir::in_workspace(dir.path());
    // A running loop: the removal is refused.
    let running = ralph.lock().unwrap();
    assert!(matches!(
        ralph.lock_for_removal(HeldBy::Remove),
        Err(LockError::Held { pid, .. }) if pid == Some(std::process::id())
    ));
    drop(running);
    // Held for a removal: a loop cannot start until it is let go.
    let removing = ralph.lock_for_removal(HeldBy::Remove).unwrap();
    assert!(matches!(ralph.lock(), Err(LockError::Held { .. })));
    drop(removing);
    assert!(ralph.lock().is_ok());
}

#[test]
fn a_removal_lock_creates_nothing_in_a_workspace_without_ralph_files() {
    let dir = tempfile::tempdir().unwrap();
    let ralph = super::super::RalphDir::in_workspace(dir.path());
    let removing = ralph.lock_for_removal(HeldBy::Remove).unwrap();
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // With a user directory, the user's lock keeps a loop from starting there too, and
    // the loop makes nothing there first (a directory made while the workspace is being
    // deleted would fail the deletion).
    if user_lock_path(dir.path()).is_some() {
        assert!(matches!(ralph.lock(), Err(LockError::Held { .. })));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
    drop(removing);
}

#[test]
fn a_loop_never_makes_its_workspace_again_once_it_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("worktree");
    let ralph = super::super::RalphDir::in_workspace(&gone);
    assert!(matches!(ralph.lock(), Err(LockError::Io { .. })));
    assert!(!gone.exists());
}

#[test]
fn a_loop_refused_while_a_worktree_command_holds_the_lock_names_that_command() {
    let dir = tempfile::tempdir().unwrap();
    let ralph = super::super::RalphDir::in_workspace(dir.path());
    ralph.lock().map(drop).unwrap();
    let pid = std::process::id();
    for (by, doing) in [
        (
            HeldBy::Land,
            "`ralph runs land` (pid {pid}) is landing this worktree",
        ),
        (
            HeldBy::Remove,
            "`ralph runs rm` (pid {pid}) is removing this worktree",
        ),
        // The landing's base is checked out here (the main checkout, say): it is not
        // this checkout that is being landed.
        (
            HeldBy::LandBase,
            "`ralph runs land` (pid {pid}) is fast-forwarding the branch checked out here \
             to the worktree loop it lands",
        ),
    ] {
        let held = ralph.lock_for_removal(by).unwrap();
        // No loop runs there: what holds it is said for what it is.
        assert_eq!(ralph.held_by().unwrap(), Some(by));
        assert!(!ralph.loop_running().unwrap());
        assert_eq!(ralph.holder_pid(), Some(pid));
        let refused = ralph.lock().unwrap_err();
        assert!(
            matches!(refused, LockError::Held { by: b, pid: Some(p), .. } if b == by && p == pid),
            "{refused:?}"
        );
        let text = refused.to_string();
        assert!(
            text.contains(&doing.replace("{pid}", &pid.to_string())),
            "{text}"
        );
        assert!(!text.contains("another ralph loop"), "{text}");
        if by == HeldBy::LandBase {
            assert!(!text.contains("landing this worktree"), "{text}");
        }
        assert!(text.contains(&format!("`kill -INT {pid}`")), "{text}");
        drop(held);
    }
    // A loop's own lock is a loop's, as before.
    let running = ralph.lock().unwrap();
    assert_eq!(ralph.held_by().unwrap(), Some(HeldBy::Loop));
    assert!(ralph.loop_running().unwrap());
    drop(running);
    assert_eq!(ralph.held_by().unwrap(), None);
}
