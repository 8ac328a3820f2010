use super::*;

#[test]
fn a_rename_s_old_path_is_no_entry_of_its_own() {
    let out = "R  new.txt\0old.txt\0 M a.txt\0?? b c.txt\0";
    let listed: Vec<_> = entries(out).collect();
    assert_eq!(
        listed,
        [("R ", "new.txt"), (" M", "a.txt"), ("??", "b c.txt")]
    );
}

#[test]
fn the_first_files_are_named_and_the_rest_counted() {
    let changes = |n: usize| Changes {
        files: (1..=n).map(|i| format!("f{i}")).collect(),
        own_gitignore: false,
    };
    assert_eq!(changes(1).named(), "`f1`");
    assert_eq!(changes(SHOWN_FILES).named(), "`f1`, `f2`, `f3`");
    assert_eq!(
        changes(SHOWN_FILES + 4).named(),
        "`f1`, `f2`, `f3` and 4 more"
    );
}

#[test]
fn only_ralph_s_own_temporary_files_under_its_directory_are_its_own() {
    for ralphs in [
        ".ralph/agent/.tmp-0123456789abcdef",
        ".ralph/.tmp-fedcba9876543210",
    ] {
        assert!(ralphs_temporary(ralphs), "{ralphs}");
    }
    for users in [
        ".ralph/agent/.tmp-notes",
        ".ralph/agent/.tmp-0123456789abcdef0",
        ".ralph/agent/tmp-0123456789abcdef",
        "src/.tmp-0123456789abcdef",
        ".ralphs/.tmp-0123456789abcdef",
    ] {
        assert!(!ralphs_temporary(users), "{users}");
    }
}
