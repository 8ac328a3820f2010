//! The commands, one module each.

mod completions;
mod doctor;
pub(crate) mod emit;
mod events;
mod init;
mod inspect;
mod plan;
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
        Command::Init(args) => init::run(&args),
        Command::Plan(args) => plan::run(&args),
        Command::Doctor(args) => doctor::run(&args),
        Command::Events(args) => events::run(&args),
        Command::Completions(args) => completions::run(&args),
    }
}
