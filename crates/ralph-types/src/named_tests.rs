use crate::{BackendKind, PromptMode, StreamFormat};

#[test]
fn values_are_written_and_read_by_their_names() {
    let written =
        serde_json::to_string(&(BackendKind::Opencode, StreamFormat::Text, PromptMode::Stdin))
            .unwrap();
    assert_eq!(written, r#"["opencode","text","stdin"]"#);
    let read: (BackendKind, StreamFormat, PromptMode) =
        serde_json::from_str(r#"["opencode","text","stdin"]"#).unwrap();
    assert_eq!(
        read,
        (BackendKind::Opencode, StreamFormat::Text, PromptMode::Stdin)
    );
    // An escaped name is the same name.
    let escaped: BackendKind = serde_json::from_str(r#""\u0070i""#).unwrap();
    assert_eq!(escaped, BackendKind::Pi);
}

#[test]
fn an_unknown_name_is_reported_with_every_known_one() {
    let error = serde_json::from_str::<StreamFormat>(r#""json""#).unwrap_err();
    assert!(
        error.to_string().starts_with(
            "unknown stream format `json` (expected one of: pi, claude, codex, gemini, \
                 opencode, copilot, text)"
        ),
        "{error}"
    );
}
