//! The `ralph` command line: argument parsing, the commands, and the one place that
//! turns their outcome into an exit code.
//!
//! Stdout is a contract: machine-readable modes print only JSON lines there, every
//! diagnostic goes to stderr, and a closed stdout (`ralph … | head`) ends the command
//! quietly instead of panicking.

// The doc comments of `cli.rs` are the commands' `--help`, written for a terminal: shell
// snippets such as `${fpath[1]}` and paths such as `runs/<id>/` are not rustdoc markup.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

mod cli;
mod commands;
mod diagnostic;
mod error;
mod exit;
mod input;
mod output;
mod run;
mod shell_words;
mod view;

use std::process::ExitCode;

use clap::Parser as _;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // --help and --version are not errors.
            let outcome = if err.use_stderr() {
                exit::CommandOutcome::Failed
            } else {
                exit::CommandOutcome::Success
            };
            let _ = err.print();
            return exit::code(outcome);
        }
    };
    match commands::run(cli) {
        Ok(outcome) => exit::code(outcome),
        Err(error::CliError::BrokenPipe) => exit::code(exit::CommandOutcome::Success),
        Err(err) => {
            // Errors quote config bytes and paths: nothing in them may act on the terminal.
            eprintln!("ralph: {}", ralph_core::visible::visible(&err.to_string()));
            exit::code(exit::CommandOutcome::Failed)
        }
    }
}
