//! The loops running in the checkout that has a landing's base checked out. Landing
//! fast-forwards that checkout (`git merge --ff-only`), which rewrites the files under a
//! loop running there (at its top, or in a directory of it with a `.ralph/` of its own):
//! its agent would find its files changed mid-iteration, by commits it never saw. So
//! `ralph runs land` refuses while one runs there: once before it rebases (to say so
//! before an hour-long check), and again for the fast-forward, for which it holds their
//! loop locks, so that no loop starts there until the base has moved.
//!
//! The loop the command was typed in (by its agent: `$RALPH_WORKSPACE`) is not refused: a
//! loop that fans out into worktree loops lands them onto its own branch, in its own
//! checkout (docs/scale.md), and asks for its files to move.

use std::path::{Path, PathBuf};

use ralph_core::store::HeldBy;

use super::{Repo, held};
use crate::error::CliError;

/// The checkout that has `base` (a full `refs/heads/…` ref) checked out, when one does
/// and git can still read it (one it cannot is no checkout: only the ref moves).
pub(super) fn checkout_of(repo: &Repo, base: &str) -> Result<Option<PathBuf>, CliError> {
    Ok((repo.worktrees()?.into_iter())
        .find(|c| !c.prunable && c.branch.as_deref() == Some(base))
        .map(|c| c.path))
}

/// The loop locks of the checkout at `checkout`, which has `base` checked out, held (for
/// a landing) until dropped; refused while a loop other than the asker's own runs there.
pub(super) fn hold(checkout: &Path, base: &str) -> Result<Vec<held::Held>, CliError> {
    let asker = std::env::var_os(ralph_types::env::WORKSPACE)
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from);
    held::hold_all_but(checkout, HeldBy::LandBase, asker.as_deref()).map_err(|busy| {
        let short = base.trim_start_matches("refs/heads/");
        let refusal = busy.refusal(checkout, &format!("the loop in `{}`", checkout.display()));
        CliError::Worktree(match busy.by {
            HeldBy::Loop => format!(
                "{refusal}, or let it finish, then land again: {short} is checked out in `{}`, \
                 and landing would move the files under that loop; nothing landed",
                checkout.display()
            ),
            _ => format!("{refusal}; nothing landed"),
        })
    })
}

/// [`hold`] on the checkout that has `base` checked out, if one does: nothing when
/// none does.
pub(super) fn hold_for(repo: &Repo, base: &str) -> Result<Vec<held::Held>, CliError> {
    match checkout_of(repo, base)? {
        Some(checkout) => hold(&checkout, base),
        None => Ok(Vec::new()),
    }
}
