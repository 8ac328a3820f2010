use std::path::Path;

use super::{Git, Tips};

fn git(dir: &Path, args: &[&str]) -> String {
    Git::new().unwrap().ok(dir, args).unwrap().trim().to_owned()
}

/// A repository on `loop` with one commit of its own on top of `main`'s first, and
/// `main` one commit further: what a landing rebases.
fn diverged() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["config", "user.email", "t@example.com"],
        &["config", "user.name", "t"],
        &["commit", "-q", "--allow-empty", "-m", "first"],
        &["checkout", "-q", "-b", "loop"],
    ] {
        git(d, args);
    }
    std::fs::write(d.join("loop.txt"), "loop\n").unwrap();
    git(d, &["add", "loop.txt"]);
    git(d, &["commit", "-qm", "loop"]);
    git(d, &["checkout", "-q", "main"]);
    std::fs::write(d.join("main.txt"), "main\n").unwrap();
    git(d, &["add", "main.txt"]);
    git(d, &["commit", "-qm", "main"]);
    git(d, &["checkout", "-q", "loop"]);
    dir
}

/// `loop` rebased onto `main`, with the tips before and after.
fn rebased(d: &Path) -> Tips {
    let mut tips = Tips::new(git(d, &["rev-parse", "HEAD"]));
    git(d, &["rebase", "-q", "main"]);
    tips.rebased = Some(git(d, &["rev-parse", "HEAD"]));
    tips
}

#[test]
fn a_rebased_branch_is_put_back_with_its_files() {
    let dir = diverged();
    let d = dir.path();
    let tips = rebased(d);
    assert!(
        d.join("main.txt").is_file(),
        "precondition: rebased onto main"
    );

    let said = tips.put_back(&Git::new().unwrap(), d, "loop").unwrap();
    assert_eq!(git(d, &["rev-parse", "HEAD"]), tips.before, "{said}");
    assert_eq!(git(d, &["symbolic-ref", "HEAD"]), "refs/heads/loop");
    assert!(!d.join("main.txt").exists(), "the rebase's files stayed");
    assert!(said.starts_with("loop is back at "), "{said}");
}

#[test]
fn a_branch_no_rebase_changed_is_not_mentioned() {
    let dir = diverged();
    let d = dir.path();
    let head = git(d, &["rev-parse", "HEAD"]);
    let mut tips = Tips::new(head.clone());
    assert_eq!(tips.put_back(&Git::new().unwrap(), d, "loop"), None);
    // A rebase onto what the branch already has leaves it where it was.
    tips.rebased = Some(head.clone());
    assert_eq!(tips.put_back(&Git::new().unwrap(), d, "loop"), None);
    assert_eq!(git(d, &["rev-parse", "HEAD"]), head);
}

#[test]
fn a_branch_moved_since_its_rebase_is_left_as_it_is() {
    let dir = diverged();
    let d = dir.path();
    let tips = rebased(d);
    git(d, &["commit", "-q", "--allow-empty", "-m", "by hand"]);
    let moved = git(d, &["rev-parse", "HEAD"]);

    let said = tips.put_back(&Git::new().unwrap(), d, "loop").unwrap();
    assert_eq!(git(d, &["rev-parse", "HEAD"]), moved);
    assert!(
        said.contains("has moved since") && said.contains(&tips.before),
        "{said}"
    );
}

#[test]
fn a_change_the_put_back_would_lose_makes_it_refuse_and_say_how() {
    let dir = diverged();
    let d = dir.path();
    let tips = rebased(d);
    // Left by a check, in a file the rebase brought: `--keep` will not drop it.
    std::fs::write(d.join("main.txt"), "changed by the check\n").unwrap();

    let said = tips.put_back(&Git::new().unwrap(), d, "loop").unwrap();
    assert_eq!(Some(git(d, &["rev-parse", "HEAD"])), tips.rebased);
    assert_eq!(
        std::fs::read_to_string(d.join("main.txt")).unwrap(),
        "changed by the check\n"
    );
    assert!(
        said.contains("stays rebased") && said.contains("reset --keep"),
        "{said}"
    );
}
