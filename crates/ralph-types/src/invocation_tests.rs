use super::*;

#[test]
fn a_string_runs_through_the_shell() {
    let inv = Invocation::Shell("test -f done.txt && echo ok".into());
    assert_eq!(
        inv.program_and_args(),
        Some(("sh", vec!["-c", "test -f done.txt && echo ok"]))
    );
}

#[test]
fn a_list_is_argv_without_a_shell() {
    let inv = Invocation::Argv(vec!["cargo".into(), "clippy".into(), "--".into()]);
    assert_eq!(
        inv.program_and_args(),
        Some(("cargo", vec!["clippy", "--"]))
    );
    assert_eq!(inv.to_string(), "cargo clippy --");
}

#[test]
fn empty_commands_have_nothing_to_run() {
    for inv in [
        Invocation::Shell("  ".into()),
        Invocation::Argv(vec![]),
        Invocation::Argv(vec![String::new(), "x".into()]),
    ] {
        assert!(inv.is_empty(), "{inv:?}");
    }
}

#[test]
fn reads_both_forms_from_json() {
    let s: Invocation = serde_json::from_str(r#""make test""#).unwrap();
    assert_eq!(s, Invocation::Shell("make test".into()));
    let l: Invocation = serde_json::from_str(r#"["make","test"]"#).unwrap();
    assert_eq!(l, Invocation::Argv(vec!["make".into(), "test".into()]));
}
