//! Command lines of steered runs: pi in RPC mode, Claude Code on stream-json input, the
//! prompt as the first frame of a live stdin; everything else as without steering.

use super::*;
use crate::SteerProtocol;

fn steered(builder: CommandBuilder<'_>, prompt: &str) -> CommandLine {
    builder
        .steering(true)
        .headless(prompt)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn pi_runs_in_rpc_mode_with_the_prompt_as_its_first_command() {
    let extra = vec!["--provider".to_owned(), "mock".to_owned()];
    let line = steered(
        CommandBuilder::new(BackendKind::Pi).extra_args(&extra),
        "-x @y",
    );
    assert_eq!(line.program, OsString::from("pi"));
    assert_eq!(
        line.args,
        os(&["--mode", "rpc", "--no-session", "--provider", "mock"])
    );
    assert_eq!(line.output_format, StreamFormat::Pi);
    assert!(!line.pty);
    let live = line.live.expect("a live input");
    assert_eq!(live.protocol(), SteerProtocol::PiRpc);
    assert_eq!(line.stdin, live.stdin_source());
}

#[test]
fn claude_reads_stream_json_input() {
    let line = steered(
        CommandBuilder::new(BackendKind::Claude).command_override(Some("/opt/claude")),
        "Do it.",
    );
    assert_eq!(line.program, OsString::from("/opt/claude"));
    // The prompt goes on stdin as the first user message, so no argument carries it.
    let args: Vec<_> = line.args.iter().map(|a| a.to_string_lossy()).collect();
    assert_eq!(
        args.join(" "),
        "-p --input-format stream-json --output-format stream-json --include-partial-messages \
         --replay-user-messages --verbose \
         --dangerously-skip-permissions"
    );
    assert_eq!(
        line.live.map(|l| l.protocol()),
        Some(SteerProtocol::ClaudeStreamJson)
    );
}

#[test]
fn agents_without_a_way_a_terminal_or_steering_off_get_the_usual_command_line() {
    for kind in BackendKind::ALL {
        let builder = || CommandBuilder::new(kind).command_override(Some("agent"));
        let custom = CustomSettings {
            command: Some("agent".to_owned()),
            ..CustomSettings::default()
        };
        let plain = builder().custom(&custom).headless("Do it.");
        let asked = builder().custom(&custom).steering(true).headless("Do it.");
        let on_pty = builder()
            .custom(&custom)
            .steering(true)
            .pty(true)
            .headless("Do it.");
        let off = builder().custom(&custom).steering(false).headless("Do it.");
        assert_eq!(off, plain, "{kind}");
        assert_eq!(
            on_pty,
            builder().custom(&custom).pty(true).headless("Do it.")
        );
        let steerable = matches!(kind, BackendKind::Pi | BackendKind::Claude);
        assert_eq!(
            builder().steering(true).live_steering().is_some(),
            steerable,
            "{kind}"
        );
        if !steerable {
            assert_eq!(asked, plain, "{kind}");
        }
    }
}
