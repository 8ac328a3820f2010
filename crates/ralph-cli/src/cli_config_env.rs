//! `$RALPH_CONFIG`: the config file of every command that takes `-c/--config`, when `-c`
//! is not given, as ralph-orchestrator reads it (docs/cli.md).
//!
//! clap reads the variable itself (`env` on each `-c`), which also shows it in `--help`.
//! What clap does not do is treat an empty value as unset: it would hand `-c` an empty
//! path, or refuse the command line. A CI job that clears the variable with
//! `RALPH_CONFIG=` means "no config file of mine", so the command is parsed without the
//! variable then.

use std::ffi::OsStr;

use clap::{Command, CommandFactory as _, FromArgMatches as _};

use crate::cli::Cli;

/// Parses the command line, reading `$RALPH_CONFIG` for a `-c` not given unless it is
/// empty.
pub(crate) fn parse() -> Result<Cli, clap::Error> {
    let value = std::env::var_os(ralph_types::env::CONFIG);
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = parse_from(value.as_deref(), &args)?;
    let _ = FROM_ENV.set(from_env(value.as_deref(), &args));
    Ok(cli)
}

/// Parses `args` (program first) with `value` as `$RALPH_CONFIG`.
pub(crate) fn parse_from(
    value: Option<&OsStr>,
    args: &[std::ffi::OsString],
) -> Result<Cli, clap::Error> {
    let mut command = command(value);
    let parsed = command.try_get_matches_from_mut(args);
    let matches = crate::migration_hints::refuse_flags_taken_as_values(&mut command, parsed, args)?;
    crate::migration_hints::refuse_words_after_dashes(&mut command, &matches, args)?;
    Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut command))
}

/// Whether the command's config file came from `$RALPH_CONFIG` (set once the command
/// line is parsed).
static FROM_ENV: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// Whether the command line's `-c` came from the variable: it is set (not empty) and no
/// `-c`/`--config` was typed. Read from the words, not from clap's matches, whose value
/// source of a global argument seen from a subcommand is not to be asked for.
fn from_env(value: Option<&OsStr>, args: &[std::ffi::OsString]) -> bool {
    let typed = args.iter().skip(1).any(|arg| {
        let arg = arg.to_string_lossy();
        arg == "--config"
            || arg.starts_with("--config=")
            || (arg.starts_with("-c") && !arg.starts_with("--"))
    });
    value.is_some_and(|v| !v.is_empty()) && !typed
}

/// When the config file a command could not use was named by `$RALPH_CONFIG`, not by
/// `-c`: a line saying so, for after the error (a stale export from another project is
/// otherwise a riddle).
pub(crate) fn source_note() -> Option<String> {
    FROM_ENV.get().copied().unwrap_or(false).then(|| {
        format!(
            "the config file was named by ${} (unset it, or pass -c FILE)",
            ralph_types::env::CONFIG
        )
    })
}

/// The command line's definition, without `$RALPH_CONFIG` when its `value` is empty.
pub(crate) fn command(value: Option<&OsStr>) -> Command {
    let command = Cli::command();
    if value.is_some_and(OsStr::is_empty) {
        without_config_env(command)
    } else {
        command
    }
}

/// `command` and its subcommands, at every depth, with no argument read from
/// `$RALPH_CONFIG`.
fn without_config_env(command: Command) -> Command {
    let names: Vec<String> = command
        .get_subcommands()
        .map(|sub| sub.get_name().to_owned())
        .collect();
    let mut command = command.mut_args(|arg| {
        if arg.get_env() == Some(OsStr::new(ralph_types::env::CONFIG)) {
            arg.env(None::<&str>)
        } else {
            arg
        }
    });
    for name in names {
        command = command.mut_subcommand(name, without_config_env);
    }
    command
}

#[cfg(test)]
#[path = "cli_config_env_tests.rs"]
mod tests;
