//! `ralph run --worktree` typed in a subdirectory that has a project of its own (a package
//! of a monorepo with its `ralph.yml` or `PROMPT.md`). The loop runs at the top of the new
//! worktree, like git, where those files are not the ones read: the loop would take the
//! top's configuration (or fail for want of a task) after the worktree was made, and be
//! left `failed`. Said before anything is made, with the command line that uses them.

use std::path::Path;

use ralph_core::config::{DEFAULT_PROMPT_FILE, PROJECT_CONFIG_FILE};

use super::Repo;
use crate::error::CliError;

/// Refuses when `cwd` is below the top of its checkout and holds a `ralph.yml` (no `-c`
/// given), or a `PROMPT.md` that would be the task (no `-c`, `-p` or `-P` given).
pub(crate) fn refuse_unread_files(
    cwd: &Path,
    config_given: bool,
    task_given: bool,
) -> Result<(), CliError> {
    if config_given {
        return Ok(());
    }
    let config = cwd.join(PROJECT_CONFIG_FILE).is_file();
    let prompt = !task_given && cwd.join(DEFAULT_PROMPT_FILE).is_file();
    if !config && !prompt {
        return Ok(());
    }
    // Only now ask git: most worktree loops are started at the top, with nothing here.
    let top = Repo::at_top(cwd)?.top;
    if top == cwd {
        return Ok(());
    }
    let here = cwd.strip_prefix(&top).unwrap_or(cwd);
    let shown = |name: &str| format!("`{}`", here.join(name).display());
    let unread = match (config, prompt) {
        (true, true) => format!(
            "{} and {}",
            shown(PROJECT_CONFIG_FILE),
            shown(DEFAULT_PROMPT_FILE)
        ),
        (true, false) => shown(PROJECT_CONFIG_FILE),
        _ => shown(DEFAULT_PROMPT_FILE),
    };
    let instead = if config {
        let task = if prompt {
            format!(" (its task is then the {DEFAULT_PROMPT_FILE} beside it)")
        } else {
            String::new()
        };
        format!("pass `-c {PROJECT_CONFIG_FILE}`{task}")
    } else {
        format!("pass `-P {DEFAULT_PROMPT_FILE}`")
    };
    Err(CliError::Worktree(format!(
        "`ralph run --worktree` runs its loop at the top of the checkout (`{}`), like git, \
         so {unread} here would not be read; to use them, {instead}. The agent still works \
         from the top of the worktree: say in the task that the work is in `{}`. Nothing \
         was made",
        top.display(),
        here.display()
    )))
}
