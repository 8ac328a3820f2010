//! Replacing a file so that a crash leaves either the old or the new content, never a
//! mix: write a temporary file in the same directory, then rename it over the target.
//!
//! Neither step follows a link: the temporary file is created with `O_EXCL` (which
//! refuses any existing name, a link included), the rename replaces a link at the target's
//! name instead of writing through it, and the directories under `.ralph/` on the way are
//! checked not to be links first.
//!
//! Durability (fsync) is separate and optional: a process crash cannot lose what was
//! written (it is in the page cache), only a power loss can. Files rewritten after every
//! iteration skip it, so an iteration does not wait for the disk; the final state and
//! summary of a run ask for it.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

/// Whether to wait until the new content is on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// Atomic against crashes of ralph; may be lost on power loss.
    Atomic,
    /// Also flushed to disk (file and directory) before returning.
    Durable,
}

/// Replaces `path` with `bytes` (see the module documentation).
pub fn replace(path: &Path, bytes: &[u8], durability: Durability) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    crate::fsafe::check_ralph_dirs(path)?;
    let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    if durability == Durability::Durable {
        tmp.as_file().sync_all()?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    if durability == Durability::Durable {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "atomic_tests.rs"]
mod tests;
