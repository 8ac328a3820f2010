//! `.ralph/agent/memories.md` on disk: read under a shared lock, changed under an
//! exclusive one, replaced atomically.
//!
//! The lock is an `flock` on `memories.md.lock` beside the file (waited for a bounded
//! time, see [`crate::file_lock`]), the lock ralph-orchestrator takes too, so both can write the same file at once. Each change
//! reads the file, edits it in place ([`super::render`]) and renames a complete new file
//! over it, so a reader never sees half a write and concurrent `add`s from any number of
//! processes each land whole. Every open goes through [`crate::fsafe`]: no links under
//! `.ralph/`, regular files only, a bounded read.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use nix::fcntl::Flock;

use super::parse::{Outline, Parsed, outline, parse, read_entry};
use super::render::{self, TEMPLATE};
use super::{Memory, MemoryType, TooLarge, date};
use crate::file_lock::{LockKind, lock_file};
use crate::fsafe::{self, Access, Links};
use crate::store::{Durability, RALPH_DIR, replace};

/// The directory of the loop's working memory, under `.ralph/`.
pub const AGENT_DIR: &str = "agent";
/// The memories file's name, in [`AGENT_DIR`].
pub const MEMORIES_FILE: &str = "memories.md";
/// What the lock file's name adds to the file's.
const LOCK_SUFFIX: &str = ".lock";
/// The most of `memories.md` ralph reads: about 100,000 memories of a line or two.
/// `add` never takes the file past it.
pub const MAX_MEMORIES_FILE_BYTES: u64 = 32 * 1024 * 1024;
/// The most `delete` (and a `list` asked for it) reads: past the limit, so that a file
/// that outgrew it (another tool's writes, an editor) can still be looked at and made
/// smaller with ralph; twice the limit, so that what this reads stays bounded.
pub const MAX_MEMORIES_REPAIR_BYTES: u64 = 2 * MAX_MEMORIES_FILE_BYTES;
/// How often a fresh id is drawn when the one drawn is taken (4 hex digits a second).
const ID_ATTEMPTS: u32 = 64;

/// A workspace's memories file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryFile {
    workspace: PathBuf,
    path: PathBuf,
}

/// What `init` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Init {
    Created,
    /// The file existed and `force` was not given: left as it was.
    Exists,
    /// The file existed and was replaced by an empty one.
    Replaced,
}

