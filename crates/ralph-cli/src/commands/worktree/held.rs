//! The workspace lock of a worktree, held by a command that changes the worktree under
//! any loop there: `ralph runs rm` (which deletes it) and `ralph runs land` (which
//! rebases its branch). Taken as a loop takes it, it refuses the command while a loop
//! runs there, and keeps any loop from starting there (`ralph run --continue` typed in
//! the worktree) until the command is done.

use std::path::Path;

use ralph_core::store::{LockError, RalphDir, RemovalLock};

/// The workspace lock of the workspace at `tree` (which may be gone), held until it is
/// dropped; when a loop runs there, the end of the refusal: ` (pid N): stop it first …`.
pub(super) fn hold(tree: &Path) -> Result<Option<RemovalLock>, String> {
    if !tree.is_dir() {
        return Ok(None);
    }
    match RalphDir::in_workspace(tree).lock_for_removal() {
        Ok(lock) => Ok(Some(lock)),
        Err(LockError::Held { pid, host, .. }) => {
            let pid = pid.filter(|_| host.is_none());
            Err(format!(
                "{}: stop it first{}",
                pid.map(|p| format!(" (pid {p})")).unwrap_or_default(),
                pid.map(|p| format!(" (`kill -INT {p}`)"))
                    .unwrap_or_default()
            ))
        }
        // A lock that cannot be taken for another reason (a link planted at its name)
        // guards nothing: the command goes on, as it would without a lock file.
        Err(LockError::Io { .. }) => Ok(None),
    }
}
