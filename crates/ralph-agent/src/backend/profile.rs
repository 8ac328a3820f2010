//! What ralph knows about each agent CLI: binary, command lines, prompt delivery, output
//! format, version probe, install hint and how its arguments name a model. One exhaustive
//! match, so a new [`BackendKind`] cannot be added without deciding all of these.
//!
//! Sources: the real command lines in `shared/realworld/*/README.md` (captured against the
//! agents themselves) and upstream ralph-orchestrator's backend table. Where an agent reads
//! its prompt from a non-TTY stdin, the prompt goes there (no size limit, no option
//! parsing). Agents whose stdin handling is unknown get `/dev/null` as stdin and the prompt
//! as an argument, which is size-checked.

use ralph_stream::StreamFormat;

use crate::BackendKind;
use crate::backend::{ModelOption, PromptDelivery, SteerProtocol, Steering};

/// The static description of one backend. `Custom` has no binary of its own: its command,
/// arguments, delivery and format come from the config.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendProfile {
    pub kind: BackendKind,
    /// The program name looked up on `PATH` (`None` for `custom`).
    pub binary: Option<&'static str>,
    /// Arguments of a headless run, before extra arguments and the prompt.
    pub headless_args: &'static [&'static str],
    pub headless_delivery: PromptDelivery,
    pub output_format: StreamFormat,
    /// Arguments of an interactive session (`ralph plan`), before the prompt.
    pub interactive_args: &'static [&'static str],
    pub interactive_delivery: PromptDelivery,
    /// Arguments that make the binary print its version and exit.
    pub version_args: &'static [&'static str],
    /// A command (or instruction) the user can follow to install the binary.
    pub install_hint: &'static str,
    /// True when the agent only works with a terminal. None of the known agents needs one
    /// headless; pipes avoid CRLF translation and TTY-only behaviour.
    pub needs_pty: bool,
    /// True when the agent's shell tool runs a login shell that resets `PATH` (Codex runs
    /// commands with `bash -lc`, and Debian's `/etc/profile` rewrites `PATH`): ralph's
    /// directory is then gone from `PATH`, so agents must call it through `$RALPH_BIN`.
    pub tools_reset_path: bool,
    /// How the command line names a model; `None` when it cannot (Amp picks its model by
    /// `--mode`) or is unknown (a custom program).
    pub model_option: Option<ModelOption>,
    /// Options that set a key of the agent's own config file as `KEY=VALUE`, where
    /// `model=NAME` names the model too (Codex's `-c/--config`).
    pub config_options: &'static [&'static str],
    /// How the agent is run to take steering messages mid-turn (`cli.steering`); `None`
    /// when it cannot (it then gets them in its next iteration's prompt).
    pub steering: Option<Steering>,
}

const VERSION: &[&str] = &["--version"];
/// `--model NAME` only.
const LONG_MODEL: Option<ModelOption> = Some(ModelOption {
    long: "--model",
    short: None,
});
/// `--model NAME` or `-m NAME`.
const LONG_AND_SHORT_MODEL: Option<ModelOption> = Some(ModelOption {
    long: "--model",
    short: Some("-m"),
});

