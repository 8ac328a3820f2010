use super::*;

fn record(landing: Option<Landing>) -> WorktreeRecord {
    WorktreeRecord {
        format: WORKTREE_RECORD_FORMAT,
        name: "fix-parser".into(),
        path: "/repo/.ralph/worktrees/fix-parser".into(),
        branch: "ralph/fix-parser".into(),
        base_ref: "refs/heads/main".into(),
        base_commit: "a".repeat(40),
        created_at_ms: 1,
        landing,
    }
}

fn view<'a>(alive: bool, end: Option<&'a StopReason>, head: &'a str) -> LoopView<'a> {
    LoopView {
        held: alive.then_some(HeldBy::Loop),
        has_run: true,
        end,
        head: Some(head),
    }
}

#[test]
fn names_that_are_paths_options_or_bad_refs_are_refused() {
    for good in [
        "fix-parser",
        "a",
        "task_1.2",
        "42",
        &"x".repeat(MAX_NAME_LEN),
    ] {
        assert_eq!(check_name(good), Ok(()), "{good}");
    }
    for bad in [
        "",
        "a/b",
        "..",
        "a..b",
        "../x",
        "-rf",
        "--force",
        ".hidden",
        "with space",
        "tab\there",
        "x.lock",
        "ends.",
        "ünïcode",
        "a\\b",
        &"x".repeat(MAX_NAME_LEN + 1),
    ] {
        assert!(check_name(bad).is_err(), "{bad:?} was accepted");
    }
}

#[test]
fn generated_names_are_cleaned_hints() {
    assert_eq!(name_from("fix parser"), Some("fix-parser".into()));
    assert_eq!(name_from("--../a b"), Some("a-b".into()));
    assert_eq!(name_from("résumé"), Some("r-sum".into()));
    assert_eq!(name_from("..."), None);
    let long = name_from(&"word ".repeat(40)).unwrap();
    assert!(long.len() <= MAX_NAME_LEN - SUFFIX_ROOM, "{long}");
}

#[test]
fn a_worktree_is_known_by_its_place_under_ralph_worktrees() {
    assert_eq!(
        worktree_name_of(Path::new("/repo/.ralph/worktrees/fix")),
        Some("fix".into())
    );
    assert_eq!(worktree_name_of(Path::new("/repo/worktrees/fix")), None);
    assert_eq!(worktree_name_of(Path::new("/repo/.ralph/runs/fix")), None);
    assert_eq!(worktree_name_of(Path::new("/repo")), None);
}

#[test]
fn status_prefers_a_live_loop_then_a_landing_the_branch_still_matches() {
    let completed = StopReason::examples().remove(0);
    let limit = StopReason::MaxIterations { limit: 3 };
    let plain = record(None);
    assert_eq!(plain.status(view(true, None, "h")), WorktreeStatus::Running);
    assert_eq!(
        plain.status(view(false, Some(&completed), "h")),
        WorktreeStatus::Completed
    );
    assert_eq!(
        plain.status(view(false, Some(&limit), "h")),
        WorktreeStatus::Limit
    );
    assert_eq!(
        plain.status(view(false, Some(&StopReason::Interrupted), "h")),
        WorktreeStatus::Interrupted
    );
    // Killed: the run never ended and its loop is gone.
    assert_eq!(
        plain.status(view(false, None, "h")),
        WorktreeStatus::Interrupted
    );
    let no_run = LoopView {
        has_run: false,
        ..view(false, None, "h")
    };
    assert_eq!(plain.status(no_run), WorktreeStatus::Failed);

    let landed = record(Some(Landing {
        outcome: LandingOutcome::NeedsRebase,
        head: "h".into(),
        at_ms: 2,
    }));
    assert_eq!(
        landed.status(view(false, Some(&completed), "h")),
        WorktreeStatus::NeedsRebase
    );
    // The loop went on after the failed landing: the landing no longer speaks for it.
    assert_eq!(
        landed.status(view(false, Some(&completed), "h2")),
        WorktreeStatus::Completed
    );
    assert_eq!(
        landed.status(view(true, None, "h")),
        WorktreeStatus::Running
    );
}

