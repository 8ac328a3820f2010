//! The workspace locks of a worktree, held by a command that changes the worktree under
//! any loop there: `ralph runs rm` (which deletes it) and `ralph runs land` (which
//! rebases its branch). Taken as a loop takes them, they refuse the command while a loop
//! runs there, and keep any loop from starting there (`ralph run --continue` typed in
//! the worktree) until the command is done.
//!
//! A loop's workspace is the directory it was started in: a subdirectory of the
//! worktree (with its own ralph.yml, say) holds a loop of its own, with its own
//! `.ralph/loop.lock`. Each of those is held too ([`hold_all`]): deleting or rebasing
//! the worktree changes the files under that loop as much as under the worktree's own.
//! A loop found starting in one of those at the same moment is given a moment to see
//! the command and give way ([`STARTING_LOOP_RETRIES`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use ralph_core::store::{GIT_ENTRY, HeldBy, LockError, RALPH_DIR, RalphDir, RemovalLock};

use crate::error::CliError;
use crate::run::leftovers::{self, Record};

/// How often the lock of a directory below the worktree's top that a loop holds is tried
/// again, [`STARTING_LOOP_WAIT`] apart (each try waits a moment of its own too), before
/// the loop counts as running. A loop starting there takes its own lock, then looks at
/// the top's, which the command took first: seeing it, the loop gives up at once. Under
/// load its look can come later than the lock's own short retries, and the two refused
/// each other (the loop rightly, the command for no lasting reason). A loop at the top
/// takes the same lock the command does, first come first served: no retry there.
const STARTING_LOOP_RETRIES: u32 = 5;
const STARTING_LOOP_WAIT: Duration = Duration::from_millis(100);

/// A workspace under a worktree where a loop runs, or that another worktree command
/// holds.
pub(super) struct Busy {
    /// The workspace (the worktree itself, or a directory in it).
    pub(super) workspace: PathBuf,
    /// What holds it: a loop, or `ralph runs land` or `rm` at work there.
    pub(super) by: HeldBy,
    /// Its pid, when it runs on this host.
    pid: Option<u32>,
}

impl Busy {
    /// Whose loop runs, as a refusal names it: `own` (the checkout at `tree`'s own loop)
    /// when it runs in the checkout's top, else the loop in the directory.
    fn whose(&self, tree: &Path, own: &str) -> String {
        match self.workspace == tree {
            true => own.to_owned(),
            false => format!("the loop in `{}`", self.workspace.display()),
        }
    }

    /// Why the command is refused: `own` (the checkout at `tree`'s own loop, as
    /// [`Busy::whose`] names it) is running, with its pid and how to stop it; or the other
    /// worktree command at work on it, to be waited for.
    pub(super) fn refusal(&self, tree: &Path, own: &str) -> String {
        let pid = self.pid.map(|p| format!(" (pid {p})")).unwrap_or_default();
        match self.by.command() {
            None => format!(
                "{} is running{pid}: stop it first{}",
                self.whose(tree, own),
                self.pid
                    .map(|p| format!(" (`kill -INT {p}`)"))
                    .unwrap_or_default()
            ),
            Some(command) => format!(
                "`{command}`{pid} {} `{}`: wait for it to finish",
                self.by.doing(),
                self.workspace.display()
            ),
        }
    }
}

/// The workspace lock of the workspace at `tree` (which may be gone), held for `by`
/// until it is dropped; when something else holds it, what and its pid.
fn hold(tree: &Path, by: HeldBy) -> Result<Option<RemovalLock>, (HeldBy, Option<u32>)> {
    if !tree.is_dir() {
        return Ok(None);
    }
    match RalphDir::in_workspace(tree).lock_for_removal(by) {
        Ok(lock) => Ok(Some(lock)),
        // Held by this command already: the same workspace reached twice (a nested
        // worktree git forgot, found both as a directory and by its record).
        Err(LockError::Held {
            pid: Some(pid),
            host: None,
            ..
        }) if pid == std::process::id() => Ok(None),
        Err(LockError::Held { pid, host, by, .. }) => Err((by, pid.filter(|_| host.is_none()))),
        // A lock that cannot be taken for another reason (a link planted at its name)
        // guards nothing: the command goes on, as it would without a lock file.
        Err(LockError::Io { .. }) => Ok(None),
    }
}

/// A workspace whose lock a worktree command holds, until it is dropped.
pub(super) struct Held {
    pub(super) workspace: PathBuf,
    _lock: RemovalLock,
}

