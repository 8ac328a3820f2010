//! `ralph watch [RUN]`: the full-screen view of a run from another terminal. It follows
//! the run's `run-events.jsonl` as the loop writes it (the workspace's current run by
//! default), or browses a finished run the same way. It only reads: the loop never waits
//! for it, and any number of watchers may attach at once. `q` leaves; the loop goes on.

use std::ffi::OsString;
use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ralph_core::fsafe::{self, Links};
use ralph_core::store::{RALPH_DIR, RUN_EVENTS_FILE, RUNS_DIR, RalphDir, RunDir, check_name};
use ralph_stream::Frame;

use super::worktree::Repo;
use crate::cli::WatchArgs;
use crate::error::CliError;
use crate::exit::CommandOutcome;
use crate::view::term::status::FRAME_INTERVAL;
use crate::view::tui::app::Request;
use crate::view::tui::follow::{CHUNK, Follower};
use crate::view::tui::session::Session;
use crate::view::tui::terminal::{Screen, color_allowed};

pub(crate) fn run(args: &WatchArgs) -> Result<CommandOutcome, CliError> {
    let workspace = super::enclosing_workspace()?;
    let ralph_dir = RalphDir::in_workspace(&workspace);
    let (run_dir, links) = find(args.run.as_deref(), &workspace, &ralph_dir)?;
    let events = run_dir.join(RUN_EVENTS_FILE);
    let file = fsafe::open_read(&events, links).map_err(|e| CliError::io("open", &events, e))?;
    if !io::stdout().is_terminal() {
        return Err(CliError::NoTerminal {
            command: "ralph watch",
            instead: "in a pipe, read the run with `ralph events` or `ralph inspect --run`",
        });
    }
    let screen =
        Screen::enter().map_err(|e| CliError::io("take over the terminal for", &events, e))?;
    let color = args.color.for_stdout() && color_allowed();
    let mut session = Session::new(screen, false, color, Some(run_dir.clone()));
    let mut follower = Follower::new(file);
    let holder = holding_ralph_dir(&run_dir);
    let mut checked = Instant::now();
    loop {
        let read = follower
            .read(|frame| match frame {
                Frame::Line(line) => session.apply_json(line),
                Frame::Oversize(_) => session.skip_line(),
            })
            .map_err(|e| CliError::io("read", &events, e))?;
        // Caught up with a run that has not ended: is its loop still there to end it?
        if read < CHUNK
            && session.model.finished.is_none()
            && checked.elapsed() >= ALIVE_CHECK_INTERVAL
        {
            checked = Instant::now();
            if !loop_runs(holder.as_ref()) {
                session.model.abandoned(record_end_ms(&events));
            }
        }
        // Catching up: draw between chunks but do not wait for keys.
        let wait = if read == CHUNK {
            Duration::ZERO
        } else {
            FRAME_INTERVAL
        };
        match session.keys(wait) {
            Request::Quit | Request::Interrupt => break,
            Request::None | Request::Export | Request::Suspend => {}
        }
        if !session.on_screen() {
            break;
        }
        session.draw_if_due(Instant::now());
    }
    session.leave();
    Ok(CommandOutcome::Success)
}

/// When the record at `events` was last written, in Unix milliseconds: the last time its
/// loop, now gone, is known to have run.
fn record_end_ms(events: &Path) -> Option<u64> {
    let written = std::fs::metadata(events).ok()?.modified().ok()?;
    let since = written.duration_since(std::time::UNIX_EPOCH).ok()?;
    u64::try_from(since.as_millis()).ok()
}

/// How often `ralph watch`, caught up with a run that has not ended, asks whether its loop
/// still runs.
const ALIVE_CHECK_INTERVAL: Duration = Duration::from_secs(1);

