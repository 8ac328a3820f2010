//! A git operation in progress on a landing's base in one of the repository's
//! checkouts: a rebase, a merge, a cherry-pick or revert, a bisect. Each moves (or
//! returns to) the base when it ends, and expects it where it left it: landing moved
//! under a rebase makes its `git rebase --continue` fail ("is at X but expected Y"),
//! and git's own `branch -f` refuses a branch being rebased. Landing refuses as well.

use std::path::Path;

use ralph_core::fsafe::{self, Links};

use super::Repo;
use crate::error::CliError;

/// The most of one of git's state files read (a branch name; more is not git's).
const STATE_FILE_BYTES: u64 = 4096;

/// What git leaves in a checkout's own git directory while an operation is in progress.
const REBASE_MERGE: &str = "rebase-merge/head-name";
const REBASE_APPLY: &str = "rebase-apply/head-name";
const MERGE: &str = "MERGE_HEAD";
const CHERRY_PICK: &str = "CHERRY_PICK_HEAD";
const REVERT: &str = "REVERT_HEAD";
const BISECT: &str = "BISECT_START";

/// Refuses when an operation on `base` (a full `refs/heads/…` ref) is in progress in a
/// checkout that has it checked out, or is detached from it for a rebase or a bisect.
pub(crate) fn refuse(repo: &Repo, base: &str) -> Result<(), CliError> {
    let short = base.trim_start_matches("refs/heads/");
    for checkout in repo.worktrees()? {
        let (path, branch) = (checkout.path, checkout.branch);
        let on_base = branch.as_deref() == Some(base);
        // Another branch checked out: nothing there will move the base. A checkout git
        // cannot read (its directory or its `.git` file gone) has no operation git could
        // go on with, and no git command runs there.
        if !(on_base || branch.is_none()) || checkout.prunable || !path.is_dir() {
            continue;
        }
        let names = [
            REBASE_MERGE,
            REBASE_APPLY,
            MERGE,
            CHERRY_PICK,
            REVERT,
            BISECT,
        ];
        let git_dir = repo.git.git_dir(&path)?;
        let files: Vec<_> = names.iter().map(|name| git_dir.join(name)).collect();
        let read = |i: usize| files.get(i).and_then(|f| state(f));
        let is_base = |content: Option<String>| content.is_some_and(|c| c == base || c == short);
        // (the operation, how it stands to the base, how to end it)
        let found = if is_base(read(0)) || is_base(read(1)) {
            Some((
                "rebase",
                "of",
                "finish it (`git rebase --continue`) or abort it (`git rebase --abort`)",
            ))
        } else if on_base && read(2).is_some() {
            Some((
                "merge",
                "into",
                "finish it (`git commit`) or abort it (`git merge --abort`)",
            ))
        } else if on_base && read(3).is_some() {
            Some((
                "cherry-pick",
                "onto",
                "finish it (`git cherry-pick --continue`) or abort it (`git cherry-pick --abort`)",
            ))
        } else if on_base && read(4).is_some() {
            Some((
                "revert",
                "on",
                "finish it (`git revert --continue`) or abort it (`git revert --abort`)",
            ))
        } else if is_base(read(5)) {
            Some(("bisect", "started on", "end it (`git bisect reset`)"))
        } else {
            None
        };
        if let Some((operation, how, end)) = found {
            return Err(CliError::Worktree(format!(
                "a `git {operation}` {how} {short} is in progress in `{}`, and landing would \
                 move {short} under it: {end} there, then land again",
                path.display()
            )));
        }
    }
    Ok(())
}

/// The trimmed content of git's state file `path`, if it is there.
fn state(path: &Path) -> Option<String> {
    let bytes = fsafe::read_bounded(path, Links::Follow, STATE_FILE_BYTES, "git's state").ok()?;
    Some(String::from_utf8_lossy(&bytes).trim().to_owned())
}
