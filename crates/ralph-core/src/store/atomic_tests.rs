use super::*;

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn replace_swaps_the_content_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    replace(&path, b"one", Durability::Atomic).unwrap();
    replace(&path, b"two", Durability::Durable).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
    assert_eq!(names_in(dir.path()), vec!["state.json"]);
}

#[test]
fn a_rewritten_file_keeps_its_mode_and_a_new_one_is_not_private() {
    let dir = tempfile::tempdir().unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    // A new file: readable by others as `File::create` makes it under a usual umask (the
    // test process's umask is whatever it is, so compare with a file made that way).
    let made = dir.path().join("made");
    File::create(&made).unwrap();
    let path = dir.path().join("tasks.jsonl");
    replace(&path, b"one", Durability::Atomic).unwrap();
    assert_eq!(mode(&path), mode(&made));
    // A rewrite keeps whatever mode the file had, group-writable or private.
    for kept in [0o664, 0o600, 0o640] {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(kept)).unwrap();
        replace(&path, b"two", Durability::Atomic).unwrap();
        assert_eq!(mode(&path), kept, "{kept:o}");
    }
}

fn inode(path: &Path) -> u64 {
    std::os::unix::fs::MetadataExt::ino(&std::fs::symlink_metadata(path).unwrap())
}

#[test]
fn rewrite_swaps_two_files_and_creates_no_inode_after_the_first_two() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    rewrite(&path, b"first, the longest of all", Durability::Atomic).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "first, the longest of all"
    );
    rewrite(&path, b"second", Durability::Atomic).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
    let inodes = [inode(&path), inode(&spare_of(&path))];
    for (n, text) in ["third", "4", "fifth and longer"].into_iter().enumerate() {
        rewrite(&path, text.as_bytes(), Durability::Durable).unwrap();
        // No tail of a longer earlier version is left behind.
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        if SWAPS {
            assert_eq!(inode(&path), inodes[(n + 1) % 2], "write {n}");
        }
    }
    let names = names_in(dir.path());
    let expected = if SWAPS {
        vec![".state.json.spare", "state.json"]
    } else {
        vec!["state.json"]
    };
    assert_eq!(names, expected);
}

#[test]
fn rewrite_keeps_the_mode_of_the_file_it_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    std::fs::write(&path, "old").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    for text in ["one", "two", "three"] {
        rewrite(&path, text.as_bytes(), Durability::Atomic).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640, "{text}");
    }
}

#[test]
fn rewrite_never_writes_through_a_planted_spare() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    let outside = dir.path().join("outside");
    for plant in ["symlink", "hard link", "fifo", "directory"] {
        std::fs::write(&outside, "keep me").unwrap();
        rewrite(&path, b"before", Durability::Atomic).unwrap();
        let spare = spare_of(&path);
        let _ = std::fs::remove_file(&spare);
        match plant {
            "symlink" => std::os::unix::fs::symlink(&outside, &spare).unwrap(),
            "hard link" => std::fs::hard_link(&outside, &spare).unwrap(),
            "fifo" => nix::unistd::mkfifo(&spare, nix::sys::stat::Mode::S_IRWXU).unwrap(),
            _ => std::fs::create_dir(&spare).unwrap(),
        }
        rewrite(&path, b"after", Durability::Atomic).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "after", "{plant}");
        assert_eq!(
            std::fs::read_to_string(&outside).unwrap(),
            "keep me",
            "{plant}"
        );
        if plant == "directory" {
            std::fs::remove_dir(&spare).unwrap();
        }
    }
}

#[test]
fn rewrite_replaces_a_link_planted_at_the_file_itself() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    let outside = dir.path().join("outside");
    std::fs::write(&outside, "keep me").unwrap();
    rewrite(&path, b"one", Durability::Atomic).unwrap();
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&outside, &path).unwrap();
    for text in ["two", "three", "four"] {
        rewrite(&path, text.as_bytes(), Durability::Atomic).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert!(
            !std::fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep me");
}

#[test]
fn a_link_on_the_way_under_dot_ralph_is_refused_and_nothing_is_written_there() {
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(ws.path().join(".ralph")).unwrap();
    std::os::unix::fs::symlink(outside.path(), ws.path().join(".ralph/runs")).unwrap();
    let path = ws.path().join(".ralph/runs/state.json");
    for write in [replace, rewrite] {
        let e = write(&path, b"x", Durability::Atomic).unwrap_err();
        assert!(fsafe::Refused::of(&e).is_some(), "{e}");
    }
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn a_directory_swapped_for_a_link_after_the_open_keeps_every_step_inside() {
    // The race an agent could run: ralph has checked and opened the run's directory,
    // then the agent moves it away and puts a link to somewhere else at its name.
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let run = ws.path().join(".ralph/runs/r1");
    std::fs::create_dir_all(&run).unwrap();
    let path = run.join("state.json");
    let dir = fsafe::open_parent(&path).unwrap();
    let moved = ws.path().join(".ralph/runs/moved");
    std::fs::rename(&run, &moved).unwrap();
    std::os::unix::fs::symlink(outside.path(), &run).unwrap();
    let name = OsStr::new("state.json");
    replace_in(&dir, name, b"one", Durability::Durable).unwrap();
    for text in ["two", "three"] {
        let spare = spare_name(name);
        match swap(&dir, name, &spare, text.as_bytes(), Durability::Atomic) {
            Ok(()) | Err(Unswapped::Unavailable) => {}
            Err(Unswapped::Fallback) => panic!("the swap fell back"),
            Err(Unswapped::Fatal(e)) => panic!("{e}"),
        }
    }
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    let expected = if SWAPS { "three" } else { "one" };
    assert_eq!(
        std::fs::read_to_string(moved.join("state.json")).unwrap(),
        expected
    );
}

#[test]
fn a_failed_replace_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    // A directory at the target's name: the rename over it fails.
    let path = dir.path().join("state.json");
    std::fs::create_dir(&path).unwrap();
    std::fs::write(path.join("inside"), "x").unwrap();
    assert!(replace(&path, b"one", Durability::Atomic).is_err());
    assert_eq!(names_in(dir.path()), vec!["state.json"]);
}

#[test]
fn the_temporary_files_ralph_makes_are_told_by_their_names() {
    let dir = tempfile::tempdir().unwrap();
    let opened = fsafe::open_parent(&dir.path().join("x")).unwrap();
    let (name, _file) = create_temporary(&opened).unwrap();
    assert!(is_temporary_name(&name), "{name}");
    for other in [
        ".tmp-notes",
        ".tmp-0123456789abcdeg",
        "tmp-0123456789abcdef",
        ".tmp-",
    ] {
        assert!(!is_temporary_name(other), "{other}");
    }
}
