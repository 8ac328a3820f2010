//! `ralph emit <topic> [payload] [--json]`: an agent publishes an event to its loop.
//!
//! The event goes to `$RALPH_EVENTS_FILE` (set by `ralph run` for the agent), else to
//! the inbox of the workspace's current run. One complete line, one write (see
//! `ralph_core::inbox`). A short confirmation goes to stdout, which the agent sees as
//! its tool's output.

use std::path::PathBuf;
use std::time::SystemTime;

use ralph_core::event::event_from_args;
use ralph_core::inbox;
use ralph_core::store::{RalphDir, unix_ms};

use crate::cli::EmitArgs;
use crate::error::CliError;
use crate::exit::CommandOutcome;

pub(crate) fn run(args: &EmitArgs) -> Result<CommandOutcome, CliError> {
    let event = event_from_args(&args.topic, args.payload.as_deref(), args.json)?;
    let path = match std::env::var_os(ralph_types::env::EVENTS_FILE).filter(|p| !p.is_empty()) {
        Some(path) => PathBuf::from(path),
        None => {
            let cwd = super::working_directory()?;
            let dir = RalphDir::in_workspace(&cwd);
            let run = dir
                .current_run()
                .map_err(|e| CliError::io("read the current run of", dir.path(), e))?
                .ok_or(CliError::NoRunForEmit)?;
            run.inbox()
        }
    };
    inbox::append(&path, &event, unix_ms(SystemTime::now()))
        .map_err(|e| CliError::io("append the event to", &path, e))?;
    // The agent reads this as the tool's output; a closed stdout does not undo the event.
    let _ = std::io::Write::write_all(
        &mut std::io::stdout(),
        format!("event `{}` published\n", event.topic).as_bytes(),
    );
    Ok(CommandOutcome::Success)
}
