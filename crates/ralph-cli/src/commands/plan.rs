//! `ralph plan [IDEA]`: a planning session with the agent, in its own interactive mode,
//! that ends with a spec under `core.specs_dir` for `ralph run -P` to carry out.
//!
//! The agent takes over the terminal (stdin, stdout, stderr inherited; it stays in
//! ralph's process group, so Ctrl-C reaches it and ralph only waits). ralph's part is the
//! choice of agent (the config's, `auto` detected), the prompt and the command line.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use ralph_agent::supervise::{ChildStatus, run_interactive};
use ralph_core::config::Overrides;
use ralph_core::fsafe;
use ralph_core::visible::visible;
use tokio::signal::unix::{SignalKind, signal};

use crate::cli::PlanArgs;
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::exit::CommandOutcome;
use crate::run::backends::{interactive_command, resolve_default};
use crate::shell_words::{config_flag, quote, shell_line};

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
    for hint in super::project_hints::project_file_hints(&cwd, args.config.as_deref()) {
        diagnostic(format_args!("warning: {hint}"));
    }
    let config = super::load_config(&cwd, args.config.clone(), overrides)?;
    let specs_dir = config.core.specs_dir.clone();
    let mut specs_shown = specs_dir.display().to_string();
    if !specs_shown.ends_with('/') {
        specs_shown.push('/');
    }
    let prompt = planning_prompt(&args.idea.join(" "), &specs_shown);

    let runtime = super::runtime()?;
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
        // Under `.ralph/` (the default) no level may be a link or a file: checked, named
        // as any refusal there is, before anything is made. The agent does not run yet.
        fsafe::check_ralph_dirs(&specs.join("spec.md"))
            .and_then(|()| std::fs::create_dir_all(&specs))
            .map_err(|e| match e.kind() {
                // A file where a directory should be: say which, not "File exists".
                std::io::ErrorKind::AlreadyExists => fsafe::check_dir(&specs).err().unwrap_or(e),
                _ => e,
            })
            .map_err(|e| CliError::io("create the specs directory", &specs, e))?;
        let before = spec_files(&specs);
        let outcome = session(&command.program, &command.args, agent.kind.name()).await?;
        // The agent's screen is gone: say what came of the session, and what to run.
        let written: Vec<PathBuf> = spec_files(&specs)
            .into_iter()
            .filter(|(path, modified)| before.get(path) != Some(modified))
            .map(|(path, _)| path)
            .collect();
        let with_config = config_flag(args.config.as_deref());
        let prompt = super::default_prompt_file(args.config.as_deref());
        let message = match written.as_slice() {
            [] => format!(
                "no spec was written in {specs_shown}; run `ralph plan{with_config}` again, or \
                 write the task in {} and `ralph run{with_config}`",
                prompt.display()
            ),
            [spec] => {
                let shown = specs_dir.join(spec).display().to_string();
                let quoted = quote(&shown);
                format!("spec written: {shown}; next: `ralph run{with_config} -P {quoted}`")
            }
            several => format!(
                "specs written: {}; next: `ralph run{with_config} -P <spec>` for each",
                several
                    .iter()
                    .map(|s| specs_dir.join(s).display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        std::io::Write::write_all(
            &mut std::io::stdout(),
            format!("{}\n", visible(&message)).as_bytes(),
        )
        .map_err(CliError::write)?;
        Ok(outcome)
    })
}

/// Most entries of the specs directory looked at: it is the workspace's, and could hold
/// anything.
const MAX_SPEC_ENTRIES: usize = 10_000;

/// The Markdown files directly in `dir` (regular files, not links) with their
/// modification times, by name relative to `dir`.
fn spec_files(dir: &Path) -> HashMap<PathBuf, SystemTime> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return HashMap::new();
    };
    entries
        .take(MAX_SPEC_ENTRIES)
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let meta = entry.metadata().ok()?;
            let name = PathBuf::from(entry.file_name());
            let markdown = name.extension().is_some_and(|e| e == "md");
            (meta.is_file() && markdown).then(|| Some((name, meta.modified().ok()?)))?
        })
        .collect()
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
