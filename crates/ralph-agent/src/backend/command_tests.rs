use super::*;

fn os(v: &[&str]) -> Vec<OsString> {
    v.iter().map(OsString::from).collect()
}

fn headless(kind: BackendKind, extra: &[String], prompt: &str) -> CommandLine {
    match CommandBuilder::new(kind).extra_args(extra).headless(prompt) {
        Ok(c) => c,
        Err(e) => panic!("{kind}: {e}"),
    }
}

#[test]
fn every_known_backend_has_its_documented_headless_command_line() {
    let extra = vec!["--model".to_owned(), "m1".to_owned()];
    let prompt = "Do it";
    let stdin = StdinSource::Bytes(prompt.as_bytes().to_vec());
    let expected = |program: &str, args: &[&str], stdin: StdinSource, format| CommandLine {
        program: OsString::from(program),
        args: os(args),
        stdin,
        output_format: format,
        pty: false,
        live: None,
    };
    let cases = [
        (
            BackendKind::Pi,
            expected(
                "pi",
                &["-p", "--mode", "json", "--no-session", "--model", "m1"],
                stdin.clone(),
                StreamFormat::Pi,
            ),
        ),
        (
            BackendKind::Claude,
            expected(
                "claude",
                &"-p --output-format stream-json --include-partial-messages --verbose \
                  --dangerously-skip-permissions --model m1"
                    .split_whitespace()
                    .collect::<Vec<_>>(),
                stdin.clone(),
                StreamFormat::Claude,
            ),
        ),
        (
            BackendKind::Codex,
            expected(
                "codex",
                &[
                    "exec",
                    "--json",
                    "--dangerously-bypass-approvals-and-sandbox",
                    "--skip-git-repo-check",
                    "--model",
                    "m1",
                ],
                stdin.clone(),
                StreamFormat::Codex,
            ),
        ),
        (
            BackendKind::Gemini,
            expected(
                "gemini",
                &["--yolo", "--output-format", "stream-json", "--model", "m1"],
                stdin.clone(),
                StreamFormat::Gemini,
            ),
        ),
        (
            BackendKind::Opencode,
            expected(
                "opencode",
                &["run", "--format", "json", "--auto", "--model", "m1"],
                stdin.clone(),
                StreamFormat::Opencode,
            ),
        ),
        (
            BackendKind::Amp,
            expected(
                "amp",
                &[
                    "--dangerously-allow-all",
                    "--stream-json",
                    "--execute",
                    "--model",
                    "m1",
                ],
                stdin.clone(),
                StreamFormat::Claude,
            ),
        ),
        (
            BackendKind::Copilot,
            expected(
                "copilot",
                &[
                    "--allow-all-tools",
                    "--output-format",
                    "json",
                    "--model",
                    "m1",
                    "-p",
                    "Do it",
                ],
                StdinSource::Null,
                StreamFormat::Copilot,
            ),
        ),
        (
            BackendKind::Kiro,
            expected(
                "kiro-cli",
                &[
                    "chat",
                    "--no-interactive",
                    "--trust-all-tools",
                    "--model",
                    "m1",
                    "--",
                    "Do it",
                ],
                StdinSource::Null,
                StreamFormat::Text,
            ),
        ),
    ];
    for (kind, want) in cases {
        assert_eq!(headless(kind, &extra, prompt), want, "{kind}");
    }
}

