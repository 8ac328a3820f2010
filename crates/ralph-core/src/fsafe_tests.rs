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
        let e = open(&path, OpenOptions::new().append(true), links).unwrap_err();
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
    let e = open(
        &link,
        OpenOptions::new().write(true).create(true),
        Links::Refuse,
    )
    .unwrap_err();
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
            OpenOptions::new().write(true).create_new(true),
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
        OpenOptions::new().append(true).create(true),
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
            OpenOptions::new().write(true).create(true),
            Links::Refuse
        )
        .is_ok()
    );
}
