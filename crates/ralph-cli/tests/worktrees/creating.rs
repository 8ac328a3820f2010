//! Starting a worktree loop: names that are refused, a repository with no commit, a loop
//! typed in a subdirectory, and `.worktreeinclude`'s copies of ignored files.

use super::common::{Workspace, code};
use super::*;

#[test]
fn hostile_names_are_refused_and_nothing_is_made() {
    let ws = repo(COMMIT_OWN_FILE);
    for name in [
        "a/b",
        "..",
        "../escape",
        "with space",
        "-rf",
        "--force",
        ".hidden",
        "x.lock",
    ] {
        let out = ws.run(&["run", &format!("--worktree={name}"), "-q", "-p", "x"]);
        assert_eq!(code(out.status), 1, "{name}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("cannot name a worktree"),
            "{name}: {}",
            stderr(&out)
        );
        let out = ws.run(&["runs", "rm", "--", name]);
        assert_eq!(code(out.status), 1, "{name}: {}", stderr(&out));
    }
    assert!(!ws.path().join(".ralph/worktrees").exists());
    assert_eq!(ralph_branches(&ws), Vec::<String>::new());
    // The same name twice is refused, not reused.
    let out = ws.run(&["run", "--worktree=once", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let out = ws.run(&["run", "--worktree=once", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 1);
    assert!(stderr(&out).contains("exists already"), "{}", stderr(&out));
    // A base that is no commit, or reads as an option.
    for base in ["no-such-branch", "--output=/tmp/x"] {
        let out = ws.run(&["run", "--worktree=based", "--base", base, "-q", "-p", "x"]);
        assert_eq!(code(out.status), 1, "{base}: {}", stderr(&out));
    }
    // A `.ralph/worktrees` planted as a link (a cloned repository can carry one) is not
    // followed: nothing is made where it points.
    let elsewhere = tempfile::tempdir().expect("elsewhere");
    let planted = ws.path().join("planted");
    std::fs::create_dir_all(planted.join(".ralph")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), planted.join(".ralph/worktrees")).unwrap();
    git(&planted, &["init", "-q", "-b", "main"]);
    git(
        &planted,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "init",
        ],
    );
    let mut cmd = ws.command(&["run", "--worktree=linked", "-q", "-p", "x"]);
    let out = cmd.current_dir(&planted).output().expect("ralph");
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("link"), "{}", stderr(&out));
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    // Without a name, one is made from the task, and made unique.
    for _ in 0..2 {
        let out = ws.run(&["run", "--worktree", "-q", "-p", "Fix the parser/../now"]);
        assert_eq!(code(out.status), 0, "{}", stderr(&out));
    }
    let mut branches = ralph_branches(&ws);
    branches.sort();
    assert_eq!(
        branches,
        [
            "ralph/Fix-the-parser-now",
            "ralph/Fix-the-parser-now-2",
            "ralph/once"
        ]
    );
}

#[test]
fn worktreeinclude_copies_ignored_files_and_nothing_from_outside() {
    let ws = repo(COMMIT_OWN_FILE);
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("secret"), "outside").unwrap();
    std::fs::write(ws.path().join(".env"), "TOKEN=1\n").unwrap();
    std::fs::write(ws.path().join("other.local"), "not listed").unwrap();
    std::fs::create_dir_all(ws.path().join("config")).unwrap();
    std::fs::write(ws.path().join("config/app.local"), "listed").unwrap();
    std::fs::write(
        ws.path().join(".worktreeinclude"),
        ".env\nconfig/\n/etc/passwd\n",
    )
    .unwrap();
    let out = ws.run(&["run", "--worktree=inc", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let inc = tree(&ws, "inc");
    assert_eq!(
        std::fs::read_to_string(inc.join(".env")).unwrap(),
        "TOKEN=1\n"
    );
    assert_eq!(
        std::fs::read_to_string(inc.join("config/app.local")).unwrap(),
        "listed"
    );
    assert!(!inc.join("other.local").exists());
    // A leading `/` anchors at the repository's top, as in .gitignore: never /etc.
    assert!(!inc.join("etc").exists());

    for (list, why) in [
        ("../secret\n", "leads out of the repository"),
        (".env\nconfig/../../x\n", "leads out of the repository"),
        ("link-out\n", "outside the repository"),
    ] {
        std::os::unix::fs::symlink(outside.path().join("secret"), ws.path().join("link-out")).ok();
        std::fs::write(ws.path().join(".worktreeinclude"), list).unwrap();
        let out = ws.run(&["run", "--worktree=refused", "-q", "-p", "x"]);
        assert_eq!(code(out.status), 1, "{list}: {}", stderr(&out));
        assert!(stderr(&out).contains(why), "{list}: {}", stderr(&out));
        assert!(!tree(&ws, "refused").exists());
        assert!(!ralph_branches(&ws).contains(&"ralph/refused".to_owned()));
    }
}

/// Typed in a subdirectory, `ralph run --worktree` works from the top of the checkout,
/// as git does; the paths it prints (and the step summary's) are seen from where it was
/// typed, so they lead to the run's files from there.
#[test]
fn a_loop_typed_in_a_subdirectory_runs_from_the_top_and_shows_paths_from_there() {
    let ws = repo(COMMIT_OWN_FILE);
    let sub = ws.path().join("src/deep");
    std::fs::create_dir_all(&sub).expect("subdirectory");
    let step_summary = ws.path().join(".fake/step-summary.md");
    let run_in = |dir: &Path, name: &str| {
        let child = ws
            .command(&["run", &format!("--worktree={name}"), "-p", "x"])
            .current_dir(dir)
            .env("GITHUB_STEP_SUMMARY", &step_summary)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn ralph");
        let out = wait_output(child);
        assert_eq!(code(out.status), 0, "{}", stderr(&out));
        let run_id = row(&worktrees(&ws), name)["run_id"]
            .as_str()
            .expect("a run id")
            .to_owned();
        (out, run_id)
    };
    for (dir, name, up) in [
        (&sub, "deep", "../../"),
        (&ws.path().to_path_buf(), "top", ""),
    ] {
        let (out, run_id) = run_in(dir, name);
        let summary = format!("{up}.ralph/worktrees/{name}/.ralph/runs/{run_id}/summary.md");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(&format!("\n  summary: {summary}\n")),
            "{summary} in {stdout}"
        );
        assert!(dir.join(&summary).is_file(), "{summary}");
        let made = format!(", in {up}.ralph/worktrees/{name}\n");
        assert!(stderr(&out).contains(&made), "{made} in {}", stderr(&out));
        let md = std::fs::read_to_string(&step_summary).expect("step summary");
        assert!(md.contains(&format!("| summary | {summary} |")), "{md}");
        // The agent ran at the top of the worktree: its file is there, on the branch.
        assert!(tree(&ws, name).join(format!("f-{name}.txt")).is_file());
        assert_eq!(row(&worktrees(&ws), name)["ahead"], 1);
    }
}

#[test]
fn a_repository_without_a_commit_says_so_and_nothing_is_made() {
    let ws = Workspace::new(CONFIG, COMMIT_OWN_FILE);
    git(ws.path(), &["init", "-q", "-b", "main"]);
    let out = ws.run(&["run", "--worktree=early", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("no commit yet (branch main is unborn)") && err.contains("commit something"),
        "{err}"
    );
    // No --base was given: the message must not speak of one as if it had been.
    assert!(!err.contains("--base `"), "{err}");
    assert!(!tree(&ws, "early").exists());
    assert_eq!(ralph_branches(&ws), Vec::<String>::new());
}
