//! Which workspace a command typed in a subdirectory means: the nearest directory from
//! there up (to the top of the git checkout) that has a `.ralph/`, unless that one is a
//! stray. A `.ralph/` is left over in a subdirectory easily (an old ralph, a `ralph tools
//! memory add` typed there, a copied folder); taking the nearest one blindly hid the
//! project's runs, gates and memories from every command typed below it.
//!
//! What marks a workspace: a loop running there now; a `ralph.yml` beside its `.ralph/` (a
//! project, a monorepo's package with a loop of its own); a run store (a run under
//! `runs/`, or `current-run`: a loop ran there). A running loop wins, then the nearest
//! project, then the nearest run store, then the nearest `.ralph/` of any kind; when that
//! is not the nearest `.ralph/`, the ones passed over are named, so that nobody wonders
//! where their runs went.

use std::path::{Path, PathBuf};

use ralph_core::config::PROJECT_CONFIG_FILE;
use ralph_core::store::{CURRENT_RUN_FILE, RALPH_DIR, RUNS_DIR, RalphDir, has_git};

/// The workspace found, and the `.ralph/` directories passed over on the way to it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) workspace: PathBuf,
    /// Nearer directories whose `.ralph/` was taken for a stray (nearest first).
    pub(crate) passed_over: Vec<PathBuf>,
}

impl Found {
    /// Why the workspace is not the nearest `.ralph/`, for stderr; `None` when it is.
    pub(crate) fn note(&self) -> Option<String> {
        let nearest = self.passed_over.first()?;
        let why = match mark(nearest) {
            Some(Mark::Runs) => format!(
                "has runs but no {PROJECT_CONFIG_FILE} beside it, under a project that has one"
            ),
            _ => format!("has neither a {PROJECT_CONFIG_FILE} beside it nor any run"),
        };
        Some(format!(
            "note: `{}` {why}: taken for a leftover, the workspace is `{}`. To use the \
             other, set {}={}; remove the leftover to silence this",
            nearest.join(RALPH_DIR).display(),
            self.workspace.display(),
            ralph_types::env::WORKSPACE,
            nearest.display(),
        ))
    }
}

/// What a directory's `.ralph/` says about it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Mark {
    /// A `.ralph/` and nothing that shows a loop ever ran there.
    Bare,
    /// A run store.
    Runs,
    /// A `ralph.yml` beside it.
    Project,
    /// A loop runs there now (its lock is held): whatever else is around, that is where
    /// `steer`, `emit` and `watch` typed beside it must go. `ralph run` typed in a
    /// subdirectory runs there, not in the project above (it only names the project's
    /// `ralph.yml`).
    Running,
}

fn mark(dir: &Path) -> Option<Mark> {
    let ralph = dir.join(RALPH_DIR);
    if !ralph.is_dir() {
        return None;
    }
    let running = RalphDir::in_workspace(dir).loop_running().unwrap_or(false);
    Some(if running {
        Mark::Running
    } else if dir.join(PROJECT_CONFIG_FILE).is_file() {
        Mark::Project
    } else if has_a_run(&ralph.join(RUNS_DIR)) || ralph.join(CURRENT_RUN_FILE).is_file() {
        Mark::Runs
    } else {
        Mark::Bare
    })
}

/// Whether a run store holds a run: an empty `runs/` (made by hand, or left by a tool)
/// shows no loop ever ran there, and must not outweigh a real store above it.
fn has_a_run(runs: &Path) -> bool {
    std::fs::read_dir(runs).is_ok_and(|mut entries| {
        entries.any(|entry| entry.is_ok_and(|e| e.file_type().is_ok_and(|t| t.is_dir())))
    })
}

/// The workspace `cwd` is in: see the module. The search stops at the top of a git
/// checkout (a worktree loop's checkout lies inside the main one's `.ralph/worktrees/`,
/// and must never reach its runs); with no `.ralph/` on the way, `cwd` itself.
pub(crate) fn find(cwd: &Path) -> Found {
    let mut candidates: Vec<(PathBuf, Mark)> = Vec::new();
    for dir in cwd.ancestors() {
        if let Some(mark) = mark(dir) {
            candidates.push((dir.to_path_buf(), mark));
        }
        if has_git(dir) {
            break;
        }
    }
    // The strongest mark, nearest first among equals: `max_by_key` keeps the last of
    // equals, so the list is searched from the top down.
    let Some(best) = (candidates.iter().rev())
        .max_by_key(|(_, mark)| *mark)
        .map(|(dir, _)| dir.clone())
    else {
        return Found {
            workspace: cwd.to_path_buf(),
            passed_over: Vec::new(),
        };
    };
    let passed_over = (candidates.into_iter())
        .map(|(dir, _)| dir)
        .take_while(|dir| *dir != best)
        .collect();
    Found {
        workspace: best,
        passed_over,
    }
}

#[cfg(test)]
#[path = "enclosing_tests.rs"]
mod tests;
