//! `ralph plan [IDEA]`: a planning session with the agent, in its own interactive mode,
//! that ends with a spec under `core.specs_dir` for `ralph run -P` to carry out.
//!
//! The agent takes over the terminal (stdin, stdout, stderr inherited; it stays in
//! ralph's process group, so Ctrl-C reaches it and ralph only waits). ralph's part is the
//! choice of agent (the config's, `auto` detected), the prompt and the command line.

use std::ffi::OsString;

use ralph_agent::supervise::{ChildStatus, run_interactive};
use ralph_core::config::Overrides;
use tokio::signal::unix::{SignalKind, signal};

use crate::cli::PlanArgs;
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::exit::CommandOutcome;
use crate::run::backends::{interactive_command, resolve_default};
use crate::shell_words::shell_line;

/// What the agent is asked when no idea is given.
const NO_IDEA: &str = "I have not said yet: start by asking me what I want to build or change.";

/// The planning prompt: an interview, then a spec an agent can carry out without asking.
pub(crate) fn planning_prompt(idea: &str, specs_dir: &str) -> String {
    let idea = if idea.trim().is_empty() {
        NO_IDEA
    } else {
        idea.trim()
    };
    format!(
        "Help me plan a piece of work that a coding agent will then carry out on its own, \
         in a loop, with no one to ask.

The idea: {idea}

1. Read what is in this directory where it helps, then ask me questions, a few at a \
time, until the goal, the scope, the constraints and how to check the result are clear. \
Propose answers when you can; I will correct them.
2. Write the spec to `{specs_dir}<short-name>.md`: the goal and why; the context (files, \
commands, conventions that matter); the requirements as a checklist; what is out of \
scope; and acceptance criteria a program can check (tests to pass, commands and what \
they must print).
3. Keep it to what the agent needs: no filler, no code it should write itself.

When the file is written, tell me its path and that `ralph run -P <path>` carries it out."
    )
}

pub(crate) fn run(args: &PlanArgs) -> Result<CommandOutcome, CliError> {
    let cwd = super::working_directory()?;
    let overrides = Overrides {
        backend: args.backend,
        ..Overrides::default()
    };
    let config = super::load_config(&cwd, args.config.clone(), overrides)?;
    let specs_dir = config.core.specs_dir.clone();
    let mut specs_shown = specs_dir.display().to_string();
    if !specs_shown.ends_with('/') {
        specs_shown.push('/');
    }
    let prompt = planning_prompt(&args.idea.join(" "), &specs_shown);

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    runtime.block_on(async {
        let agent = resolve_default(&config).await?;
        let command = interactive_command(&agent, &prompt).map_err(|source| CliError::Build {
            hat: "plan".to_owned(),
            source,
        })?;
        if args.dry_run {
            let line = shell_line(&command.program, &command.args);
            std::io::Write::write_all(&mut std::io::stdout(), format!("{line}\n").as_bytes())
                .map_err(CliError::write)?;
            return Ok(CommandOutcome::Success);
        }
        let specs = cwd.join(&specs_dir);
        std::fs::create_dir_all(&specs)
            .map_err(|e| CliError::io("create the specs directory", &specs, e))?;
        session(&command.program, &command.args, agent.kind.name()).await
    })
}

/// Runs the agent in the foreground until it exits. Ctrl-C belongs to the agent (it is
/// in the terminal's foreground group too): ralph catches it only so as not to die first.
async fn session(
    program: &OsString,
    args: &[OsString],
    name: &str,
) -> Result<CommandOutcome, CliError> {
    let _interrupt = signal(SignalKind::interrupt()).map_err(CliError::Runtime)?;
    let status = run_interactive(program, args).await?;
    match status {
        Some(ChildStatus::Code(0)) => Ok(CommandOutcome::Success),
        Some(ChildStatus::Code(code)) => {
            diagnostic(format_args!("{name} exited with code {code}"));
            Ok(CommandOutcome::Failed)
        }
        Some(ChildStatus::Signal(signal)) => {
            diagnostic(format_args!("{name} was killed by signal {signal}"));
            Ok(CommandOutcome::Failed)
        }
        None => {
            diagnostic(format_args!("{name} ended, but its exit status was lost"));
            Ok(CommandOutcome::Failed)
        }
    }
}
