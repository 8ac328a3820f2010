//! What counts as work not committed in a checkout, for `ralph runs land` and
//! `ralph runs rm`: what `git status` lists there, less what ralph itself makes and
//! nobody wrote:
//! - `.ralph/.gitignore` untracked (ralph writes it in every fresh worktree), or changed
//!   by ralph's own rewrite of the older list a repository committed
//!   (`ralph_core::store::rewritten_by_ralph`);
//! - the agent's empty lock files (`ralph_core::store::AGENT_LOCK_FILES`) untracked,
//!   where `.ralph/.gitignore` does not list them (the user's own, or one written before
//!   it listed them);
//! - the temporary file of one of ralph's atomic writes under `.ralph/` untracked
//!   (`ralph_core::store::is_temporary_name`): an agent's `ralph tools memory add`
//!   killed (with its loop) between writing the new memories and renaming them over the
//!   old ones leaves one, which holds nothing the memories do not.
//!
//! Everything else ralph keeps under `.ralph/` counts like any file: its specs,
//! memories, tasks and scratchpad are versioned by design, and its run files are ignored
//! by `.ralph/.gitignore`.

use std::path::Path;

use ralph_core::store::{
    AGENT_LOCK_FILES, GITIGNORE_FILE, RALPH_DIR, is_temporary_name, rewritten_by_ralph,
};

use super::Repo;
use crate::error::CliError;

/// How many of the changed files a refusal names.
const SHOWN_FILES: usize = 3;

/// The changes git lists in a checkout that are somebody's work.
pub(crate) struct Changes {
    /// Their paths, from the top of the checkout.
    pub(crate) files: Vec<String>,
    /// Whether ralph's own rewrite of `.ralph/.gitignore` was among git's changes (and
    /// left out of `files`): git's rebase refuses it all the same.
    pub(crate) own_gitignore: bool,
}

impl Changes {
    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The first few files, and how many more: `` `a`, `b`, `c` and 2 more ``.
    pub(crate) fn named(&self) -> String {
        let shown: Vec<String> = (self.files.iter().take(SHOWN_FILES))
            .map(|f| format!("`{f}`"))
            .collect();
        let more = self.files.len().saturating_sub(SHOWN_FILES);
        match more {
            0 => shown.join(", "),
            n => format!("{} and {n} more", shown.join(", ")),
        }
    }
}

impl Repo {
    /// The changes in the checkout at `dir` (its top) that are somebody's work: tracked
    /// files changed or staged, and with `untracked`, files git does not ignore.
    pub(crate) fn changes(&self, dir: &Path, untracked: bool) -> Result<Changes, CliError> {
        self.changes_except(dir, untracked, &[])
    }

    /// [`Repo::changes`], not counting what is under `nested` (worktrees inside `dir`,
    /// which git sees as untracked directories there, and which are judged on their own).
    pub(crate) fn changes_except(
        &self,
        dir: &Path,
        untracked: bool,
        nested: &[&Path],
    ) -> Result<Changes, CliError> {
        // Every untracked file listed on its own (not a directory for a whole untracked
        // tree): ralph's own files can then be told from real files beside them.
        let mode = if untracked {
            "--untracked-files=all"
        } else {
            "--untracked-files=no"
        };
        let out = self
            .git
            .ok(dir, &["status", "--porcelain", "-z", mode, "--", "."])?;
        let gitignore = format!("{RALPH_DIR}/{GITIGNORE_FILE}");
        let locks: Vec<String> = (AGENT_LOCK_FILES.iter())
            .map(|f| format!("{RALPH_DIR}/{f}"))
            .collect();
        // Porcelain paths are from the top of the checkout, `/`-separated; the nested
        // paths come resolved.
        let top = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let skipped: Vec<String> = nested
            .iter()
            .filter_map(|p| p.strip_prefix(&top).ok()?.to_str().map(|p| format!("{p}/")))
            .collect();
        let mut changes = Changes {
            files: Vec::new(),
            own_gitignore: false,
        };
        for (status, path) in entries(&out) {
            let ralphs = match status {
                "??" => {
                    path == gitignore || locks.iter().any(|l| *l == path) || ralphs_temporary(path)
                }
                " M" if path == gitignore => self.rewritten_by_ralph(dir, &gitignore),
                _ => false,
            };
            if ralphs {
                changes.own_gitignore |= status == " M";
            } else if !skipped.iter().any(|s| path.starts_with(s.as_str())) {
                changes.files.push(path.to_owned());
            }
        }
        Ok(changes)
    }

    /// Whether `.ralph/.gitignore` (`path`) in the checkout at `dir` differs from what
    /// git has of it only by ralph's own rewrite.
    fn rewritten_by_ralph(&self, dir: &Path, path: &str) -> bool {
        // The index has what HEAD has: git said the file is changed, not staged.
        let committed = self
            .git
            .run(dir, &["cat-file", "blob", &format!(":{path}")]);
        committed.is_ok_and(|c| c.ok() && rewritten_by_ralph(&dir.join(RALPH_DIR), &c.stdout))
    }

    /// The tracked files changed or staged outside `.ralph/` in the checkout at `dir`:
    /// the main checkout, whose scratchpad a plain loop may be writing while a worktree
    /// loop lands there (the fast-forward itself refuses to overwrite them).
    pub(crate) fn changes_outside_ralph(&self, dir: &Path) -> Result<Changes, CliError> {
        let exclude = format!(":(exclude){RALPH_DIR}");
        let out = self.git.ok(
            dir,
            &[
                "status",
                "--porcelain",
                "-z",
                "--untracked-files=no",
                "--",
                ".",
                &exclude,
            ],
        )?;
        Ok(Changes {
            files: entries(&out).map(|(_, path)| path.to_owned()).collect(),
            own_gitignore: false,
        })
    }
}

/// Whether `path` (from the top of the checkout, `/`-separated) is the temporary file of
/// one of ralph's atomic writes under `.ralph/`, which a write killed before its rename
/// leaves behind.
fn ralphs_temporary(path: &str) -> bool {
    let Some(inside) = path
        .strip_prefix(RALPH_DIR)
        .and_then(|p| p.strip_prefix('/'))
    else {
        return false;
    };
    inside.rsplit('/').next().is_some_and(is_temporary_name)
}

/// The entries of `git status --porcelain -z`: each one's two status letters and path.
/// A rename or copy is followed by the path it came from, which is no entry of its own.
fn entries(out: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut fields = out.split('\0');
    std::iter::from_fn(move || {
        let entry = fields.find(|f| !f.is_empty())?;
        let status = entry.get(..2).unwrap_or_default();
        if status.starts_with(['R', 'C']) {
            fields.next();
        }
        Some((status, entry.get(3..).unwrap_or_default()))
    })
}

#[cfg(test)]
#[path = "dirty_tests.rs"]
mod tests;
