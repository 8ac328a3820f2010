//! The commands, one module each.

mod completions;
mod doctor;
pub(crate) mod emit;
mod enclosing;
mod events;
mod gates;
mod hooks;
mod init;
mod inspect;
mod inspect_capture;
mod inspect_transcript;
mod plan;
mod project_hints;
mod run;
pub(crate) mod runs;
mod runs_hats;
mod steer;
pub(crate) mod tools;
mod watch;
pub(crate) mod worktree;

use std::path::Path;
use std::path::PathBuf;

use ralph_core::config::HatsSource;
use ralph_core::config::LoadOptions;
use ralph_core::config::Overrides;
use ralph_core::config::ResolvedConfig;

use crate::cli::Cli;
use crate::cli::Command;
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::exit::CommandOutcome;

pub(crate) fn run(cli: Cli) -> Result<CommandOutcome, CliError> {
    match cli.command {
        Command::Inspect(args) => inspect::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Emit(args) => emit::run(&args),
        Command::Init(args) => init::run(&args),
        Command::Plan(args) => plan::run(&args),
        Command::Doctor(args) => doctor::run(&args),
        Command::Events(args) => events::run(&args),
        Command::Runs(args) => runs::run(&args),
        Command::Gates(args) => gates::run(&args),
        Command::Tools(args) => tools::run(args),
        Command::Completions(args) => completions::run(&args),
        Command::Hooks(args) => hooks::run(&args),
        Command::Watch(args) => watch::run(&args),
        Command::Steer(args) => steer::run(&args),
    }
}

/// The directory ralph was started in.
/// The single-threaded runtime a command's async work runs on.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)
}

pub(crate) fn working_directory() -> Result<PathBuf, CliError> {
    std::env::current_dir().map_err(|e| CliError::io("find the working directory", ".", e))
}

/// The workspace of a command an agent (or a person) runs inside one: `$RALPH_WORKSPACE`
/// (set for agents), else the one a `.ralph/` marks from here up (a stray `.ralph/` in a
/// subdirectory passed over, and named on stderr: see [`enclosing`]), else here. An agent
/// in `src/deep` means the loop's workspace, not a new store of its own there.
///
/// The search stops at the top of a git checkout: a worktree loop's checkout lies
/// inside the main one's `.ralph/worktrees/`, and a command there that found no
/// `.ralph/` of its own yet must not reach the main checkout's runs and gates.
pub(crate) fn enclosing_workspace() -> Result<PathBuf, CliError> {
    if let Some(dir) = std::env::var_os(ralph_types::env::WORKSPACE).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let found = enclosing::find(&working_directory()?);
    if let Some(note) = found.note() {
        diagnostic(format_args!("{note}"));
    }
    Ok(found.workspace)
}

/// The prompt file a run reads when no task is given: `PROMPT.md` beside the project's
/// config (`config_file`, as given to `-c`, else `ralph.yml` here), as `config::load`
/// looks for it; shown as the config was given.
pub(crate) fn default_prompt_file(config_file: Option<&Path>) -> PathBuf {
    let dir = config_file.and_then(Path::parent).unwrap_or(Path::new(""));
    dir.join(ralph_core::config::DEFAULT_PROMPT_FILE)
}

/// The configuration of a workspace (user file, `ralph.yml` or `-c FILE`, then the
/// command line), its warnings said on stderr.
pub(crate) fn load_config(
    workspace: &Path,
    config_file: Option<PathBuf>,
    overrides: Overrides,
) -> Result<ResolvedConfig, CliError> {
    load_config_with_hats(workspace, config_file, overrides, None)
}

/// [`load_config`] with the hats of `-H` over the files' own.
pub(crate) fn load_config_with_hats(
    workspace: &Path,
    config_file: Option<PathBuf>,
    overrides: Overrides,
    hats: Option<HatsSource>,
) -> Result<ResolvedConfig, CliError> {
    let options = LoadOptions::from_env(workspace.to_path_buf(), config_file, overrides);
    let resolved = ralph_core::config::load(&options.with_hats(hats)).map_err(|e| {
        if let Some(note) = crate::cli_config_env::source_note() {
            diagnostic(format_args!("{note}"));
        }
        CliError::Config(e)
    })?;
    for warning in &resolved.warnings {
        diagnostic(format_args!("warning: {warning}"));
    }
    Ok(resolved.config)
}
