//! The commands.

mod inspect;

use crate::cli::Cli;
use crate::cli::Command;
use crate::error::CliError;
use crate::exit::Outcome;

pub(crate) fn run(cli: Cli) -> Result<Outcome, CliError> {
    match cli.command {
        Command::Inspect(args) => inspect::run(&args),
    }
}
