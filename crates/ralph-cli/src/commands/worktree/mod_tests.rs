use std::path::Path;

use super::seen_from;

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