/// The run directory `run` names (the workspace's current run without it), and whether
/// links on the way to it are followed.
fn find(
    run: Option<&str>,
    workspace: &Path,
    ralph_dir: &RalphDir,
) -> Result<(PathBuf, Links), CliError> {
    let Some(run) = run else {
        let current = ralph_dir
            .current_run()
            .map_err(|e| CliError::io("read the current run of", ralph_dir.path(), e))?
            .ok_or_else(|| {
                worktree_hint(workspace, ralph_dir)
                    .unwrap_or_else(|| CliError::NoRunForEvents(ralph_dir.path().to_path_buf()))
            })?;
        return Ok((current.path().to_path_buf(), Links::Refuse));
    };
    // A run directory named by its path is the user's to point anywhere, through links
    // too; one found under `.ralph/` is not (a planted FIFO there would hang the view).
    let given = PathBuf::from(run);
    if given.join(RUN_EVENTS_FILE).is_file() {
        return Ok((given, Links::Follow));
    }
    // A worktree loop's checkout, as `.ralph/worktrees/NAME` is easily typed for it: the
    // loop is watched by its name, which says where its current run is.
    if given.is_dir()
        && let Some(name) = worktree_at(workspace, &given)
    {
        return Err(CliError::WorktreeNotRun { path: given, name });
    }
    // An id, or `last`: found as `events --run` and `inspect --run` find it, so an unknown
    // one is said to be unknown, not a file that is missing. Then a worktree loop's name,
    // as `ralph runs` lists it.
    let found = match super::runs::find_run(ralph_dir, run) {
        Ok(found) => found,
        Err(unknown @ CliError::UnknownRun { .. }) => {
            let repo = Repo::find(workspace).ok().flatten();
            match repo.as_ref().and_then(|repo| worktree_run(repo, run)) {
                Some(found) => found,
                None if run == super::runs::LAST => {
                    return Err(worktree_hint(workspace, ralph_dir).unwrap_or(unknown));
                }
                None => return Err(unknown),
            }
        }
        Err(e) => return Err(e),
    };
    Ok((found.path().to_path_buf(), Links::Refuse))
}

/// The current (or last) run of the worktree loop `name` of `repo`, if there is such a
/// loop and it has a run. Anything the record cannot tell is no loop: the caller then
/// says the run is unknown.
fn worktree_run(repo: &Repo, name: &str) -> Option<RunDir> {
    check_name(name).ok()?;
    let record = repo.records.get(name).ok()??;
    RalphDir::in_workspace(&record.path).current_run().ok()?
}

/// The name of the worktree loop whose checkout `dir` is, if it is one of the repository
/// `workspace` is in.
fn worktree_at(workspace: &Path, dir: &Path) -> Option<String> {
    let dir = dir.canonicalize().ok()?;
    let repo = Repo::find(workspace).ok()??;
    let names = repo.records.names().ok()?;
    names.into_iter().find(|name| {
        let record = repo.records.get(name).ok().flatten();
        record.is_some_and(|r| r.path.canonicalize().is_ok_and(|p| p == dir))
    })
}

/// A checkout with no run of its own whose worktree loops have runs (a loop started with
/// `--worktree` from it): says so, naming one to watch. `None` when none has a run.
fn worktree_hint(workspace: &Path, ralph_dir: &RalphDir) -> Option<CliError> {
    let repo = Repo::find(workspace).ok()??;
    let names = repo.records.names().ok()?;
    let name = names
        .into_iter()
        .find(|name| worktree_run(&repo, name).is_some())?;
    Some(CliError::NoRunButWorktrees {
        dir: ralph_dir.path().to_path_buf(),
        name,
    })
}

/// The `.ralph/` that holds `run_dir` (`<workspace>/.ralph/runs/<id>`), whose lock says
/// whether a loop runs it, and the run's id. Not the working directory's `.ralph/`: a run
/// named by its path may be a worktree loop's or another workspace's. `None` for a
/// directory elsewhere (a copied run), which no loop writes.
fn holding_ralph_dir(run_dir: &Path) -> Option<(RalphDir, OsString)> {
    let run = run_dir.canonicalize().ok()?;
    let runs = run
        .parent()
        .filter(|d| d.file_name() == Some(RUNS_DIR.as_ref()))?;
    let ralph = runs
        .parent()
        .filter(|d| d.file_name() == Some(RALPH_DIR.as_ref()))?;
    Some((
        RalphDir::in_workspace(ralph.parent()?),
        run.file_name()?.to_owned(),
    ))
}

/// Whether a loop runs the run `holder` names (see [`holding_ralph_dir`]): its
/// workspace's loop lock is held and its current run is this one. What cannot be told
/// counts as running: the view never says a loop is gone that may not be.
fn loop_runs(holder: Option<&(RalphDir, OsString)>) -> bool {
    let Some((ralph_dir, id)) = holder else {
        return false;
    };
    if !ralph_dir.loop_running().unwrap_or(true) {
        return false;
    }
    match ralph_dir.current_run() {
        Ok(Some(current)) => current.path().file_name() == Some(id.as_os_str()),
        Ok(None) => false,
        Err(_) => true,
    }
}
