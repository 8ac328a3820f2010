//! `ralph runs rm NAME [--force]`: the worktree loop's worktree, branch and record gone.
//! Refused while its loop runs (stop it first), and, unless `--force`, while its branch
//! has commits its base does not or its worktree has changes not committed: cleanup
//! must not delete the only copy of a loop's work. The worktrees nested in its worktree
//! (see `nested.rs`) would be deleted with it: each is held to the same rules, then
//! removed first. Refused too when typed inside the worktree it removes: the shell would
//! be left in a directory that is gone. With `--keep-branch` the loop's branch stays
//! (its commits with it, so they need not be landed first): the way out for a loop whose
//! base branch was renamed or deleted, which cannot be compared with it.

use std::path::{Path, PathBuf};

use ralph_core::store::{HeldBy, WorktreeRecord};

use super::held::{hold_all, stop_leftovers};
use super::nested::{self, Nested};
use super::{Repo, onto};
use crate::cli_runs::RmArgs;
use crate::error::CliError;
use crate::exit::CommandOutcome;
use crate::run::leftovers::Record;

/// How many of a worktree's unsaved commits a refusal names.
const SHOWN_COMMITS: usize = 3;

pub(crate) fn rm(cwd: &Path, args: &RmArgs) -> Result<CommandOutcome, CliError> {
    let repo = Repo::here(cwd)?;
    let record = repo.record(&args.name)?;
    let name = &record.name;
    let tree = record.path.clone();
    refuse_from_inside(cwd, &record)?;
    // git's hooks and fsmonitor run under the removal: a Ctrl-C stops them with git (or
    // the wait for the lock).
    repo.git.stop_on_signals("ralph runs rm")?;
    let _lock = repo.lock()?;
    // Each workspace to delete is locked as a loop locks it, and kept locked until it is
    // gone: a loop running there refuses the removal, and none can start there meanwhile
    // (`ralph run --continue` typed in the worktree while it is being deleted).
    let held = hold_all(&tree, HeldBy::Remove).map_err(|busy| {
        CliError::Worktree(busy.refusal(&tree, &format!("the loop of `{name}`")))
    })?;
    // The checkouts git knows, asked once: nothing else changes them while the repository
    // lock is held, and the removals below only take from them.
    let listed: Vec<PathBuf> = repo.worktrees()?.into_iter().map(|c| c.path).collect();
    // A removal that stopped part-way (a file git could not delete) leaves the files
    // and drops git's own record of the worktree: git can neither check nor remove it.
    let forgotten = tree.is_dir() && !knows(&listed, &tree);
    if forgotten && !args.force {
        return Err(CliError::Worktree(format!(
            "git no longer knows the worktree of `{name}` (`{}`), as after a removal that \
             stopped part-way, so its changes cannot be checked: pass --force to delete \
             what is left of it (with --keep-branch to keep its branch {})",
            tree.display(),
            record.branch
        )));
    }
    // Whatever is nested in the worktree goes with it: it is held to the same rules.
    let nested = nested::inside(&repo, &tree, &listed)?;
    let mut held_inside = Vec::with_capacity(nested.len());
    for inner in &nested {
        held_inside.push(hold_all(&inner.path, HeldBy::Remove).map_err(|busy| {
            CliError::Worktree(format!(
                "{} is inside the worktree of `{name}`, which would delete it, and {}",
                describe(inner),
                busy.refusal(&inner.path, "its loop"),
            ))
        })?);
    }
    if !args.force {
        let inside: Vec<&Path> = nested.iter().map(|n| n.path.as_path()).collect();
        // A kept branch keeps its commits: as for a worktree git alone knows, only the
        // worktree's own changes would be lost.
        let judged = (!args.keep_branch).then_some(&record);
        if let Some(work) = unsaved(&repo, judged, &tree, &inside)? {
            return Err(CliError::Worktree(format!(
                "{}: {}, or pass --force to delete them",
                work.what, work.keep
            )));
        }
        for inner in &nested {
            if let Some(work) = unsaved(&repo, inner.record.as_ref(), &inner.path, &[])? {
                return Err(CliError::Worktree(format!(
                    "{} is inside the worktree of `{name}`, which would delete it, and {}: \
                     {} first, or pass --force to delete them",
                    describe(inner),
                    work.what,
                    work.keep
                )));
            }
        }
    }
    // A loop killed there (`kill -9`) may have left its agent's processes running in
    // the worktree; the record that lets a later run find them goes with it.
    // What works in the worktree is stopped too (since such a loop started), though it
    // cleared its environment and with it ralph's mark: it would go on in a directory
    // that is gone.
    stop_leftovers(
        held.iter().chain(held_inside.iter().flatten()),
        Some(&tree),
        Record::Clear,
    )?;
    for inner in &nested {
        remove(&repo, inner.record.as_ref(), &inner.path, false, &listed)?;
        super::report(format_args!(
            "removed {}, inside the worktree of `{name}`{}",
            describe(inner),
            inner
                .record
                .as_ref()
                .map(|r| format!(", and its branch {}", r.branch))
                .unwrap_or_default()
        ));
    }
    remove(&repo, Some(&record), &tree, args.keep_branch, &listed)?;
    match args.keep_branch {
        true => super::report(format_args!(
            "removed worktree loop `{name}`; its branch {} is kept",
            record.branch
        )),
        false => super::report(format_args!(
            "removed worktree loop `{name}` and its branch {}",
            record.branch
        )),
    }
    Ok(CommandOutcome::Success)
}

