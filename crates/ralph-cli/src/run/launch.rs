//! From an agent's configuration to what the supervisor runs: the command line, the
//! deadlines and the pricing of one iteration. Pure glue between ralph-core's resolved
//! configuration and ralph-agent's backends: what each agent's command line looks like
//! is ralph-agent's (`BackendProfile`), what the user configured is ralph-core's; this
//! is the only place the configuration's deadlines are mapped onto the supervisor's.

use std::path::Path;
use std::time::Duration;

use ralph_agent::{
    BackendKind, BackendProfile, BuildError, CommandBuilder, CommandLine, CustomSettings,
    InteractiveCommand, RunDeadlines, requested_model,
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

/// The headless command line that runs `agent` on `prompt`. With `steering` on and a
/// backend that takes it mid-turn, its `live` is the handle that steers the agent while
/// it runs (the run shell hands it to `ralph steer`'s target for the iteration).
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
    builder
        .extra_args(&agent.args)
        .pty(agent.pty)
        .steering(agent.steering)
}

/// Why `agent` (running as `detected`) asks for steering (`steering: true`) but takes it
/// only between iterations; `None` when it takes it mid-turn or did not ask.
pub(crate) fn steering_between_iterations(
    agent: &AgentConfig,
    detected: BackendKind,
) -> Option<String> {
    if !agent.steering {
        return None;
    }
    let custom = custom_settings(agent);
    let builder = builder(agent, detected, None, custom.as_ref());
    if builder.live_steering().is_some() {
        return None;
    }
    let kind = match &agent.backend {
        AgentBackend::Auto => detected,
        AgentBackend::Builtin { kind, .. } => *kind,
        AgentBackend::Custom(_) => BackendKind::Custom,
    };
    let why = if agent.pty && BackendProfile::of(kind).steering.is_some() {
        "on a pseudo-terminal (`pty: true`) its input is the terminal"
    } else {
        "it reads no commands while it works"
    };
    Some(format!(
        "`{}` takes `ralph steer` messages only between iterations ({why}): they go into \
         the next iteration's prompt",
        kind.name()
    ))
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
#[path = "launch_tests.rs"]
mod tests;
