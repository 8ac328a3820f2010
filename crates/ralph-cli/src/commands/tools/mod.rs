//! `ralph tools …`: the commands an agent calls to keep the loop's working memory
//! (`task`, `memory`, `skill`). The logic lives in ralph-core (`memory`, `skills`); these
//! modules find the workspace, do the I/O and print.

mod memory;
mod skill;
mod task;

use std::io::{BufWriter, StdoutLock, Write};
use std::path::{Path, PathBuf};

use crate::cli_tools::{Tool, ToolOptions, ToolsArgs};
use crate::error::CliError;
use crate::exit::CommandOutcome;

pub(crate) fn run(args: ToolsArgs) -> Result<CommandOutcome, CliError> {
    match args.tool {
        Tool::Task(args) => task::run(&args),
        Tool::Memory(args) => memory::run(args),
        Tool::Skill(args) => skill::run(args),
    }
}

/// The workspace a tool acts on: `--root`, else `$RALPH_WORKSPACE` (set by `ralph run`
/// for its agents), else the nearest directory from here up with a `.ralph/` (as
/// ralph-orchestrator's tools find theirs), else the current directory.
pub(crate) fn workspace(options: &ToolOptions) -> Result<PathBuf, CliError> {
    workspace_of(options.root.as_deref())
}

/// [`workspace`] for a command that takes `--root` alone.
pub(crate) fn workspace_of(root: Option<&Path>) -> Result<PathBuf, CliError> {
    if let Some(root) = root {
        return Ok(root.to_path_buf());
    }
    super::enclosing_workspace()
}

/// Buffered stdout; a closed pipe surfaces as [`CliError::BrokenPipe`].
pub(crate) struct Out(BufWriter<StdoutLock<'static>>);

impl Out {
    pub(crate) fn stdout() -> Out {
        Out(BufWriter::new(std::io::stdout().lock()))
    }

    pub(crate) fn text(&mut self, text: &str) -> Result<(), CliError> {
        self.0.write_all(text.as_bytes()).map_err(CliError::write)
    }

    pub(crate) fn json<T: serde::Serialize + ?Sized>(&mut self, value: &T) -> Result<(), CliError> {
        serde_json::to_writer_pretty(&mut self.0, value).map_err(|e| CliError::write(e.into()))?;
        self.text("\n")
    }

    pub(crate) fn finish(mut self) -> Result<CommandOutcome, CliError> {
        self.0.flush().map_err(CliError::write)?;
        Ok(CommandOutcome::Success)
    }
}

/// Why a tool command failed; each message says what to do.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ToolError {
    #[error(
        "no memory `{id}` in `{}`: `ralph tools memory list` shows the ids",
        .path.display()
    )]
    MemoryNotFound { id: String, path: PathBuf },
    #[error(
        "the memory has no text: give it as the first argument, such as `ralph tools memory \
         add \"pi exits 0 on failure: check its last event\" -t fix`"
    )]
    EmptyMemory,
    #[error(
        "the tag `{}` holds a character the memories file cannot keep in a tag (`|`, `<`, \
         `>`, `-->`, a line break or another control character); use letters, digits, `-`, \
         `_` or `.`",
        ralph_core::visible::visible_line(.0)
    )]
    BadTag(String),
    #[error(
        "`{}` already exists; keep it, or pass --force to replace it with an empty file \
         (its memories are lost)",
        .0.display()
    )]
    MemoriesExist(PathBuf),
    #[error("{0}")]
    UnknownSkill(String),
}

/// How wide a table's column is: its widest cell, or its header when that is wider
/// (in characters, which is what the tables pad by).
pub(super) fn column_width<S: AsRef<str>>(cells: &[S], header: &str) -> usize {
    cells
        .iter()
        .map(|cell| cell.as_ref().chars().count())
        .fold(header.chars().count(), usize::max)
}
