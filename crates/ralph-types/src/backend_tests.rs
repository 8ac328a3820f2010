use super::*;

#[test]
fn names_round_trip() {
    for kind in BackendKind::ALL {
        assert_eq!(kind.name().parse::<BackendKind>(), Ok(kind));
    }
    assert_eq!(
        "claud".parse::<BackendKind>(),
        Err(UnknownBackend("claud".to_owned()))
    );
}

#[test]
fn an_unknown_name_lists_every_backend() {
    assert_eq!(
        UnknownBackend("claud".to_owned()).to_string(),
        "unknown backend `claud` (expected one of: claude, kiro, gemini, codex, amp, \
             copilot, opencode, pi, custom)"
    );
}
