use std::fs;
use std::os::unix::fs::symlink;

use super::*;

fn written(root: &Path) -> String {
    fs::read_to_string(root.join(GITIGNORE_FILE)).unwrap()
}

#[test]
fn a_missing_empty_or_cut_short_file_is_written_whole() {
    let root = tempfile::tempdir().unwrap();
    ensure(root.path()).unwrap();
    assert_eq!(written(root.path()), GITIGNORE);
    // What a full disk or a kill between the create and the write leaves.
    for left in ["", &GITIGNORE[..10], &GITIGNORE[..GITIGNORE.len() - 1]] {
        fs::write(root.path().join(GITIGNORE_FILE), left).unwrap();
        ensure(root.path()).unwrap();
        assert_eq!(written(root.path()), GITIGNORE, "after {left:?}");
    }
}

#[test]
fn an_older_ralph_s_list_gets_the_entries_added_since() {
    let root = tempfile::tempdir().unwrap();
    // Before `ralph gates` logs (`.ralph/gates/`) were listed.
    let older = "# ralph's run files (the scratchpad and specs stay versioned)\n\
                 loop.lock\ncurrent-run\nruns/\nworktrees/\n";
    fs::write(root.path().join(GITIGNORE_FILE), older).unwrap();
    ensure(root.path()).unwrap();
    assert!(written(root.path()).contains("worktrees/\ngates/\n"));
}

#[test]
fn a_file_ralph_did_not_write_is_left_alone() {
    let root = tempfile::tempdir().unwrap();
    let own = "runs/\n# mine\n";
    fs::write(root.path().join(GITIGNORE_FILE), own).unwrap();
    ensure(root.path()).unwrap();
    assert_eq!(written(root.path()), own);
    let longer = format!("{GITIGNORE}*.local\n");
    fs::write(root.path().join(GITIGNORE_FILE), &longer).unwrap();
    ensure(root.path()).unwrap();
    assert_eq!(written(root.path()), longer);
    // A link is never written through, nor replaced.
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("target");
    fs::remove_file(root.path().join(GITIGNORE_FILE)).unwrap();
    symlink(&target, root.path().join(GITIGNORE_FILE)).unwrap();
    ensure(root.path()).unwrap();
    assert!(!target.exists());
    assert!(
        fs::symlink_metadata(root.path().join(GITIGNORE_FILE))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn the_list_before_the_agent_s_lock_files_gets_them() {
    let root = tempfile::tempdir().unwrap();
    let before = "# ralph's run files (the scratchpad and specs stay versioned)\n\
                  loop.lock\ncurrent-run\nruns/\nworktrees/\ngates/\n";
    fs::write(root.path().join(GITIGNORE_FILE), before).unwrap();
    ensure(root.path()).unwrap();
    let lines: Vec<String> = written(root.path()).lines().map(str::to_owned).collect();
    for lock in AGENT_LOCK_FILES {
        assert!(lines.iter().any(|l| l == lock), "{lock} not in {lines:?}");
    }
}

#[test]
fn the_lock_files_listed_are_the_ones_ralph_takes() {
    let workspace = Path::new("/w");
    let ralph = workspace.join(super::super::RALPH_DIR);
    let memories = crate::memory::MemoryFile::in_workspace(workspace);
    let taken = [
        crate::file_lock::lock_path(memories.path()),
        crate::file_lock::lock_path(&workspace.join(crate::tasks::TASKS_FILE)),
    ];
    let listed: Vec<PathBuf> = AGENT_LOCK_FILES.iter().map(|f| ralph.join(f)).collect();
    assert_eq!(listed, taken);
}

#[test]
fn only_ralph_s_rewrite_of_an_older_list_is_its_own() {
    let root = tempfile::tempdir().unwrap();
    let older = &GITIGNORE[..GITIGNORE.find("gates/").unwrap()];
    fs::write(root.path().join(GITIGNORE_FILE), older).unwrap();
    // Not rewritten yet: the file is as committed.
    assert!(!rewritten_by_ralph(root.path(), older.as_bytes()));
    ensure(root.path()).unwrap();
    assert!(rewritten_by_ralph(root.path(), older.as_bytes()));
    // Over a list of the user's own, the same content is the user's change.
    assert!(!rewritten_by_ralph(root.path(), b"runs/\n# mine\n"));
    // A line added to ralph's list is the user's.
    let longer = format!("{GITIGNORE}*.local\n");
    fs::write(root.path().join(GITIGNORE_FILE), &longer).unwrap();
    assert!(!rewritten_by_ralph(root.path(), older.as_bytes()));
}
