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