impl MemoryFile {
    /// `.ralph/agent/memories.md` under `workspace`.
    pub fn in_workspace(workspace: &Path) -> MemoryFile {
        MemoryFile {
            workspace: workspace.to_path_buf(),
            path: workspace
                .join(RALPH_DIR)
                .join(AGENT_DIR)
                .join(MEMORIES_FILE),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn lock_path(&self) -> PathBuf {
        let mut name = self.path.as_os_str().to_owned();
        name.push(LOCK_SUFFIX);
        PathBuf::from(name)
    }

    /// The file's text and what it holds; empty when it does not exist. Takes the shared
    /// lock when the lock file exists (a writer that rewrites in place, as older
    /// ralph-orchestrator versions do, holds the exclusive one meanwhile).
    pub fn read(&self) -> io::Result<(String, Parsed)> {
        self.read_within(MAX_MEMORIES_FILE_BYTES)
    }

    /// [`MemoryFile::read`] of a file up to `limit` bytes (at most
    /// [`MAX_MEMORIES_REPAIR_BYTES`]): `list` shows a file that outgrew the limit, so
    /// that a person can choose what to delete.
    pub fn read_within(&self, limit: u64) -> io::Result<(String, Parsed)> {
        let _lock = self.lock_shared()?;
        let text = self.read_text(limit.min(MAX_MEMORIES_REPAIR_BYTES))?;
        let parsed = parse(&text);
        Ok((text, parsed))
    }

    /// The file's text (empty when it does not exist), read under the shared lock as
    /// [`MemoryFile::read`] does; [`super::outline`] finds one entry in it without
    /// reading the others.
    pub fn read_shared(&self) -> io::Result<String> {
        let _lock = self.lock_shared()?;
        self.read_text(MAX_MEMORIES_FILE_BYTES)
    }

    /// The shared lock, when the lock file exists.
    fn lock_shared(&self) -> io::Result<Option<Flock<File>>> {
        match fsafe::open_read(&self.lock_path(), Links::Refuse) {
            Ok(file) => Ok(Some(
                lock_file(file, LockKind::Shared, &self.lock_path())
                    .map_err(|e| self.lock_error(e))?,
            )),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.lock_error(e)),
        }
    }

    /// The text, refused past `limit` bytes with what to do about it.
    fn read_text(&self, limit: u64) -> io::Result<String> {
        match fsafe::read_to_string(&self.path, Links::Refuse, limit, "the memories file") {
            Ok(text) => Ok(text),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(String::new()),
            Err(e) => match fsafe::Refused::of(&e) {
                Some(fsafe::Refused::TooLarge { size, .. }) => Err(TooLarge::File {
                    size: *size,
                    limit: MAX_MEMORIES_FILE_BYTES,
                    repair: MAX_MEMORIES_REPAIR_BYTES,
                }
                .into_io()),
                _ => Err(e),
            },
        }
    }

    /// Creates `.ralph/agent/` if needed and takes the exclusive lock.
    fn lock_exclusive(&self) -> io::Result<Flock<File>> {
        let ralph = self.workspace.join(RALPH_DIR);
        for dir in [ralph.clone(), ralph.join(AGENT_DIR)] {
            fsafe::create_dir(&dir).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot create the directory `{}`: {e}", dir.display()),
                )
            })?;
        }
        let file = fsafe::open(
            &self.lock_path(),
            Access::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false),
            Links::Refuse,
        )
        .map_err(|e| self.lock_error(e))?;
        lock_file(file, LockKind::Exclusive, &self.lock_path()).map_err(|e| self.lock_error(e))
    }

    /// `e`, saying that it is the lock file that failed: callers name the memories file
    /// itself, which may well be fine.
    fn lock_error(&self, e: io::Error) -> io::Error {
        io::Error::new(
            e.kind(),
            format!("cannot use its lock `{}`: {e}", self.lock_path().display()),
        )
    }

    /// Stores a new memory written `now`, at the top of its section, and returns it.
    pub fn add(
        &self,
        memory_type: MemoryType,
        content: &str,
        tags: Vec<String>,
        now: SystemTime,
    ) -> io::Result<Memory> {
        let _lock = self.lock_exclusive()?;
        let text = self.read_text(MAX_MEMORIES_FILE_BYTES)?;
        let outline = outline(&text);
        let memory = Memory {
            id: fresh_id(&outline, now)?,
            memory_type,
            content: render::content_lines(content)
                .collect::<Vec<_>>()
                .join("\n"),
            tags,
            created: date::ymd(date::day_number(now)),
        };
        let new = render::insert(&text, &outline.sections, &memory);
        // A file past the limit would lose every memory from the prompt, and lock out
        // every command but `delete`: it is refused here, before it is written.
        let size = new.len() as u64;
        if size > MAX_MEMORIES_FILE_BYTES {
            return Err(TooLarge::Add {
                adding: size.saturating_sub(text.len() as u64),
                size,
                limit: MAX_MEMORIES_FILE_BYTES,
            }
            .into_io());
        }
        replace(&self.path, new.as_bytes(), Durability::Atomic)?;
        Ok(memory)
    }

    /// Deletes the memory with this id; `None` when there is none. Works on a file up
    /// to [`MAX_MEMORIES_REPAIR_BYTES`]: deleting is how one that outgrew the limit is
    /// made smaller again.
    pub fn delete(&self, id: &str) -> io::Result<Option<Memory>> {
        let _lock = self.lock_exclusive()?;
        let text = self.read_text(MAX_MEMORIES_REPAIR_BYTES)?;
        let outline = outline(&text);
        let Some(slot) = outline.find(id) else {
            return Ok(None);
        };
        replace(
            &self.path,
            render::remove(&text, slot.span.clone()).as_bytes(),
            Durability::Atomic,
        )?;
        Ok(Some(read_entry(&text, slot)))
    }

    /// Writes an empty memories file; an existing one is kept unless `force`.
    pub fn init(&self, force: bool) -> io::Result<Init> {
        let _lock = self.lock_exclusive()?;
        let exists = match fsafe::open_read(&self.path, Links::Refuse) {
            Ok(_) => true,
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => return Err(e),
        };
        if exists && !force {
            return Ok(Init::Exists);
        }
        replace(&self.path, TEMPLATE.as_bytes(), Durability::Atomic)?;
        Ok(if exists {
            Init::Replaced
        } else {
            Init::Created
        })
    }
}

/// An id no memory in `outline` has: `mem-<seconds>-<4 hex digits>`, the digits drawn
/// from the time, the process and the attempt.
fn fresh_id(outline: &Outline<'_>, now: SystemTime) -> io::Result<String> {
    let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    for attempt in 0..ID_ATTEMPTS {
        let seed = format!("{}:{}:{attempt}", since.as_nanos(), std::process::id());
        let digits = ralph_types::user_dirs::fnv1a(seed.as_bytes());
        let id = format!("mem-{}-{:04x}", since.as_secs(), digits & 0xffff);
        if outline.find(&id).is_none() {
            return Ok(id);
        }
    }
    Err(io::Error::other(
        "could not draw a memory id no memory has; try again in a second",
    ))
}
