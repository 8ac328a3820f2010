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
mod cli_config_env;
mod cli_inspect;
mod cli_memory_type;
mod cli_runs;
mod cli_tips;
mod cli_tools;
mod cli_tools_memory;
mod cli_tools_skill;
mod cli_values;
mod commands;
mod diagnostic;
mod error;
mod exit;
mod input;
mod job_control;
mod migration_hints;
mod output;
mod run;
mod shell_words;
mod view;

use std::io::Write as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match cli_config_env::parse() {
        Ok(cli) => cli,
        Err(mut err) => {
            let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
            // A command line of ralph-orchestrator gets what to use here, not a guess.
            if !migration_hints::add_migration_hint(&mut err, &args) {
                suggest_subcommand(&mut err);
                cli_tips::add_run_tips(&mut err, &args);
                cli_tips::add_plan_tip(&mut err, &args);
            }
            // --help and --version are not errors.
            let outcome = if err.use_stderr() {
                exit::CommandOutcome::Failed
            } else {
                exit::CommandOutcome::Success
            };
            // clap's own print leaves the last line in stdout's buffer, whose error
            // nobody would see: flushed here, a `--help` or `--version` that could not be
            // written (a full disk) fails as any command's output does.
            let printed = err.print().and_then(|()| std::io::stdout().flush());
            if let Err(e) = printed
                && !err.use_stderr()
                && e.kind() != std::io::ErrorKind::BrokenPipe
            {
                diagnostic::diagnostic(format_args!("{}", error::CliError::Write(e)));
                return exit::code(exit::CommandOutcome::Failed);
            }
            if err.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
                && args.len() == 1
            {
                eprintln!("\n{}", migration_hints::BARE_RALPH_NOTE);
            }
            if err.use_stderr() && asks_for_json(args.into_iter()) {
                json_error(&err, outcome);
            }
            return exit::code(outcome);
        }
    };
    // A command that waits long for another process's lock on the task list or the
    // memories says so, instead of hanging without a word.
    ralph_core::file_lock::on_lock_wait(diagnostic::lock_wait);
    // Processes an agent, gate or hook left that not even SIGKILL stopped are named.
    ralph_agent::supervise::on_survivors(|survivors| {
        diagnostic::diagnostic(format_args!("{survivors}"));
    });
    let result = commands::run(cli);
    // The message of a Ctrl-C the run just ended on, which its own thread writes.
    run::signals::wait_said();
    // What the run's views still hold for a slow reader of stdout. Output the disk
    // refused was said when it happened; the run went on, but it must not exit 0.
    let unwritten = view::stdout_relay::finish();
    match result {
        Ok(outcome) if unwritten.is_some() => exit::code(outcome.output_lost()),
        Ok(outcome) => exit::code(outcome),
        Err(error::CliError::BrokenPipe) => exit::code(exit::CommandOutcome::Success),
        Err(err) => {
            // Errors quote config bytes and paths: nothing in them may act on the terminal.
            diagnostic::diagnostic(format_args!("{err}"));
            exit::code(err.outcome())
        }
    }
}

/// Whether a command line that clap refused asked for `--output json`: its reader then
/// gets the error as the one JSON line it promises, not an empty stdout.
fn asks_for_json(args: impl Iterator<Item = std::ffi::OsString>) -> bool {
    let args: Vec<std::ffi::OsString> = args.collect();
    args.iter().any(|a| a == "--output=json")
        || args
            .windows(2)
            .any(|w| w[0] == "--output" && w[1] == "json")
}

/// The `error` run event for a command line clap refused.
fn json_error(err: &clap::Error, outcome: exit::CommandOutcome) {
    use view::observer::Observer as _;
    let message = err.render().to_string();
    view::json::JsonObserver::stdout().observe(&ralph_core::run_event::RunEvent::Error {
        message: message.trim(),
        exit_code: exit::number(outcome),
    });
    // The command failed already: its exit code says so whether this line was written.
    let _unwritten = view::stdout_relay::finish();
}

/// The most edits a mistyped command may be from a real one to be suggested.
const MAX_SUGGESTION_EDITS: usize = 2;

/// Adds a "did you mean" to an unknown command that clap found nothing for (its
/// similarity threshold misses short slips such as `rn` for `run`), or replaces clap's
/// with the command fewest edits away (`ru` is one from `run`, two from `runs`).
fn suggest_subcommand(err: &mut clap::Error) {
    use clap::CommandFactory as _;
    use clap::error::{ContextKind, ContextValue, ErrorKind};

    if err.kind() != ErrorKind::InvalidSubcommand {
        return;
    }
    let Some(ContextValue::String(typed)) = err.get(ContextKind::InvalidSubcommand) else {
        return;
    };
    let typed = typed.clone();
    let command = cli::Cli::command();
    let best = command
        .get_subcommands()
        .map(|sub| {
            (
                strsim::damerau_levenshtein(&typed, sub.get_name()),
                sub.get_name(),
            )
        })
        .filter(|(edits, name)| *edits <= MAX_SUGGESTION_EDITS && *edits < name.len())
        .min();
    let clap_edits = match err.get(ContextKind::SuggestedSubcommand) {
        Some(ContextValue::String(name)) => Some(strsim::damerau_levenshtein(&typed, name)),
        Some(ContextValue::Strings(names)) => names
            .iter()
            .map(|name| strsim::damerau_levenshtein(&typed, name))
            .min(),
        _ => None,
    };
    if let Some((edits, name)) = best
        && clap_edits.is_none_or(|theirs| edits <= theirs)
    {
        err.insert(
            ContextKind::SuggestedSubcommand,
            ContextValue::Strings(vec![name.to_owned()]),
        );
    }
}
