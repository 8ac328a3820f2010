//! What the loop keeps outside the agent, as the shell reads it for a prompt and for the
//! completion check: the scratchpad's tail and the task list. Each file is read through
//! `fsafe` and bounded; one that cannot be read is left out with a warning, so a broken
//! or hostile file never stops the loop.

use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use ralph_core::config::ResolvedConfig;
use ralph_core::fsafe::{self, Links};
use ralph_core::prompt::SCRATCHPAD_TAIL_BYTES;
use ralph_core::tasks::{self, TaskList};

use crate::diagnostic::diagnostic;

/// The scratchpad as the prompt shows it (its path as configured, and its tail), when
/// the scratchpad is enabled.
pub(super) fn scratchpad(config: &ResolvedConfig, workspace: &Path) -> Option<(String, String)> {
    let path = config.core.scratchpad.as_ref()?;
    let text = match read_tail(&workspace.join(path), SCRATCHPAD_TAIL_BYTES) {
        Ok(text) => text,
        // A missing scratchpad is normal; anything else is said, and the iteration
        // runs without it rather than waiting on a FIFO.
        Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            diagnostic(format_args!(
                "warning: the scratchpad is left out of this prompt: {e}"
            ));
            String::new()
        }
    };
    Some((path.display().to_string(), text))
}

/// The task list, when `tasks.enabled` (empty when there is none yet).
pub(super) fn task_list(config: &ResolvedConfig, workspace: &Path) -> Option<TaskList> {
    if !config.tasks.enabled {
        return None;
    }
    let path = tasks::tasks_path(workspace);
    match tasks::read(&path) {
        Ok(list) => Some(list),
        Err(e) => {
            diagnostic(format_args!(
                "warning: the task list `{}` is left out of this prompt: {e}",
                path.display()
            ));
            None
        }
    }
}

/// The run's open and in-progress tasks (`id: title`, the title as the prompt shows it), when `tasks.enabled`. A task list
/// that cannot be read holds nothing back, with a warning: the agent's word is not made
/// worth less by a broken file, and the gates still apply.
pub(super) fn unfinished_tasks(
    config: &ResolvedConfig,
    workspace: &Path,
    run_id: &str,
) -> Vec<String> {
    read_unfinished_tasks(config, workspace, run_id).unwrap_or_else(|warning| {
        diagnostic(format_args!("warning: {warning}"));
        Vec::new()
    })
}

/// [`unfinished_tasks`], or the warning that the list cannot be read.
pub(super) fn read_unfinished_tasks(
    config: &ResolvedConfig,
    workspace: &Path,
    run_id: &str,
) -> Result<Vec<String>, String> {
    if !config.tasks.enabled {
        return Ok(Vec::new());
    }
    let path = tasks::tasks_path(workspace);
    match tasks::read(&path) {
        Ok(list) => Ok(list
            .unfinished_of_run(run_id)
            .iter()
            // Cut as the prompt's task list cuts them: these go into the next prompt
            // (the `task.resume` event) and the notice.
            .map(|t| format!("{}: {}", t.id, t.shown_title()))
            .collect()),
        Err(e) => Err(format!(
            "the task list `{}` cannot be read ({e}); completion is not held back by tasks \
             this iteration",
            path.display()
        )),
    }
}

/// The last `max` bytes of a file (plus a little, so the prompt can cut at a line).
/// Only a regular file is read (a link to one is fine): a FIFO or a device put there
/// is refused at once instead of blocking the loop or being read without end.
fn read_tail(path: &Path, max: usize) -> io::Result<String> {
    let slack = 4096;
    let mut file = fsafe::open_read(path, Links::Follow)?;
    let len = file.metadata()?.len();
    let want = (max + slack) as u64;
    if len > want {
        file.seek(SeekFrom::Start(len - want))?;
    }
    let mut bytes = Vec::new();
    // Bounded even if the file grows while it is read.
    file.take(want).read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
