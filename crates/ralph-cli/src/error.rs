//! Errors the commands report to the user.

use std::io;
use std::path::PathBuf;

/// A command failed. Each message says what failed, where, and what to do about it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// Stdout was closed by its reader (`ralph … | head`): not worth a message.
    #[error("stdout was closed")]
    BrokenPipe,
    #[error("cannot read `{path}`: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("cannot write to stdout: {0}")]
    Write(io::Error),
    #[error(
        "`{input}` is not an agent stream: none of its {lines} lines is an event of pi, Claude Code, Codex, Gemini CLI, OpenCode or Copilot (pick the agent with --agent if it was cut before its first events)"
    )]
    NotAStream { input: String, lines: u64 },
    #[error(
        "`{input}` does not look like a {agent} stream: none of its {lines} lines is a {agent} event"
    )]
    NotThatStream {
        input: String,
        agent: &'static str,
        lines: u64,
    },
}

impl CliError {
    /// Wraps a stdout write error, recognising a closed pipe.
    pub(crate) fn write(err: io::Error) -> CliError {
        if err.kind() == io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::Write(err)
        }
    }
}
