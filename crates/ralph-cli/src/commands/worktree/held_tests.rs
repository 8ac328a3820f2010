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
