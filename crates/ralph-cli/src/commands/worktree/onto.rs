//! Where `ralph runs land` lands a loop: the branch it was started from, or the one
//! `--onto` names. The first may be gone: renamed (`master` to `main`) or deleted after
//! the loop started. Git's own failure ("Needed a single revision") would not say so,
//! nor that the loop can still be landed elsewhere or its branch kept.

use ralph_core::store::WorktreeRecord;

use super::Repo;
use crate::error::CliError;

/// The full ref of the branch the loop of `record` lands on: `onto` when given (a
/// branch name, with or without `refs/heads/`), else its base, which must exist.
pub(crate) fn target(
    repo: &Repo,
    record: &WorktreeRecord,
    onto: Option<&str>,
) -> Result<String, CliError> {
    let name = &record.name;
    if let Some(onto) = onto {
        let short = onto.strip_prefix("refs/heads/").unwrap_or(onto);
        if short == record.branch {
            return Err(CliError::Worktree(format!(
                "{short} is the branch of `{name}` itself: --onto names the branch to land \
                 it on"
            )));
        }
        // Checked as a branch that exists, never passed to git as typed: `-x`, a commit
        // id or `main^` would otherwise be read as an option or as another commit.
        if !branch_exists(repo, short)? {
            return Err(CliError::Worktree(format!(
                "there is no branch {short} to land `{name}` on: `git branch --list` shows \
                 the branches"
            )));
        }
        return Ok(format!("refs/heads/{short}"));
    }
    let Some(base) = record.base_branch() else {
        return Err(CliError::Worktree(format!(
            "`{name}` was started from commit {}, not a branch: land it on a branch with \
             `ralph runs land {name} --onto BRANCH`, or merge {} by hand",
            record.base_ref, record.branch
        )));
    };
    if !branch_exists(repo, record.base_name())? {
        return Err(base_gone(record));
    }
    Ok(base.to_owned())
}

/// The refusal for a loop whose base branch no longer exists: what happened and the
/// two ways on.
pub(crate) fn base_gone(record: &WorktreeRecord) -> CliError {
    CliError::Worktree(format!(
        "`{name}` was started from branch {base}, which no longer exists (renamed or \
         deleted since): {}",
        base_gone_ways(record),
        name = record.name,
        base = record.base_name(),
    ))
}

/// What to do with a loop whose base branch is gone, as a clause.
pub(crate) fn base_gone_ways(record: &WorktreeRecord) -> String {
    format!(
        "land it on another branch (`ralph runs land {name} --onto BRANCH`), or remove the \
         worktree and keep {branch} (`ralph runs rm {name} --keep-branch`)",
        name = record.name,
        branch = record.branch
    )
}

/// Whether `refs/heads/<short>` is a branch, exactly (no revision syntax read).
fn branch_exists(repo: &Repo, short: &str) -> Result<bool, CliError> {
    let full = format!("refs/heads/{short}");
    let asked = repo
        .git
        .run(&repo.top, &["show-ref", "--verify", "--quiet", &full])?;
    Ok(asked.ok())
}
