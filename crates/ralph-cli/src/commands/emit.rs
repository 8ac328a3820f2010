//! `ralph emit <topic> [payload] [--json]`: an agent publishes an event to its loop.
//!
//! The event goes to `$RALPH_EVENTS_FILE` (set by `ralph run` for the agent), else to
//! the inbox of the workspace's current run; only ever to the inbox of the workspace's
//! current run, and only while a loop runs there that will still read it (not one that
//! is finishing, see `ralph_core::store::InboxListener`), checked and appended under the
//! inbox's lock, which the loop takes to read its inbox for the last time and close it:
//! an event is either read by the loop or refused. One complete line, one write (see
//! `ralph_core::inbox`), naming its sender (`$RALPH_AGENT_RUN`, when set). A short confirmation goes to stdout, which the agent sees as
//! its tool's output.

use std::path::{Component, Path};
use std::time::{Duration, Instant, SystemTime};

use ralph_agent::supervise::identity_of;
use ralph_core::event::event_from_args;
use ralph_core::file_lock::FileLock;
use ralph_core::inbox;
use ralph_core::store::{
    INBOX_FILE, InboxListener, RALPH_DIR, RUNS_DIR, RalphDir, RunDir, unix_ms,
};
use ralph_core::topic::misses_promise;

use crate::cli::EmitArgs;
use crate::diagnostic::diagnostic;
use crate::error::{CliError, EventsFileMismatch};
use crate::exit::CommandOutcome;

/// How long emit waits for a starting loop to name its run: a new `ralph run` takes the
/// workspace lock, then checks its agents (each one's `--version`, seconds on a cold
/// cache) before it names its run.
const STARTING_LOOP_WAIT: Duration = Duration::from_secs(10);
/// How often emit looks for the starting loop's run meanwhile.
const STARTING_LOOP_POLL: Duration = Duration::from_millis(50);

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
    let workspace = super::enclosing_workspace()?;
    let dir = RalphDir::in_workspace(&workspace);
    let (run, lock) = listening_run(&workspace, &dir)?;
    let path = run.inbox();
    // Who is publishing: the loop credits the event to the running hat only when it comes
    // from the agent process it started (whose token this is, inherited by everything the
    // agent runs); a person, a gate, a hook or a script emits from outside.
    let sender = std::env::var(ralph_types::env::AGENT_RUN)
        .ok()
        .filter(|token| !token.is_empty());
    let append = || inbox::append(&path, &event, unix_ms(SystemTime::now()), sender.as_deref());
    match append() {
        // The agent deleted the run's directory (`git clean -fdx`, `rm -rf .ralph`)
        // while its loop runs: the loop recreates it when the agent exits, and reads
        // the new inbox from its start, so the event is put there now rather than lost.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            run.ensure()
                .and_then(|_| append())
                .map_err(|e| CliError::io("append the event to", &path, e))?
        }
        result => result.map_err(|e| CliError::io("append the event to", &path, e))?,
    }
    drop(lock);
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

/// The run whose inbox the loop running in the workspace reads: the one
/// `$RALPH_EVENTS_FILE` names, else the current run, with its inbox's lock, held until
/// the event is appended (the loop closing the inbox waits for it, and reads the event).
/// An event for a loop that has read its inbox for the last time (it ended, or is
/// finishing) would sit there unread while the agent (or person) is told it was
/// published: refused. A loop that is starting has taken the workspace lock but not yet
/// named its run (it checks its agents first): the run is looked up again until it has,
/// so the event goes to the new run rather than the last.
fn listening_run(workspace: &Path, dir: &RalphDir) -> Result<(RunDir, FileLock), CliError> {
    let asked = Instant::now();
    let mut recreated = false;
    loop {
        let run = match std::env::var_os(ralph_types::env::EVENTS_FILE).filter(|p| !p.is_empty()) {
            Some(given) => given_run(Path::new(&given), workspace, dir)?,
            None => dir
                .current_run()
                .map_err(|e| CliError::io("read the current run of", dir.path(), e))?
                .ok_or(CliError::NoRunForEmit)?,
        };
        let listener = listener_of(dir, &run)?;
        let listener = if listener == InboxListener::Loop {
            let lock = match run.lock_inbox() {
                Ok(lock) => lock,
                // The agent deleted the run's directory (`git clean -fdx`, `rm -rf
                // .ralph`) while its loop runs: the loop recreates it when the agent
                // exits and reads the new inbox from its start, so it is recreated now
                // and the loop asked about again.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && !recreated => {
                    recreated = true;
                    run.ensure()
                        .map_err(|e| CliError::io("recreate the run directory", run.path(), e))?;
                    continue;
                }
                Err(e) => return Err(CliError::io("lock", run.inbox_lock_path(), e)),
            };
            // Asked again under the lock: the loop may have closed its inbox meanwhile.
            match listener_of(dir, &run)? {
                InboxListener::Loop => return Ok((run, lock)),
                other => other,
            }
        } else {
            listener
        };
        match listener {
            InboxListener::NoLoop => return Err(CliError::NoLoopForEmit(dir.path().to_path_buf())),
            InboxListener::Finishing => {
                return Err(CliError::LoopFinishingForEmit(dir.path().to_path_buf()));
            }
            InboxListener::Starting if asked.elapsed() >= STARTING_LOOP_WAIT => {
                return Err(CliError::LoopStartingForEmit(
                    dir.path().to_path_buf(),
                    STARTING_LOOP_WAIT.as_secs(),
                ));
            }
            // (A listening loop, once the lock was taken, is the one that returned above.)
            InboxListener::Starting | InboxListener::Loop => std::thread::sleep(STARTING_LOOP_POLL),
        }
    }
}

