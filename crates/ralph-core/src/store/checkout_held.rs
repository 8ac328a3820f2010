//! A loop starting in a directory below the top of a checkout that `ralph runs land` or
//! `ralph runs rm` holds. Those commands hold the loop locks of the worktree's top and of
//! every directory in it that has a `.ralph/` when they start; a loop started meanwhile
//! in a directory that had none (no loop ran there yet) makes its own `.ralph/` and its
//! own lock, which they never saw: the landing then checks, and fast-forwards the base
//! to, a tree that is not the one it rebased. So a loop below a checkout's top also looks
//! at the top's lock, and refuses when one of those commands holds it.
//!
//! Looked at twice by [`super::RalphDir::lock`]: before the loop makes anything (a removal
//! must find nothing made in the worktree it deletes), and again once the loop holds its
//! own lock. The command takes the top's lock before it looks for the directories with a
//! `.ralph/`; the loop takes its own before its second look. Whichever comes second sees
//! the other: the command finds the loop's lock held (and refuses), or the loop finds the
//! command's (and refuses).

use std::path::{Path, PathBuf};

use super::lock::{LOCK_FILE, holding, user_lock_path};
use super::lock_holder::{HeldBy, this_host};
use super::{LockError, RALPH_DIR};

/// What git keeps at a checkout's top (a directory, or a file in a linked worktree).
pub const GIT_ENTRY: &str = ".git";

/// The top of the checkout that `workspace` lies in, when the workspace is below it (not
/// at it): the nearest directory above with a `.git`. `None` at a checkout's top, or
/// outside any checkout.
pub(super) fn checkout_above(workspace: &Path) -> Option<PathBuf> {
    let mut dirs = workspace.ancestors();
    if has_git(dirs.next()?) {
        return None;
    }
    dirs.find(|dir| has_git(dir)).map(Path::to_path_buf)
}

/// Whether `dir` is the top of a git checkout: it has a `.git` entry of any kind (a
/// directory, a linked worktree's file, even a dangling link), never followed, only seen.
/// Every search for "the checkout's edge" uses this one test, so they agree on where it is.
pub fn has_git(dir: &Path) -> bool {
    !dir.as_os_str().is_empty() && dir.join(GIT_ENTRY).symlink_metadata().is_ok()
}

/// [`LockError::Held`], naming the command and its pid, when `ralph runs land` or `ralph
/// runs rm` holds the loop lock of the checkout at `top` (under its `.ralph/`, or the
/// user's); a loop running there is no reason to refuse (loops in different directories
/// of one checkout run side by side), nor is a lock that cannot be read.
pub(super) fn refuse_if_held(top: &Path) -> Result<(), LockError> {
    let locks = std::iter::once(top.join(RALPH_DIR).join(LOCK_FILE)).chain(user_lock_path(top));
    for path in locks {
        let Ok(Some((by, holder))) = holding(&path) else {
            continue;
        };
        if by == HeldBy::Loop {
            continue;
        }
        return Err(LockError::Held {
            pid: holder.as_ref().map(|h| h.pid),
            by,
            host: holder
                .and_then(|h| h.host)
                .filter(|h| Some(h) != this_host().as_ref()),
            path,
        });
    }
    Ok(())
}

#[cfg(test)]
#[path = "checkout_held_tests.rs"]
mod tests;
