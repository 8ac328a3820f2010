//! A landing that rebased the loop's branch and then landed nothing (the fast-forward
//! refused: the base's checkout had uncommitted changes, a loop started there, the base
//! kept moving; or Ctrl-C) puts the branch back where it was. The exit code and the
//! message say nothing landed: a branch silently rewritten meanwhile (new commit ids,
//! another base under them) would be a change nobody asked for and nothing records.
//!
//! Only a failed check keeps the branch rebased (`check-failed` records the commit it
//! failed on, for the user to look at). The branch is put back only when it is still
//! checked out in the worktree at the commit the rebase made: one moved since (by hand,
//! the worktree's loop lock notwithstanding) is left as it is, and the message says how
//! to put it back.

use std::path::Path;

use super::Git;
use super::git::hookless;
use super::land::short;

/// The loop's branch before the landing rebased it, and after its last rebase.
pub(super) struct Tips {
    /// The commit the branch was at when the landing started.
    pub(super) before: String,
    /// The commit the last finished rebase left it at (`None` before one finished).
    pub(super) rebased: Option<String>,
}

impl Tips {
    pub(super) fn new(before: String) -> Tips {
        Tips {
            before,
            rebased: None,
        }
    }

    /// Puts `branch`, checked out in `tree`, back at [`Tips::before`] when a rebase
    /// moved it: what became of it, as a sentence for the message; `None` when no
    /// rebase changed it. `git reset --keep`: the files the rebase changed go back too,
    /// and any the check changed that would be lost make it refuse (said, with how to do
    /// it by hand). Without the repository's hooks, as the abort after a Ctrl-C.
    pub(super) fn put_back(&self, git: &Git, tree: &Path, branch: &str) -> Option<String> {
        let rebased = self.rebased.as_deref().filter(|r| *r != self.before)?;
        let before = self.before.as_str();
        let undo = format!(
            "`git -C {} reset --keep {before}` puts it back",
            tree.display()
        );
        let on = git
            .line(tree, &["symbolic-ref", "-q", "HEAD"])
            .ok()
            .flatten();
        let at = (git
            .line(tree, &["rev-parse", "--verify", "-q", "HEAD"])
            .ok())
        .flatten();
        let expected = format!("refs/heads/{branch}");
        if on.as_deref() != Some(expected.as_str()) || at.as_deref() != Some(rebased) {
            return Some(format!(
                "{branch} was rebased by this landing (from {} to {}) and has moved since, \
                 so it was left as it is; it was at {before} before",
                short(before),
                short(rebased)
            ));
        }
        let why = match git.run(tree, &hookless(&["reset", "-q", "--keep", before])) {
            Ok(out) if out.ok() => {
                return Some(format!(
                    "{branch} is back at {}, where it was before the landing rebased it",
                    short(before)
                ));
            }
            Ok(out) => out.tail.trim_end().to_owned(),
            Err(e) => e.to_string(),
        };
        Some(format!(
            "{branch} stays rebased at {} (putting it back failed: {why}); {undo}",
            short(rebased)
        ))
    }
}

#[cfg(test)]
#[path = "put_back_tests.rs"]
mod tests;