#[test]
fn every_backend_has_an_interactive_command_line_with_the_prompt_as_argument() {
    let custom = CustomSettings {
        command: Some("my-agent".to_owned()),
        args: vec!["--fast".to_owned()],
        prompt_mode: PromptMode::Stdin,
        prompt_flag: None,
        output_format: None,
    };
    let cases: [(BackendKind, &str, &[&str]); 9] = [
        (BackendKind::Pi, "pi", &["--no-session", "plan"]),
        (BackendKind::Claude, "claude", &["plan"]),
        (BackendKind::Codex, "codex", &["plan"]),
        (BackendKind::Gemini, "gemini", &["--yolo", "-i", "plan"]),
        (BackendKind::Opencode, "opencode", &["--prompt", "plan"]),
        (
            BackendKind::Copilot,
            "copilot",
            &["--allow-all-tools", "-i", "plan"],
        ),
        (
            BackendKind::Amp,
            "amp",
            &["--dangerously-allow-all", "-x", "plan"],
        ),
        (
            BackendKind::Kiro,
            "kiro-cli",
            &["chat", "--trust-all-tools", "--", "plan"],
        ),
        (BackendKind::Custom, "my-agent", &["--fast", "plan"]),
    ];
    for (kind, program, args) in cases {
        let got = CommandBuilder::new(kind)
            .custom(&custom)
            .interactive("plan");
        assert_eq!(
            got,
            Ok(InteractiveCommand {
                program: OsString::from(program),
                args: os(args),
            }),
            "{kind}"
        );
    }
}

#[test]
fn backend_and_hat_extra_args_are_appended_in_order_before_the_prompt() {
    let backend_args = vec!["--a".to_owned()];
    let hat_args = vec!["--b".to_owned(), "x".to_owned()];
    let got = CommandBuilder::new(BackendKind::Kiro)
        .extra_args(&backend_args)
        .extra_args(&hat_args)
        .headless("go");
    assert_eq!(
        got.map(|c| c.args),
        Ok(os(&[
            "chat",
            "--no-interactive",
            "--trust-all-tools",
            "--a",
            "--b",
            "x",
            "--",
            "go"
        ]))
    );
}

#[test]
fn command_override_replaces_only_the_program() {
    let got = CommandBuilder::new(BackendKind::Pi)
        .command_override(Some("/opt/pi/bin/pi"))
        .headless("-x");
    assert_eq!(
        got,
        Ok(CommandLine {
            program: OsString::from("/opt/pi/bin/pi"),
            args: os(&["-p", "--mode", "json", "--no-session"]),
            stdin: StdinSource::Bytes(b"-x".to_vec()),
            output_format: StreamFormat::Pi,
            pty: false,
            live: None,
        })
    );
}

#[test]
fn stdin_delivery_takes_a_two_megabyte_prompt_and_option_like_prompts_unchanged() {
    let big = "é".repeat(1024 * 1024);
    for prompt in [big.as_str(), "-rf", "@file.md", "/skill:x"] {
        for kind in [BackendKind::Pi, BackendKind::Claude] {
            let got = headless(kind, &[], prompt);
            assert_eq!(got.stdin, StdinSource::Bytes(prompt.as_bytes().to_vec()));
            assert!(
                !got.args.iter().any(|a| a == prompt),
                "{kind}: prompt leaked into argv"
            );
        }
    }
}

#[test]
fn argument_delivery_of_an_oversized_prompt_is_a_typed_error() {
    let big = "a".repeat(MAX_SINGLE_ARG_BYTES);
    assert_eq!(
        CommandBuilder::new(BackendKind::Copilot).headless(&big),
        Err(BuildError::PromptTooLongForArgv {
            backend: BackendKind::Copilot,
            bytes: MAX_SINGLE_ARG_BYTES,
            limit: MAX_SINGLE_ARG_BYTES - 1,
        })
    );
    assert_eq!(
        CommandBuilder::new(BackendKind::Pi).interactive(&big),
        Err(BuildError::PromptTooLongForArgv {
            backend: BackendKind::Pi,
            bytes: MAX_SINGLE_ARG_BYTES,
            limit: MAX_SINGLE_ARG_BYTES - 1,
        })
    );
}

