//! Worktrees inside a worktree loop's checkout. Earlier versions made a loop started in a
//! worktree loop's checkout in that checkout's own `.ralph/worktrees/`, nested: removing
//! the outer loop (`git worktree remove`) deleted the inner one with it, running or not,
//! uncommitted work included. New loops now go beside the one they were typed in
//! ([`home`]), never inside it. `ralph runs rm` still finds whatever is nested in the
//! worktree it removes ([`inside`]: loops nested by an earlier version, or a worktree
//! someone added there by hand), to refuse or to remove it properly.

use std::path::{Path, PathBuf};

use ralph_core::store::{WorktreeRecord, worktree_name_of};

use super::Repo;
use crate::error::CliError;

/// A worktree of the repository inside another worktree's directory.
pub(crate) struct Nested {
    /// Its directory.
    pub(crate) path: PathBuf,
    /// Its record, when it is a worktree loop (else a worktree git alone knows).
    pub(crate) record: Option<WorktreeRecord>,
}

/// `repo` from the checkout where its new worktree loops go: its own top, unless that
/// is a worktree loop's checkout, whose loops go where that loop is (climbing again for
/// a loop an earlier version nested).
pub(crate) fn home(repo: Repo) -> Repo {
    let mut top = repo.top.clone();
    // The record's path is `<checkout>/.ralph/worktrees/<name>` (checked when read).
    while loop_at(&repo, &top).is_some()
        && let Some(checkout) = top.ancestors().nth(3)
    {
        top = checkout.to_path_buf();
    }
    Repo { top, ..repo }
}

/// The worktrees of the repository inside `tree` (not `tree` itself), whether git lists
/// them (`listed`, its checkouts) or only a record names them, each once; the deepest
/// first, so that removing them in that order never removes one whose directory went
/// with another already.
pub(crate) fn inside(
    repo: &Repo,
    tree: &Path,
    listed: &[PathBuf],
) -> Result<Vec<Nested>, CliError> {
    let Ok(tree) = tree.canonicalize() else {
        return Ok(Vec::new());
    };
    let listed = listed.iter().cloned();
    let names = repo
        .records
        .names()
        .map_err(|e| CliError::io("list the worktree loops in", repo.records.path(), e))?;
    // A damaged record names nothing; its worktree, if git lists it, is still found.
    let recorded = names
        .iter()
        .filter_map(|name| repo.records.get(name).ok().flatten())
        .map(|r| r.path);
    let mut found: Vec<Nested> = Vec::new();
    for path in listed.chain(recorded) {
        // A directory that is gone holds nothing to lose.
        let Ok(resolved) = path.canonicalize() else {
            continue;
        };
        if resolved == tree
            || !resolved.starts_with(&tree)
            || found.iter().any(|n| n.path == resolved)
        {
            continue;
        }
        found.push(Nested {
            record: loop_at(repo, &resolved),
            path: resolved,
        });
    }
    found.sort_by_key(|n| std::cmp::Reverse(n.path.components().count()));
    Ok(found)
}

/// The record of the worktree loop whose checkout is `dir`, if it is one. A record that
/// cannot be read counts as none: `dir` is then a worktree git alone knows.
fn loop_at(repo: &Repo, dir: &Path) -> Option<WorktreeRecord> {
    let name = worktree_name_of(dir)?;
    let record = repo.records.get(&name).ok().flatten()?;
    same_dir(&record.path, dir).then_some(record)
}

/// Whether `a` and `b` are the same directory, however each is spelled.
fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
