//! From an agent's configuration to what the supervisor runs: the command line and the
//! deadlines of one iteration. Pure; the only place the configuration's deadlines are
//! mapped onto the supervisor's.

use std::path::Path;
use std::time::Duration;

use ralph_agent::supervise::DEFAULT_KILL_GRACE;
use ralph_agent::{BackendKind, BuildError, CommandBuilder, CommandLine, CustomSettings};

use crate::config::{AgentBackend, AgentConfig, Deadlines, PromptMode};

/// The program to check before a run, as `(backend, command override)`; `None` for
/// `auto`, which is detected instead.
pub fn probe_target(agent: &AgentConfig) -> Option<(BackendKind, Option<&str>)> {
    match &agent.backend {
        AgentBackend::Auto => None,
        AgentBackend::Builtin { kind, command } => Some((*kind, command.as_deref())),
        AgentBackend::Custom(custom) => Some((BackendKind::Custom, Some(custom.command.as_str()))),
    }
}

/// The headless command line that runs `agent` on `prompt`.
///
/// `detected` is the backend `auto` resolved to (ignored otherwise); `program`, when
/// given, is the program's resolved path (so the agent runs exactly what was checked,
/// whatever its `PATH` says).
pub fn command_line(
    agent: &AgentConfig,
    detected: BackendKind,
    program: Option<&Path>,
    prompt: &str,
) -> Result<CommandLine, BuildError> {
    let program = program.and_then(Path::to_str);
    match &agent.backend {
        AgentBackend::Auto => CommandBuilder::new(detected)
            .command_override(program)
            .extra_args(&agent.args)
            .pty(agent.pty)
            .headless(prompt),
        AgentBackend::Builtin { kind, command } => CommandBuilder::new(*kind)
            .command_override(program.or(command.as_deref()))
            .extra_args(&agent.args)
            .pty(agent.pty)
            .headless(prompt),
        AgentBackend::Custom(custom) => {
            let settings = CustomSettings {
                command: Some(custom.command.clone()),
                args: Vec::new(),
                prompt_mode: match custom.prompt_mode {
                    PromptMode::Arg => ralph_agent::PromptMode::Arg,
                    PromptMode::Stdin => ralph_agent::PromptMode::Stdin,
                },
                prompt_flag: custom.prompt_flag.clone(),
                output_format: Some(custom.output_format),
            };
            CommandBuilder::new(BackendKind::Custom)
                .command_override(program)
                .custom(&settings)
                .extra_args(&agent.args)
                .pty(agent.pty)
                .headless(prompt)
        }
    }
}

/// The supervisor's deadlines for an iteration under `deadlines`, whose wall clock is
/// `wall` (the iteration timeout, or less when the run's time is running out).
pub fn agent_deadlines(deadlines: &Deadlines, wall: Duration) -> ralph_agent::Deadlines {
    ralph_agent::Deadlines {
        startup: Some(deadlines.startup),
        idle: Some(deadlines.idle),
        wall: Some(wall),
        exit_grace: deadlines.exit_grace,
        kill_grace: DEFAULT_KILL_GRACE,
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use ralph_agent::StdinSource;
    use ralph_stream::StreamFormat;

    use super::*;
    use crate::config::CustomBackend;

    fn agent(backend: AgentBackend, args: &[&str]) -> AgentConfig {
        AgentConfig {
            backend,
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            deadlines: Deadlines::default(),
            pty: false,
        }
    }

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn builtin_backends_get_their_args_and_the_checked_program() {
        let pi = agent(
            AgentBackend::Builtin {
                kind: BackendKind::Pi,
                command: None,
            },
            &["--model", "m"],
        );
        let line =
            command_line(&pi, BackendKind::Claude, Some(Path::new("/opt/pi")), "go").unwrap();
        assert_eq!(
            line,
            CommandLine {
                program: "/opt/pi".into(),
                args: os(&["-p", "--mode", "json", "--no-session", "--model", "m"]),
                stdin: StdinSource::Bytes(b"go".to_vec()),
                output_format: StreamFormat::Pi,
                pty: false,
            }
        );
        let auto = command_line(
            &agent(AgentBackend::Auto, &[]),
            BackendKind::Claude,
            None,
            "go",
        )
        .unwrap();
        assert_eq!(
            (auto.program, auto.output_format),
            ("claude".into(), StreamFormat::Claude)
        );
    }

    #[test]
    fn an_agent_on_a_terminal_gets_its_prompt_as_an_argument() {
        let pi = AgentConfig {
            pty: true,
            ..agent(
                AgentBackend::Builtin {
                    kind: BackendKind::Pi,
                    command: None,
                },
                &[],
            )
        };
        let line = command_line(&pi, BackendKind::Pi, Some(Path::new("/opt/pi")), "go").unwrap();
        assert_eq!(
            line,
            CommandLine {
                program: "/opt/pi".into(),
                args: os(&["-p", "--mode", "json", "--no-session", "go"]),
                stdin: StdinSource::Null,
                output_format: StreamFormat::Pi,
                pty: true,
            }
        );
    }

    #[test]
    fn custom_backends_follow_their_settings() {
        let custom = agent(
            AgentBackend::Custom(CustomBackend {
                command: "my-agent".into(),
                prompt_mode: PromptMode::Arg,
                prompt_flag: Some("--task".into()),
                output_format: StreamFormat::Text,
            }),
            &["-v"],
        );
        let line = command_line(&custom, BackendKind::Pi, None, "do it").unwrap();
        assert_eq!(
            (line.program, line.args, line.stdin),
            (
                "my-agent".into(),
                os(&["-v", "--task", "do it"]),
                StdinSource::Null
            )
        );
    }

    #[test]
    fn deadlines_map_onto_the_supervisor_with_the_given_wall() {
        let d = Deadlines {
            startup: Duration::from_secs(1),
            idle: Duration::from_secs(2),
            iteration: Duration::from_secs(3),
            exit_grace: Duration::from_secs(4),
        };
        assert_eq!(
            agent_deadlines(&d, Duration::from_secs(9)),
            ralph_agent::Deadlines {
                startup: Some(Duration::from_secs(1)),
                idle: Some(Duration::from_secs(2)),
                wall: Some(Duration::from_secs(9)),
                exit_grace: Duration::from_secs(4),
                kill_grace: DEFAULT_KILL_GRACE,
            }
        );
    }
}