impl BackendProfile {
    /// The profile of `kind`.
    pub fn of(kind: BackendKind) -> BackendProfile {
        match kind {
            // Prompt on stdin: Claude reads a piped stdin in print mode. `--verbose` is
            // mandatory with stream-json, or Claude exits 1 before any event.
            // `--include-partial-messages` writes the model's text and thinking as they
            // come (`stream_event` deltas): without it a block arrives only once whole, so
            // the views stay blank while a long answer is written, and one written more
            // slowly than the idle timeout looks like a hang.
            BackendKind::Claude => BackendProfile {
                kind,
                binary: Some("claude"),
                headless_args: &[
                    "-p",
                    "--output-format",
                    "stream-json",
                    "--include-partial-messages",
                    "--verbose",
                    "--dangerously-skip-permissions",
                ],
                headless_delivery: PromptDelivery::Stdin,
                output_format: StreamFormat::Claude,
                interactive_args: &[],
                interactive_delivery: PromptDelivery::Arg,
                version_args: VERSION,
                install_hint: "npm install -g @anthropic-ai/claude-code",
                needs_pty: false,
                tools_reset_path: false,
                model_option: LONG_MODEL,
                config_options: &[],
                // User messages on stdin as stream-json, read while the turn runs, each
                // shown back as it is taken into the conversation (so ralph can tell one
                // the model read from one it did not).
                steering: Some(Steering {
                    headless_args: &[
                        "-p",
                        "--input-format",
                        "stream-json",
                        "--output-format",
                        "stream-json",
                        "--include-partial-messages",
                        "--replay-user-messages",
                        "--verbose",
                        "--dangerously-skip-permissions",
                    ],
                    protocol: SteerProtocol::ClaudeStreamJson,
                }),
            },
            // Kiro's stdin behaviour is unknown (it could not be installed here), so stdin
            // is /dev/null and the prompt follows `--`, which its clap parser honours.
            // Output is plain text.
            BackendKind::Kiro => BackendProfile {
                kind,
                binary: Some("kiro-cli"),
                headless_args: &["chat", "--no-interactive", "--trust-all-tools"],
                headless_delivery: PromptDelivery::ArgAfterSeparator,
                output_format: StreamFormat::Text,
                interactive_args: &["chat", "--trust-all-tools"],
                interactive_delivery: PromptDelivery::ArgAfterSeparator,
                version_args: VERSION,
                install_hint: "install the Kiro CLI (`kiro-cli`) from https://kiro.dev/docs/cli/",
                needs_pty: false,
                tools_reset_path: false,
                model_option: LONG_MODEL,
                config_options: &[],
                steering: None,
            },
            // Gemini reads a non-TTY stdin as the prompt and then runs non-interactively,
            // so no `-p` is needed (checked with gemini 0.61.0: a 320 KB prompt starting
            // with `-` arrived whole).
            BackendKind::Gemini => BackendProfile {
                kind,
                binary: Some("gemini"),
                headless_args: &["--yolo", "--output-format", "stream-json"],
                headless_delivery: PromptDelivery::Stdin,
                output_format: StreamFormat::Gemini,
                interactive_args: &["--yolo"],
                interactive_delivery: PromptDelivery::Flag("-i".to_owned()),
                version_args: VERSION,
                install_hint: "npm install -g @google/gemini-cli",
                needs_pty: false,
                tools_reset_path: false,
                model_option: LONG_AND_SHORT_MODEL,
                config_options: &[],
                steering: None,
            },
            // `codex exec` with no prompt argument reads the prompt from stdin (checked with
            // codex 0.169.0 and a 320 KB prompt starting with `-`).
            // `--skip-git-repo-check` because ralph may run outside a git repository.
            BackendKind::Codex => BackendProfile {
                kind,
                binary: Some("codex"),
                headless_args: &[
                    "exec",
                    "--json",
                    "--dangerously-bypass-approvals-and-sandbox",
                    "--skip-git-repo-check",
                ],
                headless_delivery: PromptDelivery::Stdin,
                output_format: StreamFormat::Codex,
                interactive_args: &[],
                interactive_delivery: PromptDelivery::Arg,
                version_args: VERSION,
                install_hint: "npm install -g @openai/codex",
                needs_pty: false,
                tools_reset_path: true,
                model_option: LONG_AND_SHORT_MODEL,
                config_options: &["-c", "--config"],
                steering: None,
            },
            // Amp's execute mode takes the prompt from a piped stdin. `--stream-json` is
            // Claude-compatible stream JSON (not observed here: Amp cannot run offline);
            // text mode would print nothing until the end and trip the inactivity timeout.
            // Amp has no `--include-partial-messages`: its blocks come whole, each
            // `assistant` line with its own `stop_reason`.
            BackendKind::Amp => BackendProfile {
                kind,
                binary: Some("amp"),
                headless_args: &["--dangerously-allow-all", "--stream-json", "--execute"],
                headless_delivery: PromptDelivery::Stdin,
                output_format: StreamFormat::Claude,
                interactive_args: &["--dangerously-allow-all"],
                interactive_delivery: PromptDelivery::Flag("-x".to_owned()),
                version_args: VERSION,
                install_hint: "npm install -g @sourcegraph/amp",
                needs_pty: false,
                tools_reset_path: false,
                model_option: None,
                config_options: &[],
                steering: None,
            },
            // Copilot's stdin behaviour is unknown: prompt after `-p`, stdin /dev/null.
            BackendKind::Copilot => BackendProfile {
                kind,
                binary: Some("copilot"),
                headless_args: &["--allow-all-tools", "--output-format", "json"],
                headless_delivery: PromptDelivery::Flag("-p".to_owned()),
                output_format: StreamFormat::Copilot,
                interactive_args: &["--allow-all-tools"],
                interactive_delivery: PromptDelivery::Flag("-i".to_owned()),
                version_args: VERSION,
                install_hint: "npm install -g @github/copilot",
                needs_pty: false,
                tools_reset_path: false,
                model_option: LONG_MODEL,
                config_options: &[],
                steering: None,
            },
            // `opencode run` appends a non-TTY stdin to its (empty) message. `--auto` approves
            // what OpenCode would ask about (checked with opencode 1.18.33): without it a tool
            // call outside the workspace (`echo x > ../f`) is rejected, since nobody can answer,
            // and the run ends right there with exit 0.
            BackendKind::Opencode => BackendProfile {
                kind,
                binary: Some("opencode"),
                headless_args: &["run", "--format", "json", "--auto"],
                headless_delivery: PromptDelivery::Stdin,
                output_format: StreamFormat::Opencode,
                interactive_args: &[],
                interactive_delivery: PromptDelivery::Flag("--prompt".to_owned()),
                version_args: VERSION,
                install_hint: "npm install -g opencode-ai",
                needs_pty: false,
                tools_reset_path: false,
                model_option: LONG_AND_SHORT_MODEL,
                config_options: &[],
                steering: None,
            },
            // pi reads a non-TTY stdin to EOF before doing anything, and a positional prompt
            // starting with `-` or `@` is misparsed, or fails with E2BIG past 128 KiB: stdin
            // avoids all three. `pi --version` prints on stderr: probe by exit code.
            BackendKind::Pi => BackendProfile {
                kind,
                binary: Some("pi"),
                headless_args: &["-p", "--mode", "json", "--no-session"],
                headless_delivery: PromptDelivery::Stdin,
                output_format: StreamFormat::Pi,
                interactive_args: &["--no-session"],
                interactive_delivery: PromptDelivery::Arg,
                version_args: VERSION,
                install_hint: "npm install -g @mariozechner/pi-coding-agent",
                needs_pty: false,
                tools_reset_path: false,
                model_option: LONG_MODEL,
                config_options: &[],
                // RPC mode: the prompt, steering and abort are commands on stdin; the
                // events are those of `--mode json`.
                steering: Some(Steering {
                    headless_args: &["--mode", "rpc", "--no-session"],
                    protocol: SteerProtocol::PiRpc,
                }),
            },
            // Everything comes from the config; these are the defaults it refines.
            BackendKind::Custom => BackendProfile {
                kind,
                binary: None,
                headless_args: &[],
                headless_delivery: PromptDelivery::Arg,
                output_format: StreamFormat::Text,
                interactive_args: &[],
                interactive_delivery: PromptDelivery::Arg,
                version_args: VERSION,
                install_hint: "point its `command` in ralph.yml (`cli.command`, or a hat's \
                           `backend: {command: ...}`) at a program on PATH or a path to an \
                           executable",
                needs_pty: false,
                tools_reset_path: false,
                model_option: None,
                config_options: &[],
                steering: None,
            },
        }
    }
}
