//! `ralph runs rm NAME [--force]`: the worktree loop's worktree, branch and record gone.
//! Refused while its loop runs (stop it first), and, unless `--force`, while its branch
//! has commits its base does not or its worktree has changes not committed: cleanup
//! must not delete the only copy of a loop's work. Refused too when typed inside the
//! worktree it removes: the shell would be left in a directory that is gone.

use std::path::Path;

use ralph_core::store::{RalphDir, WorktreeRecord};

use super::Repo;
use crate::cli_runs::RmArgs;
use crate::error::CliError;
use crate::exit::CommandOutcome;

pub(crate) fn rm(cwd: &Path, args: &RmArgs) -> Result<CommandOutcome, CliError> {
    let repo = Repo::here(cwd)?;
    let record = repo.record(&args.name)?;
    let name = &record.name;
    let tree = record.path.clone();
    refuse_from_inside(cwd, &record)?;
    let _lock = repo.lock()?;
    let own = RalphDir::in_workspace(&tree);
    if tree.is_dir() && own.loop_running().unwrap_or(false) {
        let pid = own.loop_pid();
        return Err(CliError::Worktree(format!(
            "the loop of `{name}` is running{}: stop it first{}",
            pid.map(|p| format!(" (pid {p})")).unwrap_or_default(),
            pid.map(|p| format!(" (`kill -INT {p}`)"))
                .unwrap_or_default()
        )));
    }
    let branch_exists = repo.head(&record.branch)?.is_some();
    if !args.force {
        if branch_exists {
            let unlanded = match repo.ahead(&record)? {
                Some(0) => None,
                Some(n) => Some(format!(
                    "{n} commit(s) that {} does not",
                    record.base_name()
                )),
                // The base is gone: nothing says the work is anywhere else.
                None => Some(format!(
                    "commits git cannot compare with {}",
                    record.base_name()
                )),
            };
            if let Some(what) = unlanded {
                return Err(CliError::Worktree(format!(
                    "{} has {what}: land them (`ralph runs land {name}`), or pass --force to \
                     delete them",
                    record.branch
                )));
            }
        }
        if tree.is_dir() && repo.dirty(&tree, true)? {
            return Err(CliError::Worktree(format!(
                "`{}` has changes that are not committed: commit them, or pass --force to \
                 delete them",
                tree.display()
            )));
        }
    }
    if tree.is_dir() {
        let path = tree
            .to_str()
            .ok_or_else(|| CliError::Worktree(format!("`{}` is not UTF-8", tree.display())))?;
        repo.git
            .ok(&repo.top, &["worktree", "remove", "--force", "--", path])?;
    } else {
        repo.git.ok(&repo.top, &["worktree", "prune"])?;
    }
    if branch_exists {
        repo.git.ok(&repo.top, &["branch", "-D", &record.branch])?;
    }
    repo.records
        .remove(name)
        .map_err(|e| CliError::io("remove the worktree record in", repo.records.path(), e))?;
    println!(
        "removed worktree loop `{name}` and its branch {}",
        record.branch
    );
    Ok(CommandOutcome::Success)
}

/// Refuses to remove the worktree the command was typed in, or under: the shell would be
/// left in a directory that is gone, and the git commands, which run at the top of the
/// checkout the command was typed in, could not start once it is removed (half the
/// loop would stay). Paths are compared resolved: either may be spelled through a link.
fn refuse_from_inside(cwd: &Path, record: &WorktreeRecord) -> Result<(), CliError> {
    let (Ok(here), Ok(tree)) = (cwd.canonicalize(), record.path.canonicalize()) else {
        return Ok(());
    };
    if !here.starts_with(&tree) {
        return Ok(());
    }
    // The record's path is `<checkout>/.ralph/worktrees/<name>` (checked when read).
    let checkout = record.path.ancestors().nth(3).unwrap_or(&record.path);
    Err(CliError::Worktree(format!(
        "you are inside the worktree of `{name}` (`{}`), which `ralph runs rm` deletes: \
         cd out of it first (`cd {}`), then run `ralph runs rm {name}` again",
        record.path.display(),
        checkout.display(),
        name = record.name
    )))
}
