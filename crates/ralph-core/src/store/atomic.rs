//! Replacing a file so that a crash leaves either the old or the new content, never a
//! mix: write a temporary file in the same directory, then rename it over the target.
//!
//! Neither step follows a link: the temporary file is created with `O_EXCL` (which
//! refuses any existing name, a link included), the rename replaces a link at the target's
//! name instead of writing through it, and the directories under `.ralph/` on the way are
//! checked not to be links first.
//!
//! [`rewrite`] is for a file rewritten after every iteration (`state.json`): it keeps
//! the previous version in a hidden spare beside it, writes the new content into the
//! spare and swaps the two names in one `renameat2(RENAME_EXCHANGE)`. Readers still see
//! the old or the new content whole, and no inode is created or freed per write. On ext4
//! without a journal a new inode skips every inode of its group freed in the last minute
//! or more, one buffer lookup each, so a loop that freed one per iteration made each of
//! its later files slower to create: about a third of a millisecond per iteration after
//! a thousand iterations. Where the swap is not available, [`rewrite`] is [`replace`].
//!
//! Durability (fsync) is separate and optional: a process crash cannot lose what was
//! written (it is in the page cache), only a power loss can. Files rewritten after every
//! iteration skip it, so an iteration does not wait for the disk; the final state and
//! summary of a run ask for it.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::{FileExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::fsafe::{self, Access, Links};

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

/// Replaces `path` with `bytes` by swapping it with its spare (see the module
/// documentation), or as [`replace`] does where that cannot be done.
pub fn rewrite(path: &Path, bytes: &[u8], durability: Durability) -> io::Result<()> {
    let spare = spare_of(path);
    match swap(path, &spare, bytes, durability) {
        Ok(()) => Ok(()),
        Err(Unswapped::Fatal(e)) => Err(e),
        Err(Unswapped::Unavailable) => replace(path, bytes, durability),
        Err(Unswapped::Fallback) => {
            // Whatever is at the spare's name (a planted link, a directory, a spare this
            // filesystem cannot swap) is not ralph's to write through: step around it.
            // `replace` first makes sure no directory on the way is a link, so the name
            // is then removed inside the run's directory.
            replace(path, bytes, durability)?;
            let _ = std::fs::remove_file(&spare);
            Ok(())
        }
    }
}

/// The spare beside `path`: `.<name>.spare`, hidden like the temporary files.
pub fn spare_of(path: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(".spare");
    path.with_file_name(name)
}

enum Unswapped {
    /// No swap is tried here (this build, or a filesystem that refused one before).
    Unavailable,
    /// Nothing was changed at `path`: do it another way.
    Fallback,
    /// Writing failed (a full disk, a refused directory): no other way will do better.
    Fatal(io::Error),
}

fn swap(
    path: &Path,
    spare_path: &Path,
    bytes: &[u8],
    durability: Durability,
) -> Result<(), Unswapped> {
    if !SWAPS || CANNOT_SWAP.load(Ordering::Relaxed) {
        return Err(Unswapped::Unavailable);
    }
    // `fsafe::open` refuses a link on the way to the spare, and with it the swap.
    let open = |access: &Access| fsafe::open(spare_path, access, Links::Refuse);
    let spare = match open(Access::new().write(true).create_new(true)) {
        Ok(spare) => {
            // New, so it takes the mode of the file it stands in for, as `replace` keeps it.
            if let Ok(old) = std::fs::symlink_metadata(path)
                && old.file_type().is_file()
            {
                spare
                    .set_permissions(std::fs::Permissions::from_mode(
                        old.permissions().mode() & 0o7777,
                    ))
                    .map_err(Unswapped::Fatal)?;
            }
            spare
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            open(Access::new().write(true)).map_err(|_| Unswapped::Fallback)?
        }
        Err(_) => return Err(Unswapped::Fallback),
    };
    // A second name for the spare (a hard link an agent made) would carry the write to
    // another file: write none through it.
    if std::os::unix::fs::MetadataExt::nlink(&spare.metadata().map_err(Unswapped::Fatal)?) != 1 {
        return Err(Unswapped::Fallback);
    }
    let len = bytes.len() as u64;
    // Written over, then cut to length: shrinking the file frees no block that the next,
    // similar write would allocate again.
    spare.write_all_at(bytes, 0).map_err(Unswapped::Fatal)?;
    spare.set_len(len).map_err(Unswapped::Fatal)?;
    if durability == Durability::Durable {
        spare.sync_all().map_err(Unswapped::Fatal)?;
    }
    drop(spare);
    exchange(spare_path, path)?;
    if durability == Durability::Durable {
        let dir = path.parent().unwrap_or(Path::new("."));
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(Unswapped::Fatal)?;
    }
    Ok(())
}

/// Whether this build can swap two names (nix offers `renameat2` with glibc only).
const SWAPS: bool = cfg!(all(target_os = "linux", target_env = "gnu"));

/// Set once the kernel or the filesystem refused a swap: from then on every rewrite is a
/// [`replace`] straight away, not a spare written and removed each time. One run keeps
/// its files on one filesystem.
static CANNOT_SWAP: AtomicBool = AtomicBool::new(false);

/// Swaps the names `a` and `b`; when `b` does not exist yet, `a` takes its name.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn exchange(a: &Path, b: &Path) -> Result<(), Unswapped> {
    use nix::errno::Errno;
    use nix::fcntl::{AT_FDCWD, RenameFlags, renameat2};
    match renameat2(AT_FDCWD, a, AT_FDCWD, b, RenameFlags::RENAME_EXCHANGE) {
        Ok(()) => Ok(()),
        // No file at `b` yet (or the spare vanished, and the rename fails too).
        Err(Errno::ENOENT) => std::fs::rename(a, b).map_err(|_| Unswapped::Fallback),
        // EINVAL: a filesystem without the exchange; ENOSYS: a kernel or a seccomp
        // filter without renameat2. Asked again it would answer the same.
        Err(Errno::EINVAL | Errno::ENOSYS | Errno::EOPNOTSUPP) => {
            CANNOT_SWAP.store(true, Ordering::Relaxed);
            Err(Unswapped::Fallback)
        }
        Err(_) => Err(Unswapped::Fallback),
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn exchange(_: &Path, _: &Path) -> Result<(), Unswapped> {
    Err(Unswapped::Unavailable)
}

#[cfg(test)]
#[path = "atomic_tests.rs"]
mod tests;
