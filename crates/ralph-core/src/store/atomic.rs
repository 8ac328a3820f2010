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
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// The mode a new file is created with, before the umask: what `File::create` uses.
const NEW_FILE_MODE: u32 = 0o666;

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
    // A temporary file is private (0600) by default; the file it replaces must not turn
    // private by being rewritten, nor a new one be created unlike any other file the
    // user's umask allows: as `File::create` would (0666 less the umask), or as it was.
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .permissions(std::fs::Permissions::from_mode(NEW_FILE_MODE))
        .tempfile_in(dir)?;
    if let Ok(old) = std::fs::symlink_metadata(path)
        && old.file_type().is_file()
    {
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(
                old.permissions().mode() & 0o7777,
            ))?;
    }
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