#[test]
fn records_round_trip_and_are_listed_by_name() {
    let git = tempfile::tempdir().unwrap();
    let records = WorktreeRecords::in_git_dir(git.path());
    assert_eq!(records.names().unwrap(), Vec::<String>::new());
    let rec = record(Some(Landing {
        outcome: LandingOutcome::Landed,
        head: "b".repeat(40),
        at_ms: 3,
    }));
    records.save(&rec).unwrap();
    let another = |branch: &str, path: &str, base: &str| WorktreeRecord {
        name: "another".into(),
        branch: branch.into(),
        path: path.into(),
        base_ref: base.into(),
        ..record(None)
    };
    let good = another(
        "ralph/another",
        "/r/.ralph/worktrees/another",
        "refs/heads/main",
    );
    records.save(&good).unwrap();
    assert_eq!(records.get("fix-parser").unwrap(), Some(rec));
    assert_eq!(records.get("another").unwrap(), Some(good));
    assert_eq!(records.get("../fix-parser").unwrap(), None);
    assert_eq!(records.names().unwrap(), ["another", "fix-parser"]);
    assert_eq!(records.path(), git.path().join("ralph/worktrees").as_path());
    // A record under another name's file is not taken for it.
    fs::copy(records.file("another"), records.file("copied")).unwrap();
    assert!(records.get("copied").is_err());
    // Nor one whose fields git would read as an option, or whose directory is not a
    // worktree of its name.
    for (branch, path, base) in [
        ("--force", "/r/.ralph/worktrees/another", "refs/heads/main"),
        ("ralph/another", "/r/.ralph/worktrees/another", "--output=x"),
        (
            "ralph/another",
            "/r/.ralph/worktrees/another",
            "refs/heads/a..b",
        ),
        ("ralph/another", "/home/user", "refs/heads/main"),
        (
            "ralph/another",
            "/r/.ralph/worktrees/other",
            "refs/heads/main",
        ),
        (
            "ralph/another",
            ".ralph/worktrees/another",
            "refs/heads/main",
        ),
    ] {
        records.save(&another(branch, path, base)).unwrap();
        assert!(records.get("another").is_err(), "{branch} {path} {base}");
    }
    assert!(plain_ref("refs/heads/feature/x-1.2"));
    assert!(plain_ref(&"0".repeat(40)));
    assert!(!plain_ref("HEAD"));
    records.remove("another").unwrap();
    records.remove("another").unwrap();
    assert_eq!(records.get("another").unwrap(), None);
    let ws = tempfile::tempdir().unwrap();
    assert_eq!(
        RalphDir::in_workspace(ws.path()).worktree_path("x"),
        ws.path().join(".ralph/worktrees/x")
    );
}

#[test]
fn include_patterns_refuse_the_way_out() {
    let text = "# secrets\n.env\n\n/config/local.yml\n!.env.example\n*.pem\n";
    assert_eq!(
        include_patterns(text).unwrap(),
        [".env", "/config/local.yml", "!.env.example", "*.pem"]
    );
    for bad in ["../secret", "a/../../b", "!../x", "~/.ssh/id_rsa", "..\\x"] {
        let err = include_patterns(&format!(".env\n{bad}\n")).unwrap_err();
        assert_eq!((err.line, err.text.as_str()), (2, bad));
    }
}

#[test]
fn only_plain_paths_inside_the_repository_are_copied() {
    assert!(include_path_allowed(".env"));
    assert!(include_path_allowed("config/local.yml"));
    for bad in [
        "/etc/passwd",
        "../x",
        "a/../b",
        ".ralph/runs/x",
        ".git/config",
        "./x",
    ] {
        assert!(!include_path_allowed(bad), "{bad}");
    }
}

#[test]
fn a_worktree_a_command_is_at_work_on_is_landing_or_removing_not_running() {
    let landed = record(Some(Landing {
        outcome: LandingOutcome::Landed,
        head: "h".into(),
        at_ms: 2,
    }));
    let stopped = StopReason::Interrupted;
    for (held, status) in [
        (HeldBy::Loop, WorktreeStatus::Running),
        (HeldBy::Land, WorktreeStatus::Landing),
        (HeldBy::LandBase, WorktreeStatus::Landing),
        (HeldBy::Remove, WorktreeStatus::Removing),
    ] {
        let view = LoopView {
            held: Some(held),
            ..view(false, Some(&stopped), "h")
        };
        assert_eq!(landed.status(view), status, "{held:?}");
    }
    assert_eq!(WorktreeStatus::Landing.name(), "landing");
    assert_eq!(WorktreeStatus::Removing.name(), "removing");
}
