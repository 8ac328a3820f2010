//! Replacing a file so that a crash leaves either the old or the new content, never a
//! mix: write a temporary file in the same directory, then rename it over the target.
//!
//! Neither step follows a link. The directory that holds the file is opened once
//! ([`fsafe::open_parent`]: no link at any name from `.ralph` on, checked by the kernel in
//! the same call on Linux), and every later step names a file in that directory, not a
//! path: the temporary file is created there with `O_EXCL` (which refuses any existing
//! name, a link included), and the rename replaces a link at the target's name instead
//! of writing through it. An agent that swaps a directory on the way for a link after
//! the check (it runs while ralph does) moves nothing outside: the open directory is
//! the one that was checked.
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

use std::ffi::OsStr;
use std::fs::File;
use std::hash::{BuildHasher, RandomState};
use std::io::{self, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::{FileExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag, openat, renameat};
use nix::sys::stat::{Mode, SFlag, fstatat};
use nix::unistd::{UnlinkatFlags, fsync, unlinkat};

use crate::fsafe;

/// The mode a new file is created with, before the umask: what `File::create` uses.
const NEW_FILE_MODE: u32 = 0o666;

/// How many names a temporary file tries before giving up: each is random, so a second
/// is needed only when something else made the first meanwhile.
const TEMPORARY_NAME_TRIES: u32 = 16;

/// How the name of a temporary file of an atomic write starts (hex digits follow): the
/// one prefix of every crate's temporary files.
pub use ralph_types::TEMPORARY_PREFIX;
/// How many hex digits follow [`TEMPORARY_PREFIX`]: a 64-bit random number.
const TEMPORARY_DIGITS: usize = 16;

/// Whether `name` (a file name, no directory) is one ralph gives a temporary file of an
/// atomic write ([`replace`], [`rewrite`]'s first write): a write killed before its
/// rename leaves it behind. Exactly ralph's form, so that a user's `.tmp-notes` is not
/// taken for one.
pub fn is_temporary_name(name: &str) -> bool {
    name.strip_prefix(TEMPORARY_PREFIX).is_some_and(|digits| {
        digits.len() == TEMPORARY_DIGITS && digits.bytes().all(|b| b.is_ascii_hexdigit())
    })
}

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
    let name = file_name(path)?;
    let dir = fsafe::open_parent(path)?;
    replace_in(&dir, name, bytes, durability)
}

/// [`replace`] of the file `name` in the open directory `dir`.
fn replace_in(dir: &OwnedFd, name: &OsStr, bytes: &[u8], durability: Durability) -> io::Result<()> {
    let (temporary, mut file) = create_temporary(dir)?;
    let written = (|| {
        // A new file must not turn up unlike any other the user's umask allows, nor a
        // rewritten one change its mode: it keeps the mode it had.
        if let Some(mode) = mode_of(dir, name) {
            file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        file.write_all(bytes)?;
        if durability == Durability::Durable {
            file.sync_all()?;
        }
        renameat(dir, temporary.as_str(), dir, name).map_err(io::Error::from)
    })();
    if written.is_err() {
        let _ = unlinkat(dir, temporary.as_str(), UnlinkatFlags::NoRemoveDir);
    }
    written?;
    if durability == Durability::Durable {
        fsync(dir)?;
    }
    Ok(())
}

/// A new, empty file with a random hidden name (`.tmp-…`) in `dir`, and that name.
fn create_temporary(dir: &OwnedFd) -> io::Result<(String, File)> {
    let flags =
        OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    let mut tries = 0;
    loop {
        let random = RandomState::new().hash_one(tries);
        let name = format!(
            "{TEMPORARY_PREFIX}{random:0width$x}",
            width = TEMPORARY_DIGITS
        );
        match openat(
            dir,
            name.as_str(),
            flags,
            Mode::from_bits_truncate(NEW_FILE_MODE),
        ) {
            Ok(fd) => return Ok((name, File::from(fd))),
            Err(Errno::EEXIST) if tries + 1 < TEMPORARY_NAME_TRIES => tries += 1,
            Err(e) => return Err(e.into()),
        }
    }
}

/// The permission bits of the regular file `name` in `dir`, if that is what is there.
#[allow(
    clippy::useless_conversion,
    reason = "`mode_t` is a u16 on some systems"
)]
fn mode_of(dir: &OwnedFd, name: &OsStr) -> Option<u32> {
    let stat = fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW).ok()?;
    let regular = SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG;
    regular.then_some(u32::from(stat.st_mode) & 0o7777)
}

/// The last component of `path`: the file a replace names in its directory.
fn file_name(path: &Path) -> io::Result<&OsStr> {
    path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("`{}` names no file to write", path.display()),
        )
    })
}

