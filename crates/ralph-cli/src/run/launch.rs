//! From an agent's configuration to what the supervisor runs: the command line, the
//! deadlines and the pricing of one iteration. Pure glue between ralph-core's resolved
//! configuration and ralph-agent's backends: what each agent's command line looks like
//! is ralph-agent's (`BackendProfile`), what the user configured is ralph-core's; this
//! is the only place the configuration's deadlines are mapped onto the supervisor's.

use std::path::Path;
use std::time::Duration;

use ralph_agent::{
    BackendKind, BuildError, CommandBuilder, CommandLine, CustomSettings, InteractiveCommand,
    RunDeadlines, requested_model,
};
use ralph_core::config::{AgentBackend, AgentConfig, Deadlines, ResolvedConfig};
use ralph_stream::Pricing;

/// The program to check before a run, as `(backend, command override)`; `None` for
/// `auto`, which is detected instead.
pub(crate) fn probe_target(agent: &AgentConfig) -> Option<(BackendKind, Option<&str>)> {
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
pub(crate) fn command_line(
    agent: &AgentConfig,
    detected: BackendKind,
    program: Option<&Path>,
    prompt: &str,
) -> Result<CommandLine, BuildError> {
    let custom = custom_settings(agent);
    builder(agent, detected, program, custom.as_ref()).headless(prompt)
}

/// The interactive command line of `agent` (`ralph plan`), starting with `prompt`: the
/// program, the backend's interactive arguments, the configured extra arguments, then the
/// prompt as the backend takes it. Arguments as in [`command_line`].
pub(crate) fn interactive_command_line(
    agent: &AgentConfig,
    detected: BackendKind,
    program: Option<&Path>,
    prompt: &str,
) -> Result<InteractiveCommand, BuildError> {
    let custom = custom_settings(agent);
    builder(agent, detected, program, custom.as_ref()).interactive(prompt)
}

/// The one place an agent's configuration becomes a command builder.
fn builder<'a>(
    agent: &'a AgentConfig,
    detected: BackendKind,
    program: Option<&'a Path>,
    custom: Option<&'a CustomSettings>,
) -> CommandBuilder<'a> {
    let program = program.and_then(Path::to_str);
    let builder = match (&agent.backend, custom) {
        (AgentBackend::Auto, _) => CommandBuilder::new(detected).command_override(program),
        (AgentBackend::Builtin { kind, command }, _) => {
            CommandBuilder::new(*kind).command_override(program.or(command.as_deref()))
        }
        (AgentBackend::Custom(_), Some(settings)) => CommandBuilder::new(BackendKind::Custom)
            .command_override(program)
            .custom(settings),
        // `custom_settings` gives settings for every custom backend; without them the
        // builder reports the missing command itself.
        (AgentBackend::Custom(_), None) => CommandBuilder::new(BackendKind::Custom),
    };
    builder.extra_args(&agent.args).pty(agent.pty)
}

/// A custom backend's settings, in ralph-agent's terms.
fn custom_settings(agent: &AgentConfig) -> Option<CustomSettings> {
    let AgentBackend::Custom(custom) = &agent.backend else {
        return None;
    };
    Some(CustomSettings {
        command: Some(custom.command.clone()),
        args: Vec::new(),
        prompt_mode: custom.prompt_mode,
        prompt_flag: custom.prompt_flag.clone(),
        output_format: Some(custom.output_format),
    })
}

/// The supervisor's deadlines for an iteration under `deadlines`, whose wall clock is
/// `wall` (the iteration timeout, or less when the run's time is running out).
pub(crate) fn agent_deadlines(deadlines: &Deadlines, wall: Duration) -> RunDeadlines {
    RunDeadlines {
        wall: Some(wall),
        ..RunDeadlines::from(*deadlines)
    }
}

/// How one iteration of `agent` (running as `kind`) prices usage its agent reports without
/// a cost: the configured price table, and the model its arguments ask for (Codex never
/// names its model in its stream; see `ralph_agent::requested_model`).
pub(crate) fn pricing(config: &ResolvedConfig, agent: &AgentConfig, kind: BackendKind) -> Pricing {
    let pricing = Pricing::new(config.price_table());
    match requested_model(kind, &agent.args) {
        Some(model) => pricing.with_default_model(model),
        None => pricing,
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use ralph_agent::StdinSource;
    use ralph_core::config::{CustomBackend, PromptMode};
    use ralph_stream::StreamFormat;
    use ralph_types::DEFAULT_KILL_GRACE;

    use super::*;

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
            RunDeadlines {
                startup: Some(Duration::from_secs(1)),
                idle: Some(Duration::from_secs(2)),
                wall: Some(Duration::from_secs(9)),
                exit_grace: Duration::from_secs(4),
                kill_grace: DEFAULT_KILL_GRACE,
            }
        );
    }

    #[test]
    fn an_iteration_is_priced_with_the_configured_table_as_the_model_its_args_ask_for() {
        use ralph_core::config::{
            CoreConfig, DEFAULT_MAX_RUNTIME, LoopConfig, ModelPricing, ResolvedConfig,
        };
        use ralph_stream::{CostKind, ModelPrice, Tokens, Usage};
        let price = ModelPrice {
            input: 2.0,
            output: 20.0,
            cache_read: 0.5,
            cache_write: 2.0,
        };
        let config = ResolvedConfig {
            agent: agent(AgentBackend::Auto, &[]),
            backend_priority: vec![],
            event_loop: LoopConfig {
                prompt: None,
                completion_promise: "LOOP_COMPLETE".into(),
                max_iterations: 1,
                max_runtime: DEFAULT_MAX_RUNTIME,
                max_cost_usd: None,
                max_consecutive_failures: 1,
                starting_event: "task.start".into(),
                required_events: vec![],
            },
            core: CoreConfig {
                scratchpad: None,
                guardrails: vec![],
                specs_dir: "specs".into(),
            },
            hats: vec![],
            pricing: vec![ModelPricing {
                model: "gpt-5.5".into(),
                price,
            }],
            sources: vec![],
        };
        let codex = agent(
            AgentBackend::Builtin {
                kind: BackendKind::Codex,
                command: None,
            },
            &["-m", "gpt-5.5"],
        );
        let tokens = Tokens {
            input: 1_000_000,
            output: 100_000,
            cache_read: 2_000_000,
            cache_write: 0,
        };
        let pricing = pricing(&config, &codex, BackendKind::Codex);
        assert_eq!(
            pricing.estimate(tokens, None),
            Usage {
                tokens,
                cost_usd: Some(2.0 + 2.0 + 1.0),
                cost_kind: CostKind::Estimated,
                model: Some("gpt-5.5".into()),
            }
        );
        // The built-in prices are still there; without a model option, nothing is assumed.
        let plain = agent(
            AgentBackend::Builtin {
                kind: BackendKind::Codex,
                command: None,
            },
            &[],
        );
        let pricing = super::pricing(&config, &plain, BackendKind::Codex);
        assert_eq!(pricing.default_model(), None);
        assert!(pricing.table().price_of("gpt-5").is_some());
    }
}
