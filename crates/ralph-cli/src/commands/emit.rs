//! `ralph emit <topic> [payload] [--json]`: an agent publishes an event to its loop.
//!
//! The event goes to `$RALPH_EVENTS_FILE` (set by `ralph run` for the agent), else to
//! the inbox of the workspace's current run. One complete line, one write (see
//! `ralph_core::inbox`). A short confirmation goes to stdout, which the agent sees as
//! its tool's output.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use ralph_core::event::event_from_args;
use ralph_core::inbox;
use ralph_core::store::{RUNS_DIR, RalphDir, unix_ms};
use ralph_core::topic::misses_promise;

use crate::cli::EmitArgs;
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::exit::CommandOutcome;

pub(crate) fn run(args: &EmitArgs) -> Result<CommandOutcome, CliError> {
    // Said before the topic is checked: ` LOOP_COMPLETE` is refused for its space, and
    // the agent should learn what it meant to give as well as why it was refused.
    let missed = std::env::var(ralph_types::env::COMPLETION_PROMISE)
        .ok()
        .filter(|promise| misses_promise(&args.topic, promise));
    let event = match event_from_args(&args.topic, args.payload.as_deref(), args.json) {
        Ok(event) => event,
        Err(e) => {
            if let Some(promise) = &missed {
                diagnostic(format_args!(
                    "`{}` is not the completion promise `{promise}`: when the task is \
                     done, `ralph emit {promise}` ends the loop",
                    args.topic
                ));
            }
            return Err(e.into());
        }
    };
    let (path, dir) =
        match std::env::var_os(ralph_types::env::EVENTS_FILE).filter(|p| !p.is_empty()) {
            Some(path) => {
                let path = PathBuf::from(path);
                let dir = ralph_dir_of_inbox(&path);
                (path, dir)
            }
            None => {
                let cwd = super::enclosing_workspace()?;
                let dir = RalphDir::in_workspace(&cwd);
                let run = dir
                    .current_run()
                    .map_err(|e| CliError::io("read the current run of", dir.path(), e))?
                    .ok_or(CliError::NoRunForEmit)?;
                (run.inbox(), Some(dir))
            }
        };
    // An event for a loop that has ended would sit in a finished run's inbox, unread,
    // while the agent (or person) is told it was published.
    let mut running_loop = None;
    if let Some(dir) = dir {
        let running = dir
            .loop_running()
            .map_err(|e| CliError::io("check for a running loop in", dir.path(), e))?;
        if !running {
            return Err(CliError::NoLoopForEmit(dir.path().to_path_buf()));
        }
        running_loop = Some(dir);
    }
    let append = || inbox::append(&path, &event, unix_ms(SystemTime::now()));
    match append() {
        // The agent deleted the run's directory (`git clean -fdx`, `rm -rf .ralph`)
        // while its loop runs: the loop recreates it when the agent exits, and reads
        // the new inbox from its start, so the event is put there now rather than lost.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && running_loop.is_some() => {
            let run = running_loop
                .as_ref()
                .zip(path.parent().and_then(|p| p.file_name()?.to_str()))
                .and_then(|(dir, id)| dir.run_even_if_gone(id));
            match run {
                Some(run) => run
                    .ensure()
                    .and_then(|_| append())
                    .map_err(|e| CliError::io("append the event to", &path, e))?,
                None => return Err(CliError::io("append the event to", &path, e)),
            }
        }
        result => result.map_err(|e| CliError::io("append the event to", &path, e))?,
    }
    // The agent reads this as the tool's output; a closed stdout does not undo the event.
    let _ = std::io::Write::write_all(
        &mut std::io::stdout(),
        format!("event `{}` published\n", event.topic).as_bytes(),
    );
    // Topics are case-sensitive: `loop_complete` is an ordinary event, and the loop would
    // run on to its limit with nothing said. The agent sees this too, and can still
    // give the promise.
    if let Some(promise) = &missed {
        diagnostic(format_args!(
            "warning: `{}` is not the completion promise `{promise}` (topics are \
             case-sensitive): it was published as an ordinary event and the loop goes on; \
             when the task is done, `ralph emit {promise}` ends it",
            event.topic
        ));
    }
    Ok(CommandOutcome::Success)
}

/// The `.ralph/` directory an inbox belongs to, when it lies where `ralph run` puts one
/// (`.ralph/runs/<id>/<inbox>`); `None` for an inbox somewhere else, which is trusted as
/// given.
fn ralph_dir_of_inbox(inbox: &Path) -> Option<RalphDir> {
    let runs = inbox.parent()?.parent()?;
    let ralph = runs.parent()?;
    let workspace = ralph.parent()?;
    let dir = RalphDir::in_workspace(workspace);
    (runs.file_name()? == RUNS_DIR && dir.path() == ralph).then_some(dir)
}
