//! `.ralph/.gitignore`: keeps the run files out of commits (an agent's `git add -A`
//! would otherwise take in transcripts and prompts).
//!
//! Written whole, beside the name then renamed over it, so a full disk or a kill never
//! leaves a part of it behind. A file that is missing, empty or a start of what ralph
//! writes (a write cut short, or an older ralph's shorter list) is written again; any
//! other file at the name is left alone: it is somebody's own (a link there is the
//! agent's or a cloned repository's, and is never written through).

use std::io;
use std::path::{Path, PathBuf};

use super::atomic::{Durability, replace};
use crate::fsafe::{self, Links};

/// Its name in `.ralph/`.
pub const GITIGNORE_FILE: &str = ".gitignore";

/// What ralph writes there. New entries go at the end: an older ralph's list is then a
/// start of this one, and is written again whole. The agent's lock files
/// ([`AGENT_LOCK_FILES`]) hold nothing: only the files they lock are versioned.
pub(super) const GITIGNORE: &str = "# ralph's run files (the scratchpad and specs stay versioned)\n\
                                    loop.lock\ncurrent-run\nruns/\nworktrees/\ngates/\n\
                                    agent/memories.md.lock\nagent/tasks.jsonl.lock\n";

/// The empty lock files ralph leaves beside the agent's memories and tasks (see
/// [`crate::file_lock`]), from `.ralph/`: in ralph's `.gitignore` list, and no one's work
/// where an older or the user's own `.ralph/.gitignore` does not list them.
pub const AGENT_LOCK_FILES: [&str; 2] = ["agent/memories.md.lock", "agent/tasks.jsonl.lock"];

/// Writing `.ralph/.gitignore` failed: the run goes on (it only costs tidiness), but
/// `git status` shows the run files until a later run writes it.
#[derive(Debug, thiserror::Error)]
#[error(
    "cannot write `{}`: {source}; until it is written (at the next run) git sees ralph's run \
     files, so a `git add -A` would commit them",
    path.display()
)]
pub struct GitignoreError {
    pub path: PathBuf,
    #[source]
    pub source: io::Error,
}

/// Writes `.ralph/.gitignore` in `root` unless a complete one, or a file ralph did not
/// write, is there.
pub(super) fn ensure(root: &Path) -> Result<(), GitignoreError> {
    let path = root.join(GITIGNORE_FILE);
    let limit = GITIGNORE.len() as u64;
    match fsafe::read_bounded(&path, Links::Refuse, limit, "`.ralph/.gitignore`") {
        Ok(bytes) if !cut_short(&bytes) => return Ok(()),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        // A link, a directory, a larger file, one ralph may not read: not ralph's to
        // replace.
        Err(_) => return Ok(()),
    }
    replace(&path, GITIGNORE.as_bytes(), Durability::Atomic)
        .map_err(|source| GitignoreError { path, source })
}

/// Whether the `.ralph/.gitignore` in `root` is ralph's own rewrite of `committed` (the
/// version git has): what ralph writes, over a start of it that an older ralph wrote.
/// Such a change is ralph's doing, in every fresh checkout of a repository that
/// committed an older list, and holds nobody's work.
pub fn rewritten_by_ralph(root: &Path, committed: &[u8]) -> bool {
    let path = root.join(GITIGNORE_FILE);
    let limit = GITIGNORE.len() as u64;
    let now = fsafe::read_bounded(&path, Links::Refuse, limit, "`.ralph/.gitignore`");
    cut_short(committed) && now.is_ok_and(|now| now == GITIGNORE.as_bytes())
}

/// Whether `bytes` are a strict start of what ralph writes (nothing at all included).
fn cut_short(bytes: &[u8]) -> bool {
    bytes.len() < GITIGNORE.len() && GITIGNORE.as_bytes().starts_with(bytes)
}

#[cfg(test)]
#[path = "gitignore_tests.rs"]
mod tests;
