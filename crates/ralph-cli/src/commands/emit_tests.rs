use std::path::Path;

use super::{inbox_parts, same_dir};

#[test]
fn only_a_runs_inbox_has_the_parts_of_one() {
    assert_eq!(
        inbox_parts(Path::new("/ws/.ralph/runs/20261126T101500Z/inbox.jsonl")),
        Some((Path::new("/ws"), "20261126T101500Z"))
    );
    for path in [
        "/home/me/.bashrc",
        "/ws/.ralph/runs/20261126T101500Z/state.json",
        "/ws/.ralph/runs/../inbox.jsonl",
        "/ws/.ralph/runs/20261126T101500Z/../inbox.jsonl",
        "/ws/.ralph/other/20261126T101500Z/inbox.jsonl",
        "/ws/ralph/runs/20261126T101500Z/inbox.jsonl",
        "/ws/.ralph/runs/../runs/inbox.jsonl",
        "inbox.jsonl",
    ] {
        assert_eq!(inbox_parts(Path::new(path)), None, "{path}");
    }
}

#[test]
fn the_same_directory_reached_another_way_is_the_same() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(ws.join("sub")).expect("mkdir");
    std::fs::create_dir_all(dir.path().join("other")).expect("mkdir");
    assert!(same_dir(&ws, &ws));
    assert!(same_dir(&ws.join("sub/.."), &ws));
    assert!(!same_dir(&dir.path().join("other"), &ws));
    assert!(!same_dir(&dir.path().join("missing"), &ws));
}
