use super::*;
use crate::store::RalphDir;

/// A checkout's top (a `.git` directory in it, and a `.ralph/`: a loop ran there) in a
/// temporary directory, with `sub/deeper`, where no loop ran.
fn checkout() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path().join("top");
    std::fs::create_dir_all(top.join(GIT_ENTRY)).unwrap();
    std::fs::create_dir_all(top.join(RALPH_DIR)).unwrap();
    std::fs::create_dir_all(top.join("sub/deeper")).unwrap();
    (dir, top)
}

#[test]
fn the_checkout_above_is_the_nearest_directory_with_a_git_entry() {
    let (dir, top) = checkout();
    assert_eq!(checkout_above(&top.join("sub/deeper")), Some(top.clone()));
    assert_eq!(checkout_above(&top.join("sub")), Some(top.clone()));
    // At the top itself: its own lock is the one the commands hold.
    assert_eq!(checkout_above(&top), None);
    // A linked worktree's `.git` is a file; a nested one is the nearer top.
    std::fs::write(top.join("sub").join(GIT_ENTRY), "gitdir: elsewhere\n").unwrap();
    assert_eq!(
        checkout_above(&top.join("sub/deeper")),
        Some(top.join("sub"))
    );
    // Outside any checkout (nothing above the temporary directory has a `.git`, as far as
    // this test can tell: it says nothing when one does).
    if dir.path().ancestors().all(|d| !has_git(d)) {
        assert_eq!(checkout_above(dir.path()), None);
    }
}

#[test]
fn a_loop_below_the_top_of_a_checkout_being_landed_or_removed_is_refused_and_makes_nothing() {
    let (_dir, top) = checkout();
    let pid = std::process::id();
    let sub = RalphDir::in_workspace(&top.join("sub/deeper"));
    for (by, doing) in [
        (HeldBy::Land, "is landing this worktree"),
        (HeldBy::Remove, "is removing this worktree"),
        (
            HeldBy::LandBase,
            "is fast-forwarding the branch checked out here",
        ),
    ] {
        let held = RalphDir::in_workspace(&top).lock_for_removal(by).unwrap();
        let refused = sub.lock().unwrap_err();
        assert!(
            matches!(refused, LockError::Held { by: b, pid: Some(p), .. } if b == by && p == pid),
            "{refused:?}"
        );
        let text = refused.to_string();
        assert!(text.contains(&format!("(pid {pid}) {doing}")), "{text}");
        assert!(!sub.path().exists(), "a .ralph/ was left in the worktree");
        drop(held);
    }
    // Once the command is done, the loop starts.
    let running = sub.lock().unwrap();
    drop(running);
}

#[test]
fn a_loop_at_the_top_does_not_keep_loops_below_it_from_starting() {
    let (_dir, top) = checkout();
    let at_top = RalphDir::in_workspace(&top).lock().unwrap();
    assert!(refuse_if_held(&top).is_ok());
    let below = RalphDir::in_workspace(&top.join("sub")).lock().unwrap();
    drop((below, at_top));
}

#[test]
fn a_command_that_took_the_top_after_the_loops_first_look_is_seen_at_its_second() {
    let (_dir, top) = checkout();
    let sub = RalphDir::in_workspace(&top.join("sub"));
    // The state a loop is in between its two looks: its own lock taken, the top free;
    // then the landing takes the top's lock.
    let own = sub.lock().unwrap();
    let landing = RalphDir::in_workspace(&top)
        .lock_for_removal(HeldBy::Land)
        .unwrap();
    assert!(matches!(
        refuse_if_held(&top),
        Err(LockError::Held {
            by: HeldBy::Land,
            ..
        })
    ));
    drop((own, landing));
}