/// A nested worktree as the messages name it.
fn describe(inner: &Nested) -> String {
    match &inner.record {
        Some(record) => format!(
            "worktree loop `{}` (`{}`)",
            record.name,
            record.path.display()
        ),
        None => format!("the git worktree `{}`", inner.path.display()),
    }
}

/// Work that only one worktree holds, which removing it would delete.
struct Unsaved {
    /// What it is, as a clause.
    what: String,
    /// How to keep it.
    keep: String,
}

/// The work only the worktree at `tree` (of the loop of `record`, if it is one) holds:
/// commits its branch has and its base does not, else changes not committed (not
/// counting the worktrees `nested` in it, which are judged on their own).
fn unsaved(
    repo: &Repo,
    record: Option<&WorktreeRecord>,
    tree: &Path,
    nested: &[&Path],
) -> Result<Option<Unsaved>, CliError> {
    // A worktree git alone knows keeps its branch (ralph deletes only its own): only its
    // uncommitted changes would be lost.
    if let Some(record) = record
        && repo.head(&record.branch)?.is_some()
    {
        let base = record.base_name();
        let unlanded = match repo.ahead(record)? {
            Some(0) => None,
            Some(n) => Some(format!("{n} commit(s) that {base} does not")),
            // The base is gone: nothing says the work is anywhere else.
            None if record.base_branch().is_some() => {
                return Ok(Some(Unsaved {
                    what: format!(
                        "{} has commits, and {base}, the branch it was started from, no \
                         longer exists (renamed or deleted since): git cannot tell whether \
                         they are anywhere else",
                        record.branch
                    ),
                    keep: onto::base_gone_ways(record),
                }));
            }
            None => Some(format!("commits git cannot compare with {base}")),
        };
        if let Some(what) = unlanded {
            return Ok(Some(Unsaved {
                what: format!("{} has {what}", record.branch),
                keep: format!("land them (`ralph runs land {}`)", record.name),
            }));
        }
    }
    if tree.is_dir()
        && let Some(detached) = detached_commits(repo, tree)?
    {
        return Ok(Some(detached));
    }
    if !tree.is_dir() {
        return Ok(None);
    }
    let changes = repo.changes_except(tree, true, nested)?;
    if !changes.is_empty() {
        return Ok(Some(Unsaved {
            what: format!(
                "`{}` has changes that are not committed ({})",
                tree.display(),
                changes.named()
            ),
            keep: "commit them".to_owned(),
        }));
    }
    Ok(None)
}

/// The commits the worktree at `tree` has on its HEAD that no branch, tag or remote
/// branch has: made on a detached HEAD (or on a branch deleted since), they are found
/// from nowhere but that HEAD, and go with the worktree. (Commits its loop's branch has
/// are judged by [`unsaved`] against the base.)
fn detached_commits(repo: &Repo, tree: &Path) -> Result<Option<Unsaved>, CliError> {
    const NOT_ELSEWHERE: [&str; 4] = ["--not", "--branches", "--tags", "--remotes"];
    let mut count = vec!["rev-list", "--count", "HEAD"];
    count.extend(NOT_ELSEWHERE);
    let n: u32 = repo.git.ok(tree, &count)?.trim().parse().unwrap_or(0);
    if n == 0 {
        return Ok(None);
    }
    let shown = SHOWN_COMMITS.to_string();
    let mut log = vec!["log", "-n", &shown, "--format=%h %s", "HEAD"];
    log.extend(NOT_ELSEWHERE);
    let listed = repo.git.ok(tree, &log)?;
    let mut named: Vec<&str> = listed.lines().collect();
    if n as usize > named.len() {
        named.push("…");
    }
    Ok(Some(Unsaved {
        what: format!(
            "`{}` has {n} commit(s) on its HEAD that no branch has ({})",
            tree.display(),
            named.join("; ")
        ),
        keep: format!(
            "keep them on a branch (`git -C {} branch NAME HEAD`)",
            tree.display()
        ),
    }))
}

/// Removes the worktree at `tree` and, for a loop's (`record`), its record and, unless
/// `keep_branch`, its branch. `listed`: the checkouts git knows.
fn remove(
    repo: &Repo,
    record: Option<&WorktreeRecord>,
    tree: &Path,
    keep_branch: bool,
    listed: &[PathBuf],
) -> Result<(), CliError> {
    if tree.is_dir() && knows(listed, tree) {
        let path = tree
            .to_str()
            .ok_or_else(|| CliError::Worktree(format!("`{}` is not UTF-8", tree.display())))?;
        repo.git
            .ok(&repo.top, &["worktree", "remove", "--force", "--", path])?;
    } else {
        // Left by a removal that stopped part-way: what git would have deleted, in
        // ralph's own place for it (a record's path is checked to be there when read).
        // The standard library's removal does not follow links out of it.
        if tree.is_dir() && record.is_some() {
            std::fs::remove_dir_all(tree).map_err(|e| CliError::io("delete", tree, e))?;
        }
        repo.git.ok(&repo.top, &["worktree", "prune"])?;
    }
    let Some(record) = record else {
        return Ok(());
    };
    if !keep_branch && repo.head(&record.branch)?.is_some() {
        repo.git.ok(&repo.top, &["branch", "-D", &record.branch])?;
    }
    repo.records
        .remove(&record.name)
        .map_err(|e| CliError::io("remove the worktree record in", repo.records.path(), e))
}

/// Whether `tree` is among the checkouts git `listed`.
fn knows(listed: &[PathBuf], tree: &Path) -> bool {
    let Ok(tree) = tree.canonicalize() else {
        return false;
    };
    listed
        .iter()
        .any(|path| path.canonicalize().is_ok_and(|p| p == tree))
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