/// The workspace locks of the checkout at `tree`: its own, then those of the
/// directories in it where a loop ran (each with a `.ralph/` of its own), held for `by`
/// until dropped; the first workspace where a loop runs (or that another worktree
/// command holds) refuses.
pub(super) fn hold_all(tree: &Path, by: HeldBy) -> Result<Vec<Held>, Busy> {
    hold_all_but(tree, by, None)
}

/// [`hold_all`], but for the workspace `own` (when it is one of them), which is left as
/// it is: the loop the command was typed in (by its agent) holds it.
pub(super) fn hold_all_but(tree: &Path, by: HeldBy, own: Option<&Path>) -> Result<Vec<Held>, Busy> {
    hold_all_waiting(tree, own, &mut |workspace| hold(workspace, by), &mut || {
        std::thread::sleep(STARTING_LOOP_WAIT);
    })
}

/// The result of [`hold`]: the lock held, or what holds it and its pid.
type Holding = Result<Option<RemovalLock>, (HeldBy, Option<u32>)>;

/// [`hold_all_but`], holding each workspace with `hold`, and calling `wait` before each
/// new try for the lock of a directory below `tree` that a loop holds (see
/// [`STARTING_LOOP_RETRIES`]).
fn hold_all_waiting(
    tree: &Path,
    own: Option<&Path>,
    hold: &mut dyn FnMut(&Path) -> Holding,
    wait: &mut dyn FnMut(),
) -> Result<Vec<Held>, Busy> {
    let mut held = Vec::new();
    for workspace in std::iter::once(tree.to_path_buf()).chain(workspaces_in(tree)) {
        if own.is_some_and(|own| same_directory(own, &workspace)) {
            continue;
        }
        let mut tries = 0;
        let lock = loop {
            match hold(&workspace) {
                Ok(lock) => break lock,
                // Below the top, the loop may be one that is only starting: it took its
                // own lock, and has yet to look at the top's, which this command holds
                // now. Seeing it, it gives up, and lets its lock go.
                Err((HeldBy::Loop, _)) if workspace != tree && tries < STARTING_LOOP_RETRIES => {
                    tries += 1;
                    wait();
                }
                Err((by, pid)) => return Err(Busy { workspace, by, pid }),
            }
        };
        held.extend(lock.map(|lock| Held {
            workspace: workspace.clone(),
            _lock: lock,
        }));
    }
    Ok(held)
}

/// Stops what the agents of loops killed in the `held` workspaces (`kill -9` of their
/// ralph) left running, as `ralph run --continue` there would before it starts (and says
/// so), before a worktree command changes or deletes their files; with `deleting` (the
/// worktree `ralph runs rm` deletes), what works there too since such a loop started,
/// though it cleared its environment and with it ralph's mark. The killed ralph's record
/// is then cleared or kept (`then`). The workspaces are held, so no loop runs there now.
pub(super) fn stop_leftovers<'a>(
    held: impl Iterator<Item = &'a Held>,
    deleting: Option<&Path>,
    then: Record,
) -> Result<(), CliError> {
    let mut runtime = None;
    for held in held {
        let ralph_dir = RalphDir::in_workspace(&held.workspace);
        // Most workspaces have no run a killed ralph left: no runtime is started.
        if !ralph_dir.path().is_dir() {
            continue;
        }
        let runtime = match &mut runtime {
            Some(runtime) => runtime,
            None => runtime.insert(crate::commands::runtime()?),
        };
        runtime.block_on(leftovers::stop_stale_then(&ralph_dir, deleting, then));
    }
    Ok(())
}

/// Whether `a` and `b` name the same directory, however spelled.
fn same_directory(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The directories under the checkout at `tree` (not `tree` itself) that hold a
/// `.ralph/` directory: where a loop ran, or runs. Links are not followed; nor are
/// `.git`, ralph's own directories or other checkouts entered (a worktree nested in this
/// one is judged on its own). A directory that cannot be read is passed over: no loop
/// could have made its `.ralph/` there unseen by this user either.
fn workspaces_in(tree: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![tree.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut subdirs = Vec::new();
        let mut is_checkout = false;
        let mut has_ralph = false;
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name == GIT_ENTRY {
                is_checkout = true;
                continue;
            }
            // The entry's own type: a link is a link, never the directory it leads to.
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if !kind.is_dir() {
                continue;
            }
            if name == RALPH_DIR {
                has_ralph = true;
            } else {
                subdirs.push(entry.path());
            }
        }
        if dir != tree {
            if is_checkout {
                continue;
            }
            if has_ralph {
                found.push(dir);
            }
        }
        pending.extend(subdirs);
    }
    found.sort();
    found
}

#[cfg(test)]
#[path = "held_tests.rs"]
mod tests;
