//! A cache of successful version probes, so a second `ralph run` starts its agent without
//! waiting for `<agent> --version` (over a second for Node-based CLIs, several under load).
//!
//! One small file per resolved binary path under the user's cache directory
//! (`$XDG_CACHE_HOME/ralph/probes/`, else `~/.cache/ralph/probes/`), never the workspace,
//! which is untrusted. The file holds the whole key: ralph's version, the binary's
//! resolved path, device, inode, size and modification time, and the version arguments.
//! A probe is skipped only when the file's bytes equal the key computed now, so any
//! change to the binary (an upgrade, a reinstall, a replaced symlink target) probes again.
//! Only successes are stored: a failing installation is probed on every run.
//!
//! Reading is bounded and defensive: the file is opened without following links and
//! without blocking, must be a regular file, and is read up to [`MAX_ENTRY_BYTES`]. Any
//! problem reading or writing is a cache miss, never an error. Entries are written to a
//! temporary file in the same directory and renamed into place, so a reader sees either
//! the old entry or the new one.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The largest entry ever read: a key is a few hundred bytes plus the path; anything
/// bigger is not ours.
pub const MAX_ENTRY_BYTES: u64 = 16 * 1024;
/// The cache's folder under the user's cache directory.
const CACHE_SUBDIR: &str = "ralph/probes";
/// The first line of every entry; bumped when the format changes.
const FORMAT_LINE: &str = "ralph probe cache v1";
/// The version the key is tied to: a new ralph may probe differently.
const RALPH_VERSION: &str = env!("CARGO_PKG_VERSION");
/// Private to the user: the cache says which binaries ralph trusts as working.
const DIR_MODE: u32 = 0o700;
const FILE_MODE: u32 = 0o600;

/// Where successful probes are remembered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeCache {
    dir: PathBuf,
}

impl ProbeCache {
    /// A cache in `dir` (tests, benchmarks).
    pub fn in_dir(dir: impl Into<PathBuf>) -> ProbeCache {
        ProbeCache { dir: dir.into() }
    }

    /// The user's cache: `$XDG_CACHE_HOME/ralph/probes`, else `$HOME/.cache/ralph/probes`.
    /// `None` when neither names an absolute directory (relative ones are ignored, as
    /// the XDG specification says, so a workspace-relative cache is impossible).
    pub fn user() -> Option<ProbeCache> {
        let base = ralph_types::user_dirs::cache_dir()?;
        Some(ProbeCache::in_dir(base.join(CACHE_SUBDIR)))
    }

    /// The directory entries live in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether `binary` run with `args` succeeded before, unchanged since.
    pub fn hit(&self, binary: &Path, args: &[&str]) -> bool {
        let Some(key) = entry(binary, args) else {
            return false;
        };
        read_bounded(&self.entry_path(binary)).is_some_and(|stored| stored == key.as_bytes())
    }

    /// Remembers that `binary` run with `args` succeeded. Best effort: a failure to write
    /// only means the next run probes again.
    pub fn store(&self, binary: &Path, args: &[&str]) {
        if let Some(key) = entry(binary, args) {
            let _ = self.write_atomically(&self.entry_path(binary), key.as_bytes());
        }
    }

    /// One file per resolved path, named by a stable hash of it (the file holds the
    /// path itself, so a collision is a miss, not a wrong answer).
    fn entry_path(&self, binary: &Path) -> PathBuf {
        let bytes = binary.as_os_str().as_encoded_bytes();
        self.dir
            .join(format!("{:016x}", ralph_types::user_dirs::fnv1a(bytes)))
    }

    fn write_atomically(&self, target: &Path, bytes: &[u8]) -> std::io::Result<()> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(DIR_MODE)
            .create(&self.dir)?;
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut tmp_name = OsString::from(ralph_types::TEMPORARY_PREFIX);
        tmp_name.push(format!("{}-{nanos}", std::process::id()));
        let tmp = self.dir.join(tmp_name);
        let written = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(FILE_MODE)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)
            .and_then(|mut file| {
                file.write_all(bytes)?;
                file.sync_all()
            })
            .and_then(|()| std::fs::rename(&tmp, target));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written
    }
}

/// The entry `binary` would have now: `None` when it cannot be examined.
fn entry(binary: &Path, args: &[&str]) -> Option<String> {
    let meta = std::fs::metadata(binary).ok()?;
    let mtime = meta
        .modified()
        .ok()?
        .duration_since(UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some(format!(
        "{FORMAT_LINE}\nralph={RALPH_VERSION}\npath={:?}\ndev={}\ninode={}\nsize={}\nmtime_ns={mtime}\nargs={args:?}\nresult=ok\n",
        binary,
        meta.dev(),
        meta.ino(),
        meta.len(),
    ))
}

/// At most [`MAX_ENTRY_BYTES`] of a regular file, opened without following a link and
/// without blocking (a FIFO planted in the cache must not hang ralph).
fn read_bounded(path: &Path) -> Option<Vec<u8>> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    File::take(file, MAX_ENTRY_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= MAX_ENTRY_BYTES).then_some(bytes)
}

#[cfg(test)]
#[path = "probe_cache_tests.rs"]
mod tests;
