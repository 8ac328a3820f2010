use super::*;

#[test]
fn the_workspaces_in_a_checkout_are_its_directories_with_a_ralph_dir_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    let outside = dir.path().join("outside");
    for made in [
        "tree/.ralph",
        "tree/sub/.ralph",
        "tree/sub/deeper/.ralph",
        "tree/plain/dir",
        // Another checkout nested in this one: judged on its own.
        "tree/nested/.git",
        "tree/nested/.ralph",
        "tree/nested/inner/.ralph",
        // ralph's own directory: a worktree an earlier version nested there.
        "tree/.ralph/worktrees/old/.ralph",
        "outside/.ralph",
    ] {
        std::fs::create_dir_all(dir.path().join(made)).unwrap();
    }
    // A link to a directory elsewhere is not followed.
    std::os::unix::fs::symlink(&outside, tree.join("link")).unwrap();
    // A file named `.ralph` is no workspace.
    std::fs::create_dir_all(tree.join("file")).unwrap();
    std::fs::write(tree.join("file/.ralph"), "").unwrap();

    assert_eq!(
        workspaces_in(&tree),
        vec![tree.join("sub"), tree.join("sub/deeper")]
    );
}

/// A worktree's top with `sub`, a directory where a loop ran (its own `.ralph/`).
fn tree_with_sub() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    std::fs::create_dir_all(tree.join("sub").join(RALPH_DIR)).unwrap();
    (dir, tree)
}

/// A loop's pid, as the lock names it.
const LOOP_PID: u32 = 4242;

/// Holds every workspace but `sub` while `loop_in_sub` says a loop holds it; counts the
/// tries of each.
fn holding(
    tree: &Path,
    loop_in_sub: &std::cell::Cell<bool>,
    tries: &mut Vec<PathBuf>,
) -> impl FnMut(&Path) -> Holding {
    let sub = tree.join("sub");
    move |workspace| {
        tries.push(workspace.to_path_buf());
        match workspace == sub && loop_in_sub.get() {
            true => Err((HeldBy::Loop, Some(LOOP_PID))),
            false => Ok(None),
        }
    }
}

#[test]
fn a_loop_starting_below_the_top_that_gives_up_does_not_refuse_the_command() {
    let (_dir, tree) = tree_with_sub();
    // It took its lock in `sub`; at its look at the top, which the command holds, it
    // gives up: by the command's first wait.
    let loop_in_sub = std::cell::Cell::new(true);
    let mut tries = Vec::new();
    let mut waits = 0;
    let held = hold_all_waiting(
        &tree,
        None,
        &mut holding(&tree, &loop_in_sub, &mut tries),
        &mut || {
            waits += 1;
            loop_in_sub.set(false);
        },
    );
    assert!(held.is_ok(), "refused for a loop that gave up");
    assert_eq!(waits, 1);
    assert_eq!(tries, [tree.clone(), tree.join("sub"), tree.join("sub")]);
}

#[test]
fn a_loop_running_below_the_top_refuses_the_command_after_a_few_tries() {
    let (_dir, tree) = tree_with_sub();
    let loop_in_sub = std::cell::Cell::new(true);
    let mut tries = Vec::new();
    let mut waits = 0;
    let refused = hold_all_waiting(
        &tree,
        None,
        &mut holding(&tree, &loop_in_sub, &mut tries),
        &mut || waits += 1,
    )
    .err()
    .expect("held under a running loop");
    assert_eq!(
        (refused.by, &refused.workspace, refused.pid),
        (HeldBy::Loop, &tree.join("sub"), Some(LOOP_PID))
    );
    assert_eq!(waits, STARTING_LOOP_RETRIES);
}

#[test]
fn a_loop_at_the_top_or_another_command_refuses_at_once() {
    let (_dir, tree) = tree_with_sub();
    let sub = tree.join("sub");
    for (at, by) in [
        (&tree, HeldBy::Loop),
        (&sub, HeldBy::Land),
        (&sub, HeldBy::Remove),
    ] {
        let mut waits = 0;
        let refused = hold_all_waiting(
            &tree,
            None,
            &mut |workspace| match workspace == at.as_path() {
                true => Err((by, Some(LOOP_PID))),
                false => Ok(None),
            },
            &mut || waits += 1,
        )
        .err()
        .expect("held while another holds it");
        assert_eq!((refused.by, &refused.workspace), (by, at));
        assert_eq!(waits, 0, "{by:?} in {at:?}");
    }
}
