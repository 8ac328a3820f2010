use std::path::Path;

use super::{checkouts, seen_from};

#[test]
fn a_path_is_seen_from_where_ralph_was_started() {
    let summary = Path::new("/r/.ralph/worktrees/a/.ralph/runs/x/summary.md");
    let seen = |from: &str| seen_from(summary, Path::new(from));
    assert_eq!(
        seen("/r"),
        Path::new(".ralph/worktrees/a/.ralph/runs/x/summary.md")
    );
    assert_eq!(
        seen("/r/src/deep"),
        Path::new("../../.ralph/worktrees/a/.ralph/runs/x/summary.md")
    );
    assert_eq!(
        seen("/r/.ralph/worktrees/a"),
        Path::new(".ralph/runs/x/summary.md")
    );
    assert_eq!(
        seen("/other"),
        Path::new("../r/.ralph/worktrees/a/.ralph/runs/x/summary.md")
    );
    // Nothing in common (a relative `from`): the path as it is.
    assert_eq!(seen("r"), summary);
}

#[test]
fn checkouts_are_read_whole_from_nul_separated_output() {
    let listed = b"worktree /r/two\nlines\0HEAD abc\0branch refs/heads/main\0\0\
worktree /r/.ralph/worktrees/a\0HEAD def\0detached\0prunable gitdir file points to non-existent location\0\0";
    let found = checkouts(listed);
    let seen: Vec<_> = found
        .iter()
        .map(|c| (c.path.as_path(), c.branch.as_deref(), c.prunable))
        .collect();
    assert_eq!(
        seen,
        [
            (Path::new("/r/two\nlines"), Some("refs/heads/main"), false),
            (Path::new("/r/.ralph/worktrees/a"), None, true),
        ]
    );
}