/// Replaces `path` with `bytes` by swapping it with its spare (see the module
/// documentation), or as [`replace`] does where that cannot be done.
pub fn rewrite(path: &Path, bytes: &[u8], durability: Durability) -> io::Result<()> {
    let name = file_name(path)?;
    let dir = fsafe::open_parent(path)?;
    let spare = spare_name(name);
    match swap(&dir, name, &spare, bytes, durability) {
        Ok(()) => Ok(()),
        Err(Unswapped::Fatal(e)) => Err(e),
        Err(Unswapped::Unavailable) => replace_in(&dir, name, bytes, durability),
        Err(Unswapped::Fallback) => {
            // Whatever is at the spare's name (a planted link, a directory, a spare this
            // filesystem cannot swap) is not ralph's to write through: step around it,
            // and remove the name in the run's directory.
            replace_in(&dir, name, bytes, durability)?;
            let _ = unlinkat(&dir, spare.as_os_str(), UnlinkatFlags::NoRemoveDir);
            Ok(())
        }
    }
}

/// The spare beside `path`: `.<name>.spare`, hidden like the temporary files.
pub fn spare_of(path: &Path) -> PathBuf {
    path.with_file_name(spare_name(path.file_name().unwrap_or_default()))
}

fn spare_name(name: &OsStr) -> std::ffi::OsString {
    let mut spare = std::ffi::OsString::from(".");
    spare.push(name);
    spare.push(".spare");
    spare
}

enum Unswapped {
    /// No swap is tried here (this build, or a filesystem that refused one before).
    Unavailable,
    /// Nothing was changed at `name`: do it another way.
    Fallback,
    /// Writing failed (a full disk, a refused directory): no other way will do better.
    Fatal(io::Error),
}

/// Writes `bytes` into the spare `spare` of `name` in `dir`, and swaps the two names.
fn swap(
    dir: &OwnedFd,
    name: &OsStr,
    spare: &OsStr,
    bytes: &[u8],
    durability: Durability,
) -> Result<(), Unswapped> {
    if !SWAPS || CANNOT_SWAP.load(Ordering::Relaxed) {
        return Err(Unswapped::Unavailable);
    }
    // Never through a link at the spare's name, never blocking on a FIFO there.
    let flags = OFlag::O_WRONLY | OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
    let mode = Mode::from_bits_truncate(NEW_FILE_MODE);
    let file = match openat(dir, spare, flags | OFlag::O_CREAT | OFlag::O_EXCL, mode) {
        Ok(fd) => {
            // New, so it takes the mode of the file it stands in for, as `replace` keeps it.
            let file = File::from(fd);
            if let Some(mode) = mode_of(dir, name) {
                file.set_permissions(std::fs::Permissions::from_mode(mode))
                    .map_err(Unswapped::Fatal)?;
            }
            file
        }
        Err(Errno::EEXIST) => {
            File::from(openat(dir, spare, flags, mode).map_err(|_| Unswapped::Fallback)?)
        }
        Err(_) => return Err(Unswapped::Fallback),
    };
    let meta = file.metadata().map_err(Unswapped::Fatal)?;
    // Only a regular file is written; a second name for the spare (a hard link an agent
    // made) would carry the write to another file: write none through it.
    if !meta.file_type().is_file() || std::os::unix::fs::MetadataExt::nlink(&meta) != 1 {
        return Err(Unswapped::Fallback);
    }
    let len = bytes.len() as u64;
    // Written over, then cut to length: shrinking the file frees no block that the next,
    // similar write would allocate again.
    file.write_all_at(bytes, 0).map_err(Unswapped::Fatal)?;
    file.set_len(len).map_err(Unswapped::Fatal)?;
    if durability == Durability::Durable {
        file.sync_all().map_err(Unswapped::Fatal)?;
    }
    drop(file);
    exchange(dir, spare, name)?;
    if durability == Durability::Durable {
        fsync(dir).map_err(|e| Unswapped::Fatal(e.into()))?;
    }
    Ok(())
}

/// Whether this build can swap two names (nix offers `renameat2` with glibc only).
const SWAPS: bool = cfg!(all(target_os = "linux", target_env = "gnu"));

/// Set once the kernel or the filesystem refused a swap: from then on every rewrite is a
/// [`replace`] straight away, not a spare written and removed each time. One run keeps
/// its files on one filesystem.
static CANNOT_SWAP: AtomicBool = AtomicBool::new(false);

/// Swaps the names `a` and `b` in `dir`; when `b` does not exist yet, `a` takes its name.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn exchange(dir: &OwnedFd, a: &OsStr, b: &OsStr) -> Result<(), Unswapped> {
    use nix::fcntl::{RenameFlags, renameat2};
    match renameat2(dir, a, dir, b, RenameFlags::RENAME_EXCHANGE) {
        Ok(()) => Ok(()),
        // No file at `b` yet (or the spare vanished, and the rename fails too).
        Err(Errno::ENOENT) => renameat(dir, a, dir, b).map_err(|_| Unswapped::Fallback),
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
fn exchange(_: &OwnedFd, _: &OsStr, _: &OsStr) -> Result<(), Unswapped> {
    Err(Unswapped::Unavailable)
}

#[cfg(test)]
#[path = "atomic_tests.rs"]
mod tests;