#[test]
fn option_like_prompt_is_refused_as_a_plain_argument_but_allowed_after_the_separator() {
    assert_eq!(
        CommandBuilder::new(BackendKind::Copilot).headless("-v"),
        Err(BuildError::PromptStartsWithDash {
            backend: BackendKind::Copilot
        })
    );
    assert_eq!(
        CommandBuilder::new(BackendKind::Kiro)
            .headless("-v")
            .map(|c| c.args),
        Ok(os(&[
            "chat",
            "--no-interactive",
            "--trust-all-tools",
            "--",
            "-v"
        ]))
    );
}

#[test]
fn custom_backend_honours_prompt_mode_flag_and_format() {
    let base = CustomSettings {
        command: Some("agent".to_owned()),
        args: vec!["run".to_owned()],
        ..CustomSettings::default()
    };
    let extra = vec!["--x".to_owned()];
    let build = |s: &CustomSettings| {
        CommandBuilder::new(BackendKind::Custom)
            .custom(s)
            .extra_args(&extra)
            .headless("hi")
    };
    assert_eq!(
        build(&base),
        Ok(CommandLine {
            program: OsString::from("agent"),
            args: os(&["run", "--x", "hi"]),
            stdin: StdinSource::Null,
            output_format: StreamFormat::Text,
            pty: false,
            live: None,
        })
    );
    let flagged = CustomSettings {
        prompt_flag: Some("--message".to_owned()),
        output_format: Some(StreamFormat::Claude),
        ..base.clone()
    };
    assert_eq!(
        build(&flagged),
        Ok(CommandLine {
            program: OsString::from("agent"),
            args: os(&["run", "--x", "--message", "hi"]),
            stdin: StdinSource::Null,
            output_format: StreamFormat::Claude,
            pty: false,
            live: None,
        })
    );
    let on_stdin = CustomSettings {
        prompt_mode: PromptMode::Stdin,
        ..base.clone()
    };
    assert_eq!(
        build(&on_stdin),
        Ok(CommandLine {
            program: OsString::from("agent"),
            args: os(&["run", "--x"]),
            stdin: StdinSource::Bytes(b"hi".to_vec()),
            output_format: StreamFormat::Text,
            pty: false,
            live: None,
        })
    );
}

#[test]
fn custom_backend_without_a_command_is_a_typed_error() {
    assert_eq!(
        CommandBuilder::new(BackendKind::Custom).headless("x"),
        Err(BuildError::CustomWithoutCommand)
    );
    assert_eq!(
        CommandBuilder::new(BackendKind::Custom)
            .command_override(Some("agent"))
            .headless("x")
            .map(|c| c.program),
        Ok(OsString::from("agent"))
    );
}

#[test]
fn on_a_terminal_a_stdin_prompt_becomes_the_last_argument() {
    let on_pty = |kind: BackendKind, prompt: &str| {
        CommandBuilder::new(kind)
            .extra_args(&["--model".to_owned(), "m1".to_owned()])
            .pty(true)
            .headless(prompt)
    };
    assert_eq!(
        on_pty(BackendKind::Pi, "Do it"),
        Ok(CommandLine {
            program: OsString::from("pi"),
            args: os(&[
                "-p",
                "--mode",
                "json",
                "--no-session",
                "--model",
                "m1",
                "Do it"
            ]),
            stdin: StdinSource::Null,
            output_format: StreamFormat::Pi,
            pty: true,
            live: None,
        })
    );
    assert_eq!(
        on_pty(BackendKind::Claude, "Do it").map(|c| (c.args.last().cloned(), c.stdin, c.pty)),
        Ok((Some(OsString::from("Do it")), StdinSource::Null, true))
    );
    // As an argument, the prompt is checked like any other.
    assert_eq!(
        on_pty(BackendKind::Pi, "-rf"),
        Err(BuildError::PromptStartsWithDash {
            backend: BackendKind::Pi
        })
    );
    assert_eq!(
        CommandBuilder::new(BackendKind::Pi)
            .pty(true)
            .headless_delivery(),
        PromptDelivery::Arg
    );
}

#[path = "command_steering_tests.rs"]
mod steering;
