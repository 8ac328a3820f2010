//! A prompt on stdin cannot reach an agent run on a terminal: with `pty: true` the
//! agent's stdin is the terminal itself, so there is no pipe to write the prompt to.
//! The command builder would fall back to passing it as an argument, which the agent
//! never asked for (one that reads stdin then waits on the terminal until its startup
//! deadline). The combination is refused here, where it can point at the keys.

use ralph_types::BackendKind;

use super::choice::{BackendChoice, PromptMode};
use super::error::{ConfigError, ConfigErrorKind};
use super::origin::Origin;
use super::raw::{RawCli, RawHat, RawHatBackend};

/// An error for `cli` and for each hat whose custom agent takes its prompt on stdin while
/// running on a terminal.
pub(crate) fn check(cli: &RawCli, hats: &[RawHat]) -> Vec<ConfigError> {
    let mut errors = Vec::new();
    // `cli.prompt_mode: stdin`, when it is what a custom agent running `cli`'s program uses.
    let cli_stdin = cli
        .prompt_mode
        .as_ref()
        .filter(|m| m.value == PromptMode::Stdin)
        .map(|m| &m.origin);
    let cli_is_custom =
        cli.backend.as_ref().map(|b| b.value) == Some(BackendChoice::Backend(BackendKind::Custom));
    let cli_pty = cli.pty.as_ref().filter(|p| p.value).map(|p| &p.origin);
    if cli_is_custom && let (Some(stdin_at), Some(pty_at)) = (cli_stdin, cli_pty) {
        errors.push(error(stdin_at, "cli.pty", pty_at));
    }
    // A hat that inherits `cli.pty` runs `cli`'s program, checked above: only a hat's own
    // `pty: true` adds a case.
    for hat in hats {
        let Some(pty_at) = hat.pty.as_ref().filter(|p| p.value).map(|p| &p.origin) else {
            continue;
        };
        let stdin_at = match hat.backend.as_ref().map(|b| &b.value) {
            None if cli_is_custom => cli_stdin,
            Some(RawHatBackend::Named(BackendKind::Custom)) => cli_stdin,
            Some(RawHatBackend::Command { prompt_mode, .. }) => prompt_mode
                .as_ref()
                .filter(|m| m.value == PromptMode::Stdin)
                .map(|m| &m.origin),
            _ => None,
        };
        if let Some(stdin_at) = stdin_at {
            errors.push(error(
                stdin_at,
                &format!("hats.{}.pty", hat.id.value),
                pty_at,
            ));
        }
    }
    errors
}

fn error(stdin_at: &Origin, pty_key: &str, pty_at: &Origin) -> ConfigError {
    ConfigError::new(
        stdin_at.clone(),
        ConfigErrorKind::StdinPromptOnPty {
            pty_key: pty_key.to_owned(),
            pty_at: pty_at.clone(),
        },
    )
}
