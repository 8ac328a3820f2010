use super::*;

fn args(v: &[&str]) -> Vec<String> {
    v.iter().map(|a| (*a).to_owned()).collect()
}

#[test]
fn the_requested_model_is_the_last_model_option_before_a_separator() {
    let cases: [(BackendKind, &[&str], Option<&str>); 12] = [
        (BackendKind::Codex, &["-m", "gpt-5.5"], Some("gpt-5.5")),
        (
            BackendKind::Codex,
            &["--model=o3", "--model", "gpt-5"],
            Some("gpt-5"),
        ),
        (BackendKind::Codex, &["-m=gpt-5-mini"], Some("gpt-5-mini")),
        (BackendKind::Codex, &["-c", "model=\"o3\""], Some("o3")),
        (
            BackendKind::Codex,
            &["--config", "model='o4-mini'"],
            Some("o4-mini"),
        ),
        (
            BackendKind::Codex,
            &["-c", "model_reasoning_effort=high"],
            None,
        ),
        (
            BackendKind::Gemini,
            &["--yolo", "-m", "gemini-2.5-flash"],
            Some("gemini-2.5-flash"),
        ),
        (BackendKind::Codex, &["--", "-m", "gpt-5"], None),
        // `-m` means nothing to these: no guess.
        (BackendKind::Claude, &["-m", "opus"], None),
        (BackendKind::Claude, &["--model", "opus"], Some("opus")),
        (BackendKind::Custom, &["--model", "x"], None),
        (BackendKind::Codex, &["--model"], None),
    ];
    for (kind, given, expected) in cases {
        assert_eq!(
            requested_model(kind, &args(given)),
            expected,
            "{kind} {given:?}"
        );
    }
}

#[test]
fn only_codex_reads_a_model_from_a_config_option() {
    assert_eq!(
        requested_model(BackendKind::Gemini, &args(&["-c", "model=x"])),
        None
    );
}
