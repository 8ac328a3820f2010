use std::os::unix::fs::PermissionsExt;

use super::*;

fn script(dir: &Path, name: &str, text: &str, mode: u32) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path
}

#[test]
fn a_script_run_through_env_names_its_missing_interpreter() {
    let dir = tempfile::tempdir().unwrap();
    let path = script(
        dir.path(),
        "agent.js",
        "#!/usr/bin/env ralph-no-such-node\n",
        0o755,
    );
    let why = why_unrunnable("./agent.js", Some(&path), None).expect("a reason");
    assert!(
        why.contains("`ralph-no-such-node`, which was not found on PATH"),
        "{why}"
    );
    // With -S and an assignment before the program, as `env -S` lines have them.
    let split = script(
        dir.path(),
        "split.js",
        "#!/usr/bin/env -S NODE_OPTIONS=--x ralph-no-such-node --flag\n",
        0o755,
    );
    let why = why_unrunnable("./split.js", Some(&split), None).expect("a reason");
    assert!(why.contains("`ralph-no-such-node`"), "{why}");
}

#[test]
fn an_interpreter_on_the_search_path_or_given_by_path_is_fine() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    script(&bin, "mynode", "#!/bin/sh\n", 0o755);
    let path = script(dir.path(), "agent.js", "#!/usr/bin/env mynode\n", 0o755);
    assert_eq!(
        why_unrunnable("./agent.js", Some(&path), Some(bin.as_os_str())),
        None
    );
    let sh = script(dir.path(), "agent.sh", "#!/bin/sh\necho hi\n", 0o755);
    assert_eq!(why_unrunnable("./agent.sh", Some(&sh), None), None);
    // A program with no `#!` line (a binary) is the kernel's to judge.
    let binary = script(dir.path(), "agent", "\x7fELF", 0o755);
    assert_eq!(why_unrunnable("./agent", Some(&binary), None), None);
}

#[test]
fn an_interpreter_given_by_a_path_that_is_not_there_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = script(
        dir.path(),
        "agent.py",
        "#!/usr/bin/ralph-no-python3\n",
        0o755,
    );
    let why = why_unrunnable("./agent.py", Some(&path), None).expect("a reason");
    assert!(
        why.contains("names `/usr/bin/ralph-no-python3`, which is not there"),
        "{why}"
    );
}

#[test]
fn a_directory_or_a_file_without_the_execute_bit_says_so_not_missing() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("adir");
    std::fs::create_dir(&sub).unwrap();
    let sub = sub.to_str().unwrap().to_owned();
    let why = why_unrunnable(&sub, None, None).expect("a reason");
    assert!(why.contains("is a directory"), "{why}");
    let plain = script(dir.path(), "agent.sh", "#!/bin/sh\n", 0o644);
    let plain = plain.to_str().unwrap().to_owned();
    let why = why_unrunnable(&plain, None, None).expect("a reason");
    assert!(why.contains("chmod +x"), "{why}");
    // A name alone that is not on PATH is simply not installed.
    assert_eq!(why_unrunnable("ralph-no-such-agent", None, None), None);
    assert_eq!(why_unrunnable("./ralph-no-such-agent", None, None), None);
}
