//! The loop's task list: work items the agent keeps across iterations with
//! `ralph tools task …`, in `.ralph/agent/tasks.jsonl`.
//!
//! The file is ralph-orchestrator's: one JSON object a line with its fields (`id`,
//! `title`, `description`, `key`, `status`, `priority`, `blocked_by`, `loop_id`,
//! `created`, `started`, `closed`), so either tool reads what the other wrote; fields
//! ralph does not know are kept as they are. A line that is not a task, or that repeats
//! the id of a task above it, is reported with its number, skipped, and written back
//! unchanged, so no edit ever drops it.
//!
//! Writers take `tasks.jsonl.lock` (see [`crate::file_lock`]), read, change and replace
//! the file atomically: concurrent agents queue instead of losing tasks. Pure parts
//! ([`TaskList`], [`Task`]) are here; the command line is in ralph-cli.

mod list;
mod task;

pub use list::{Damaged, TaskError, TaskList, TasksView};
pub use task::{DEFAULT_PRIORITY, PRIORITIES, TITLE_SHOWN_CHARS, Task, TaskStatus, new_task_id};

use std::io;
use std::path::{Path, PathBuf};

use crate::file_lock::{lock_beside, lock_path};
use crate::fsafe::{self, Links};
use crate::store::{Durability, replace};

/// Where the task list lives, relative to the workspace.
pub const TASKS_FILE: &str = ".ralph/agent/tasks.jsonl";

/// The largest task list read, in bytes (about 250,000 tasks): a bound on what a hostile
/// or runaway file can make ralph read into memory.
pub const MAX_TASKS_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The task list of `workspace`.
pub fn tasks_path(workspace: &Path) -> PathBuf {
    workspace.join(TASKS_FILE)
}

/// Reads the task list at `path` (empty when the file does not exist yet).
pub fn read(path: &Path) -> io::Result<TaskList> {
    match fsafe::read_bounded(path, Links::Refuse, MAX_TASKS_FILE_BYTES, "the task list") {
        Ok(bytes) => Ok(TaskList::parse_owned(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(TaskList::default()),
        Err(e) => Err(e),
    }
}

/// Changes the task list at `path` under its lock: reads it, lets `change` edit it, and
/// replaces the file with the result when `change` succeeds. Creates `.ralph/agent/`
/// when needed.
pub fn update<T>(
    path: &Path,
    change: impl FnOnce(&mut TaskList) -> Result<T, TaskError>,
) -> Result<T, UpdateError> {
    if let Some(dir) = path.parent() {
        create_dirs(dir)?;
    }
    let lock = lock_path(path);
    let _lock =
        lock_beside(path).map_err(|e| UpdateError::io("take the task list's lock", &lock, e))?;
    let mut list = read(path).map_err(|e| UpdateError::io("read the task list", path, e))?;
    let out = change(&mut list)?;
    let rendered = list.render();
    // Past the limit no command could read the list again, and the loop's task check
    // would stop holding completion back: refused before it is written.
    let size = rendered.len() as u64;
    if size > MAX_TASKS_FILE_BYTES {
        return Err(UpdateError::TooLarge {
            path: path.to_path_buf(),
            size,
            limit: MAX_TASKS_FILE_BYTES,
        });
    }
    replace(path, &rendered, Durability::Atomic)
        .map_err(|e| UpdateError::io("write the task list", path, e))?;
    Ok(out)
}

/// Why an update did not happen.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    #[error(transparent)]
    Task(#[from] TaskError),
    /// A file or directory could not be used: the list, its lock, or a directory above
    /// them. `path` is the one that failed, so the user knows which to fix.
    #[error("cannot {what} `{}`: {source}", .path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The change would take the list past [`MAX_TASKS_FILE_BYTES`]: nothing was written.
    #[error(
        "this change would make the task list `{}` {size} bytes, over its {limit}-byte \
         limit, past which ralph can no longer read it; nothing was written. Make room \
         first: remove the lines of closed and failed tasks from it in an editor (`ralph \
         tools task list -s closed` shows them), or move it aside to start a new list",
        .path.display()
    )]
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },
}

impl UpdateError {
    fn io(what: &'static str, path: &Path, source: io::Error) -> UpdateError {
        UpdateError::Io {
            what,
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Creates `.ralph/` and `.ralph/agent/` (no further up: the workspace must exist).
fn create_dirs(dir: &Path) -> Result<(), UpdateError> {
    let create = |dir: &Path| {
        fsafe::create_dir(dir).map_err(|e| UpdateError::io("create the directory", dir, e))
    };
    if let Some(parent) = dir.parent()
        && !parent.is_dir()
    {
        create(parent)?;
    }
    create(dir)
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
