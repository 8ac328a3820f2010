//! `ralph completions <shell>`: the completion script clap generates from the command
//! line's definition, so it always matches the commands and flags.

use std::io::Write;

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::error::CliError;
use crate::exit::CommandOutcome;

pub(crate) fn run(args: &CompletionsArgs) -> Result<CommandOutcome, CliError> {
    // Generated into memory first: clap_complete panics when its writer fails, and a
    // closed stdout (`ralph completions bash | head`) must stay quiet.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "ralph", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script).map_err(CliError::write)?;
    out.flush().map_err(CliError::write)?;
    Ok(CommandOutcome::Success)
}

#[cfg(test)]
#[path = "completions_tests.rs"]
mod tests;
