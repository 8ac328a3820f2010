use super::*;

#[test]
fn replace_swaps_the_content_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    replace(&path, b"one", Durability::Atomic).unwrap();
    replace(&path, b"two", Durability::Durable).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, vec!["state.json"]);
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
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
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
