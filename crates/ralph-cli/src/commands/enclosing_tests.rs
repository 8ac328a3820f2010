use super::*;

/// A temporary tree with the directories `dirs` and the empty files `files` (paths from
/// its top).
fn tree(dirs: &[&str], files: &[&str]) -> tempfile::TempDir {
    let top = tempfile::tempdir().unwrap();
    for dir in dirs {
        std::fs::create_dir_all(top.path().join(dir)).unwrap();
    }
    for file in files {
        std::fs::write(top.path().join(file), "").unwrap();
    }
    top
}

#[test]
fn a_bare_ralph_dir_in_a_subdirectory_does_not_hide_the_project_above() {
    let top = tree(
        &[
            ".git",
            ".ralph/runs/20260101T000000Z",
            "sub/deep/.ralph/agent",
        ],
        &["ralph.yml"],
    );
    let top = top.path();
    let found = find(&top.join("sub/deep"));
    assert_eq!(found.workspace, top);
    assert_eq!(found.passed_over, [top.join("sub/deep")]);
    let note = found.note().unwrap();
    assert!(note.contains("sub/deep/.ralph"), "{note}");
    assert!(note.contains("neither a ralph.yml"), "{note}");
}

#[test]
fn runs_left_in_a_subdirectory_without_a_config_do_not_hide_the_project_above() {
    let top = tree(
        &[
            ".git",
            ".ralph/runs/20260101T000000Z",
            "sub/.ralph/runs/20260101T000000Z",
        ],
        &["ralph.yml"],
    );
    let top = top.path();
    let found = find(&top.join("sub"));
    assert_eq!(found.workspace, top);
    assert!(found.note().unwrap().contains("has runs but no ralph.yml"));
}

#[test]
fn the_project_above_needs_no_runs_yet_to_win_over_a_bare_ralph_dir() {
    let top = tree(&[".git", ".ralph", "sub/.ralph/agent"], &["ralph.yml"]);
    let top = top.path();
    assert_eq!(find(&top.join("sub")).workspace, top);
}

#[test]
fn a_subdirectory_with_a_project_of_its_own_is_its_workspace() {
    let top = tree(
        &[
            ".git",
            ".ralph/runs/20260101T000000Z",
            "packages/api/.ralph",
            "packages/api/src",
        ],
        &["ralph.yml", "packages/api/ralph.yml"],
    );
    let top = top.path();
    let found = find(&top.join("packages/api/src"));
    assert_eq!(found.workspace, top.join("packages/api"));
    assert_eq!(found.note(), None);
}

#[test]
fn without_any_mark_the_nearest_ralph_dir_is_taken_as_before() {
    let top = tree(&[".git", ".ralph", "sub/.ralph"], &[]);
    let top = top.path();
    let found = find(&top.join("sub"));
    assert_eq!(found.workspace, top.join("sub"));
    assert_eq!(found.note(), None);
}

#[test]
fn the_search_stops_at_the_top_of_the_checkout() {
    // A worktree loop's checkout inside the main one's `.ralph/worktrees/`.
    let outer = tree(
        &[
            ".git",
            ".ralph/runs/20260101T000000Z",
            "inner/src",
            "inner/.ralph",
        ],
        &["ralph.yml", "inner/.git"],
    );
    let outer = outer.path();
    assert_eq!(
        find(&outer.join("inner/src")).workspace,
        outer.join("inner")
    );
    std::fs::remove_dir(outer.join("inner/.ralph")).unwrap();
    assert_eq!(
        find(&outer.join("inner/src")).workspace,
        outer.join("inner/src")
    );
}

/// A checkout's `.git` is seen, never followed: one that is a dangling link (a moved
/// gitdir) still marks the checkout's top, as it does for every other search for the edge.
#[test]
fn a_dangling_git_link_still_marks_the_top_of_the_checkout() {
    let outer = tree(
        &[".git", ".ralph/runs/20260101T000000Z", "inner/src"],
        &["ralph.yml"],
    );
    let outer = outer.path();
    std::os::unix::fs::symlink(outer.join("moved-away"), outer.join("inner/.git")).unwrap();
    assert_eq!(
        find(&outer.join("inner/src")).workspace,
        outer.join("inner/src")
    );
}

#[test]
fn an_empty_runs_dir_is_no_run_store_and_does_not_hide_one_above() {
    // A project run with `-b pi -p …` and no ralph.yml: its runs are the only mark.
    let top = tree(
        &[".git", ".ralph/runs/20260101T000000Z", "sub/.ralph/runs"],
        &[],
    );
    let top = top.path();
    let found = find(&top.join("sub"));
    assert_eq!(found.workspace, top);
    assert_eq!(found.passed_over, [top.join("sub")]);
    assert!(found.note().unwrap().contains("nor any run"));
}

#[test]
fn a_loop_running_in_a_subdirectory_is_its_workspace_whatever_is_above() {
    // `ralph run` typed in `sub/` of a project runs there (it only names the ralph.yml
    // above); `ralph steer` typed beside it must reach it, not the project.
    let top = tree(
        &[
            ".git",
            ".ralph/runs/20260101T000000Z",
            "sub/.ralph/runs/20260102T000000Z",
        ],
        &["ralph.yml"],
    );
    let top = top.path();
    assert_eq!(find(&top.join("sub")).workspace, top);
    let running = RalphDir::in_workspace(&top.join("sub")).lock().unwrap();
    let found = find(&top.join("sub"));
    assert_eq!(found.workspace, top.join("sub"));
    assert_eq!(found.note(), None);
    drop(running);
    assert_eq!(find(&top.join("sub")).workspace, top);
}
