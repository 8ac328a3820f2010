//! `ralph tools …`: the agent's working memory, one module a tool.

mod task;

use std::path::{Path, PathBuf};

use crate::cli_tools::{Tool, ToolsArgs};
use crate::error::CliError;
use crate::exit::CommandOutcome;

pub(crate) fn run(args: &ToolsArgs) -> Result<CommandOutcome, CliError> {
    match &args.tool {
        Tool::Task(args) => task::run(args),
    }
}

/// The workspace a tool works in: `--root`, else the loop's (`RALPH_WORKSPACE`, set for
/// agents, so a tool run from a subdirectory still finds the loop's files), else the
/// current directory.
pub(crate) fn workspace(root: Option<&Path>) -> Result<PathBuf, CliError> {
    if let Some(root) = root {
        return Ok(root.to_path_buf());
    }
    match std::env::var_os(ralph_types::env::WORKSPACE) {
        Some(dir) if !dir.is_empty() => Ok(PathBuf::from(dir)),
        _ => super::working_directory(),
    }
}
