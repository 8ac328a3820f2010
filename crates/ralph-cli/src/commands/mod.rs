//! The commands.

pub(crate) mod emit;
mod inspect;
mod run;

use crate::cli::Cli;
use crate::cli::Command;
use crate::error::CliError;
use crate::exit::Outcome;

pub(crate) fn run(cli: Cli) -> Result<Outcome, CliError> {
    match cli.command {
        Command::Inspect(args) => inspect::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Emit(args) => emit::run(&args),
    }
}
