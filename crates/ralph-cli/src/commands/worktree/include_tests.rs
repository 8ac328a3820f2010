use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{Copy, copy, cut_warning, link_stays_inside, plan};
use crate::commands::worktree::Repo;

#[test]
fn links_are_judged_by_where_they_lead() {
    let inside = |rel: &str, target: &str| link_stays_inside(Path::new(rel), Path::new(target));
    assert!(inside(".env", ".env.shared"));
    assert!(inside("config/local.yml", "../shared/local.yml"));
    assert!(inside("a/b/c", "./d"));
    assert!(!inside(".env", "/etc/passwd"));
    assert!(!inside(".env", "../outside"));
    assert!(!inside("config/x", "../../outside"));
    assert!(!inside("x", ".git/config"));
    assert!(!inside("a/x", "../.git/config"));
}

/// A repository that ignores `*.local` and lists them in `.worktreeinclude`.
fn repo_including_local_files() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".gitignore"), "*.local\n").unwrap();
    std::fs::write(dir.path().join(".worktreeinclude"), "*.local\n").unwrap();
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["add", "."],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t.invalid",
            "commit",
            "-qm",
            "init",
        ],
    ] {
        let done = Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::null())
            .status()
            .unwrap();
        assert!(done.success(), "git {args:?}");
    }
    dir
}

fn names(copies: &[Copy]) -> Vec<PathBuf> {
    copies
        .iter()
        .map(|c| match c {
            Copy::File(p) | Copy::Link(p, _) => p.clone(),
        })
        .collect()
}

#[test]
fn a_file_name_that_is_not_utf8_is_copied() {
    let dir = repo_including_local_files();
    let odd = OsStr::from_bytes(b"env-\xff.local");
    std::fs::write(dir.path().join(odd), "secret\n").unwrap();
    std::fs::write(dir.path().join("plain.local"), "plain\n").unwrap();
    let repo = Repo::find(dir.path()).unwrap().unwrap();

    let planned = plan(&repo).unwrap();
    assert!(planned.cut.is_none());
    let mut listed = names(&planned.copies);
    listed.sort();
    assert_eq!(listed, [PathBuf::from(odd), PathBuf::from("plain.local")]);
    let tree = tempfile::tempdir().unwrap();
    copy(dir.path(), tree.path(), &planned).unwrap();
    assert_eq!(std::fs::read(tree.path().join(odd)).unwrap(), b"secret\n");
}

#[test]
fn a_list_longer_than_ralph_reads_is_cut_at_a_whole_name_and_said() {
    let dir = repo_including_local_files();
    for n in 1..=9 {
        std::fs::write(dir.path().join(format!("a{n}.local")), "x").unwrap();
    }
    let mut repo = Repo::find(dir.path()).unwrap().unwrap();
    // Three names of 9 bytes (with their NUL) and 3 bytes of the fourth.
    repo.git = repo.git.with_stdout_cap(30);

    let planned = plan(&repo).unwrap();
    assert_eq!(
        names(&planned.copies),
        ["a1.local", "a2.local", "a3.local"].map(PathBuf::from)
    );
    let cut = planned.cut.as_ref().expect("the cut is reported");
    assert_eq!(cut.after.as_deref(), Some(Path::new("a3.local")));
    let said = cut_warning(cut);
    assert!(said.contains("after `a3.local`"), "{said}");
    assert!(
        said.contains("*.local") && said.contains("30 bytes"),
        "{said}"
    );
}
