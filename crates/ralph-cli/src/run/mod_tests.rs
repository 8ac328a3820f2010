use std::path::Path;

use super::display_path;

#[test]
fn a_path_is_shown_from_the_workspace_and_the_workspace_itself_as_a_dot() {
    let shown = |path: &str| display_path(Path::new(path), Path::new("/r/.ralph/worktrees/a"));
    assert_eq!(
        shown("/r/.ralph/worktrees/a/.ralph/runs/x"),
        ".ralph/runs/x"
    );
    assert_eq!(shown("/r/.ralph/worktrees/a"), ".");
    assert_eq!(shown("/r/.ralph/worktrees/a/"), ".");
    assert_eq!(shown("/r/.ralph/worktrees/b"), "/r/.ralph/worktrees/b");
}