/// Who will read `run`'s inbox, now. A process's start time tells the ralph that
/// closed the inbox from a new one that got its pid.
fn listener_of(dir: &RalphDir, run: &RunDir) -> Result<InboxListener, CliError> {
    let started_at = |pid: u32| Some(identity_of(i32::try_from(pid).ok()?)?.start_ticks);
    dir.inbox_listener(run, started_at)
        .map_err(|e| CliError::io("check for a running loop in", dir.path(), e))
}

/// The run whose inbox `$RALPH_EVENTS_FILE` names, when it is the events file of a run of this
/// workspace (`<workspace>/.ralph/runs/<id>/inbox.jsonl`) and, if the workspace names a
/// current run, of that one. The variable is anyone's to set (a cloned repository's
/// tooling, an agent), so any other file is refused: `ralph emit` would otherwise append
/// to whatever it names. The run's path is built from the workspace, not taken from the
/// variable.
fn given_run(given: &Path, workspace: &Path, dir: &RalphDir) -> Result<RunDir, CliError> {
    let refused = |why: EventsFileMismatch| CliError::EventsFileElsewhere {
        given: given.to_path_buf(),
        ralph_dir: dir.path().to_path_buf(),
        why,
    };
    if given.is_relative() {
        return Err(refused(EventsFileMismatch::Relative));
    }
    let given_abs = std::path::absolute(given).map_err(|e| CliError::io("resolve", given, e))?;
    let (given_workspace, id) =
        inbox_parts(&given_abs).ok_or(refused(EventsFileMismatch::NotAnInbox))?;
    if !same_dir(given_workspace, workspace) {
        return Err(refused(EventsFileMismatch::OtherWorkspace));
    }
    let run = dir
        .run_even_if_gone(id)
        .ok_or(refused(EventsFileMismatch::NotAnInbox))?;
    // The marker may be gone with `.ralph/` (an agent's `git clean`): the running loop
    // recreates both, and the event is kept for it (see `run`).
    let current = dir
        .current_run()
        .map_err(|e| CliError::io("read the current run of", dir.path(), e))?;
    if let Some(current) = current
        && current.id() != run.id()
    {
        return Err(refused(EventsFileMismatch::OldRun {
            current: current.id().to_owned(),
        }));
    }
    Ok(run)
}

/// The workspace and run id of `path` when it has the shape of a run's inbox,
/// `<workspace>/.ralph/runs/<id>/inbox.jsonl` (read as written: a `..` among the last
/// four parts is no run's inbox).
fn inbox_parts(path: &Path) -> Option<(&Path, &str)> {
    let name = |p: &Path| match p.components().next_back() {
        Some(Component::Normal(name)) => Some(name.to_owned()),
        _ => None,
    };
    let run = path.parent()?;
    let runs = run.parent()?;
    let ralph = runs.parent()?;
    let workspace = ralph.parent()?;
    let shaped = name(path)? == INBOX_FILE && name(runs)? == RUNS_DIR && name(ralph)? == RALPH_DIR;
    let id = match run.components().next_back() {
        Some(Component::Normal(id)) => id.to_str()?,
        _ => return None,
    };
    shaped.then_some((workspace, id))
}

/// Whether `a` and `b` are the same directory: the same path, or the same inode (one
/// reached through a link, or with `..` in it).
fn same_dir(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if a == b {
        return true;
    }
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.is_dir() && (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

#[cfg(test)]
#[path = "emit_tests.rs"]
mod tests;
