use super::*;

#[test]
fn backend_choice_names_round_trip() {
    let parsed: Vec<_> = BackendChoice::names()
        .map(|n| n.parse::<BackendChoice>().map(BackendChoice::name))
        .collect();
    let expected: Vec<_> = BackendChoice::names().map(Ok).collect();
    assert_eq!(parsed, expected);
}

#[test]
fn unknown_backend_choice_lists_every_name() {
    let err = "claud".parse::<BackendChoice>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown backend `claud` (expected one of: auto, claude, kiro, gemini, codex, amp, \
             copilot, opencode, pi, custom)"
    );
}
