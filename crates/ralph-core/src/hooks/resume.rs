//! The signal that ends a suspension: `ralph hooks resume` writes
//! `.ralph/resume-requested` (the file ralph-orchestrator uses, so `touch
//! .ralph/resume-requested` works as well); the suspended loop takes it and goes on.
//!
//! While a hook holds the loop, `.ralph/hook-suspended` names it, so `ralph hooks
//! resume` can say what it resumes and refuse when nothing waits. Both files are
//! written and read through [`crate::fsafe`]: no link under `.ralph/` is
//! followed, and only a regular file counts as a request.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::fsafe::{self, Access, Links};

/// The request file, under `.ralph/`.
pub const RESUME_FILE: &str = "resume-requested";
/// The marker of a suspended loop, under `.ralph/`: `<phase> <hook name>`.
pub const SUSPENDED_FILE: &str = "hook-suspended";
/// The most of the marker read back.
const MAX_SUSPENDED_BYTES: u64 = 4096;

/// The two files of one workspace's `.ralph/`.
#[derive(Debug, Clone)]
pub struct ResumeSignal {
    ralph_dir: PathBuf,
}

impl ResumeSignal {
    pub fn new(ralph_dir: &Path) -> ResumeSignal {
        ResumeSignal {
            ralph_dir: ralph_dir.to_path_buf(),
        }
    }

    fn request_path(&self) -> PathBuf {
        self.ralph_dir.join(RESUME_FILE)
    }

    fn marker_path(&self) -> PathBuf {
        self.ralph_dir.join(SUSPENDED_FILE)
    }

    /// Asks the suspended loop to go on.
    pub fn request(&self) -> io::Result<()> {
        write(&self.request_path(), b"resume\n")
    }

    /// Whether a request is waiting; takes it if so. A link or anything but a regular
    /// file at the name is no request.
    pub fn take(&self) -> io::Result<bool> {
        let path = self.request_path();
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_file() => {
                remove(&path)?;
                Ok(true)
            }
            Ok(_) => Ok(false),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Marks the loop suspended by `what` (`pre.loop.start env-guard`) and drops a
    /// request left from before, which must not end this suspension at once.
    pub fn suspend(&self, what: &str) -> io::Result<()> {
        fsafe::check_ralph_dirs(&self.request_path())?;
        self.take()?;
        write(&self.marker_path(), format!("{what}\n").as_bytes())
    }

    /// Ends the suspension's marker.
    pub fn clear(&self) -> io::Result<()> {
        remove(&self.marker_path())
    }

    /// What suspends the loop, if something does.
    pub fn suspended(&self) -> io::Result<Option<String>> {
        match fsafe::read_to_string(
            &self.marker_path(),
            Links::Refuse,
            MAX_SUSPENDED_BYTES,
            "the suspended-hook marker",
        ) {
            Ok(text) => Ok(Some(text.trim().to_owned())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}

fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = fsafe::open(
        path,
        Access::new().write(true).create(true).truncate(true),
        Links::Refuse,
    )?;
    file.write_all(bytes)
}

/// Removes the name (a link is removed, never followed); a missing file is fine.
fn remove(path: &Path) -> io::Result<()> {
    fsafe::check_ralph_dirs(path)?;
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
#[path = "resume_tests.rs"]
mod tests;
