use std::os::unix::fs::symlink;

use super::*;

fn fifo(path: &Path) {
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
}

fn refusal(e: &io::Error) -> &Refused {
    Refused::of(e).unwrap_or_else(|| panic!("not a refusal: {e}"))
}

#[test]
fn a_fifo_is_refused_at_once_for_reading_and_writing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pipe");
    fifo(&path);
    for links in [Links::Refuse, Links::Follow] {
        let e = open_read(&path, links).unwrap_err();
        assert!(
            matches!(refusal(&e), Refused::NotRegular { found, .. } if found.contains("FIFO")),
            "{e}"
        );
        let e = open(&path, Access::new().append(true), links).unwrap_err();
        assert!(matches!(refusal(&e), Refused::NotRegular { .. }), "{e}");
    }
    let e = read_to_string(&path, Links::Follow, 10, "a test").unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
}

#[test]
fn a_device_is_refused_and_a_big_file_is_over_the_bound() {
    let e = read_bounded(Path::new("/dev/zero"), Links::Follow, 1 << 20, "a test").unwrap_err();
    assert!(matches!(
        refusal(&e),
        Refused::NotRegular {
            found: "a character device",
            ..
        }
    ));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big");
    std::fs::write(&path, [b'x'; 11]).unwrap();
    let e = read_bounded(&path, Links::Follow, 10, "a test file").unwrap_err();
    assert!(
        matches!(
            refusal(&e),
            Refused::TooLarge {
                size: 11,
                limit: 10,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(
        read_bounded(&path, Links::Follow, 11, "a test")
            .unwrap()
            .len(),
        11
    );
}

#[test]
fn a_link_is_refused_under_refuse_and_followed_to_a_regular_file_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target");
    std::fs::write(&target, "outside").unwrap();
    let link = dir.path().join("link");
    symlink(&target, &link).unwrap();
    let e = open(&link, Access::new().write(true).create(true), Links::Refuse).unwrap_err();
    assert!(
        matches!(refusal(&e), Refused::Symlink { path } if *path == link),
        "{e}"
    );
    assert_eq!(
        read_to_string(&link, Links::Follow, 100, "a test").unwrap(),
        "outside"
    );
    // A dangling link with O_EXCL: nothing is created where it points.
    let dangling = dir.path().join("dangling");
    symlink(dir.path().join("nowhere"), &dangling).unwrap();
    assert!(
        open(
            &dangling,
            Access::new().write(true).create_new(true),
            Links::Refuse
        )
        .is_err()
    );
    assert!(!dir.path().join("nowhere").exists());
}

#[test]
fn a_linked_directory_under_dot_ralph_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let ralph = dir.path().join("ws/.ralph");
    std::fs::create_dir_all(&ralph).unwrap();
    symlink(&outside, ralph.join("runs")).unwrap();
    let file = ralph.join("runs/history.jsonl");
    let e = open(
        &file,
        Access::new().append(true).create(true),
        Links::Refuse,
    )
    .unwrap_err();
    assert!(
        matches!(refusal(&e), Refused::Symlink { path } if *path == ralph.join("runs")),
        "{e}"
    );
    let e = create_dir(&ralph.join("runs")).unwrap_err();
    assert!(matches!(refusal(&e), Refused::Symlink { .. }), "{e}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    // Outside `.ralph/` the directories are the user's: a link there is followed.
    std::fs::create_dir(dir.path().join("real")).unwrap();
    symlink(dir.path().join("real"), dir.path().join("alias")).unwrap();
    assert!(
        open(
            &dir.path().join("alias/f"),
            Access::new().write(true).create(true),
            Links::Refuse
        )
        .is_ok()
    );
}

/// A workspace `real` under `dir` with the directories `inside` made, and `alias`, a
/// link to it: the workspace reached through a link, as a moved home directory is.
#[cfg(target_os = "linux")]
fn linked_workspace(dir: &Path, inside: &str) -> (PathBuf, PathBuf) {
    let real = dir.join("real");
    std::fs::create_dir_all(real.join(inside)).unwrap();
    let alias = dir.join("alias");
    symlink(&real, &alias).unwrap();
    (real, alias)
}

#[cfg(target_os = "linux")]
#[test]
fn under_dot_ralph_one_openat2_refuses_links_and_a_linked_workspace_still_works() {
    let dir = tempfile::tempdir().unwrap();
    let (real, alias) = linked_workspace(dir.path(), ".ralph/runs/r1");
    let file = alias.join(".ralph/runs/r1/inbox.jsonl");
    let create = *Access::new().write(true).create(true);
    let opened = beneath::open(&file, &create, Links::Refuse).expect("openat2 is used");
    opened.unwrap().write_all(b"x\n").unwrap();
    assert_eq!(
        std::fs::read_to_string(real.join(".ralph/runs/r1/inbox.jsonl")).unwrap(),
        "x\n"
    );
    let read = *Access::new().read(true);
    assert!(beneath::open(&file, &read, Links::Refuse).unwrap().is_ok());

    // A link at any name from `.ralph` on is refused, and named as the check names it.
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::rename(real.join(".ralph/runs"), dir.path().join("runs-moved")).unwrap();
    symlink(&outside, real.join(".ralph/runs")).unwrap();
    let e = beneath::open(&alias.join(".ralph/runs/x.jsonl"), &create, Links::Refuse)
        .expect("openat2 is used")
        .unwrap_err();
    assert!(
        matches!(refusal(&e), Refused::Symlink { path } if *path == alias.join(".ralph/runs")),
        "{e}"
    );
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    // A file in the way of a directory.
    std::fs::write(real.join(".ralph/file"), "").unwrap();
    let e = beneath::open(&alias.join(".ralph/file/x"), &create, Links::Refuse)
        .expect("openat2 is used")
        .unwrap_err();
    assert!(matches!(refusal(&e), Refused::NotRegular { .. }), "{e}");

    // Nothing to check outside `.ralph/`, nor for a file the user named.
    assert!(beneath::open(&dir.path().join("f"), &create, Links::Refuse).is_none());
    assert!(beneath::open(&file, &read, Links::Follow).is_none());
}

#[cfg(target_os = "linux")]
#[test]
fn a_directory_under_dot_ralph_is_made_in_a_parent_opened_without_links() {
    let dir = tempfile::tempdir().unwrap();
    let (real, alias) = linked_workspace(dir.path(), ".ralph/runs");
    let made = |path: &Path| make_dir(path);
    let r1 = alias.join(".ralph/runs/r1");
    assert!(
        beneath::parent(&r1, OFlag::O_PATH).is_some(),
        "openat2 is used"
    );
    assert_eq!(made(&r1).unwrap(), Made::Created);
    assert!(real.join(".ralph/runs/r1").is_dir());
    // Already there: fine, as for `std::fs::create_dir_all`, unless it must be new.
    assert_eq!(made(&r1).unwrap(), Made::Directory);
    create_dir(&r1).unwrap();
    let e = create_new_dir(&r1).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::AlreadyExists, "{e}");
    let e = made(&alias.join(".ralph/runs/none/r2")).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound, "{e}");

    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    // A link at the name itself: refused, or taken, for a name that must be new.
    let r3 = alias.join(".ralph/runs/r3");
    symlink(&outside, real.join(".ralph/runs/r3")).unwrap();
    assert_eq!(made(&r3).unwrap(), Made::Other);
    let e = create_dir(&r3).unwrap_err();
    assert!(matches!(refusal(&e), Refused::Symlink { .. }), "{e}");
    let e = create_new_dir(&r3).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::AlreadyExists, "{e}");
    // A file at the name.
    let r4 = alias.join(".ralph/runs/r4");
    std::fs::write(real.join(".ralph/runs/r4"), "").unwrap();
    assert_eq!(made(&r4).unwrap(), Made::Other);
    let e = create_dir(&r4).unwrap_err();
    assert!(matches!(refusal(&e), Refused::NotRegular { .. }), "{e}");
    // A link on the way, named as the check names it.
    std::fs::rename(real.join(".ralph/runs"), dir.path().join("runs-moved")).unwrap();
    symlink(&outside, real.join(".ralph/runs")).unwrap();
    let e = made(&alias.join(".ralph/runs/r5")).unwrap_err();
    assert!(
        matches!(refusal(&e), Refused::Symlink { path } if *path == alias.join(".ralph/runs")),
        "{e}"
    );
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    // Nothing to check outside `.ralph/`, nor for `.ralph` itself.
    assert!(beneath::parent(&dir.path().join("d"), OFlag::O_PATH).is_none());
    assert!(beneath::parent(&real.join(".ralph"), OFlag::O_PATH).is_none());
}

#[test]
fn a_path_splits_at_its_last_dot_ralph() {
    let split = |p: &'static str| split_at_ralph(Path::new(p));
    let pair = |a: &'static str, b: &'static str| Some((Path::new(a), Path::new(b)));
    assert_eq!(split("/w/.ralph/runs/x"), pair("/w", ".ralph/runs/x"));
    assert_eq!(split(".ralph/x"), pair(".", ".ralph/x"));
    assert_eq!(split("w/.ralph/a/.ralph/b"), pair("w/.ralph/a", ".ralph/b"));
    assert_eq!(
        split("/w/.ralph"),
        None,
        "the name itself is no directory on the way"
    );
    assert_eq!(split("/w/x"), None);
}
