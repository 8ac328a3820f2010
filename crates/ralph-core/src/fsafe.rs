//! Opening files that someone else may have tampered with.
//!
//! The workspace is untrusted input: a cloned repository or the agent itself can put a
//! symbolic link, a FIFO or a device where ralph expects one of its files. Every file
//! ralph reads or writes under `.ralph/`, and every file a user names (`-P`, `-c`,
//! `prompt_file`, the scratchpad), is opened here:
//! - with `O_NONBLOCK`, so opening a FIFO returns at once instead of waiting for a
//!   writer (a process blocked in `open` ignores Ctrl-C); then `fstat` refuses anything
//!   that is not a regular file (a FIFO, a device such as `/dev/zero`, a socket);
//! - under `.ralph/` with `O_NOFOLLOW`, and with the directories on the way checked not
//!   to be links, so a planted link can never make ralph truncate, create or append to a
//!   file outside the workspace ([`Links::Refuse`]); a link the user named is followed,
//!   but what it points to must still be a regular file ([`Links::Follow`]);
//! - with `O_CLOEXEC`, so no agent inherits the descriptor;
//! - and read up to a documented bound (the `MAX_*` constants), never without end.
//!
//! A refusal is an [`io::Error`] wrapping a [`Refused`], so it passes through the
//! callers' `io::Result`s and reads as a full sentence: what, where, how to fix.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use nix::fcntl::OFlag;

/// The most of a prompt file (`-P FILE`, `event_loop.prompt_file`, `PROMPT.md`) ralph
/// reads: a task description, not a data set (it goes into every prompt).
pub const MAX_PROMPT_FILE_BYTES: u64 = 1024 * 1024;
/// The most of a config file (`ralph.yml`, `-c FILE`, the user config) ralph reads.
pub const MAX_CONFIG_FILE_BYTES: u64 = 1024 * 1024;
/// The most of a run's `state.json` ralph reads back (`--continue`, `ralph events`).
pub const MAX_STATE_FILE_BYTES: u64 = 256 * 1024 * 1024;
/// The most of a run's `history.jsonl` ralph reads back (`ralph events`).
pub const MAX_HISTORY_FILE_BYTES: u64 = 256 * 1024 * 1024;
/// The most of `.ralph/current-run` ralph reads: it holds one run id.
pub const MAX_CURRENT_RUN_BYTES: u64 = 4 * 1024;
/// The most of the inbox read per iteration; what lies past it is read by the next
/// iteration (with a warning), so a flood of events cannot stall the loop.
pub const MAX_INBOX_SLICE_BYTES: u64 = 16 * 1024 * 1024;

/// Whether a link at the file's own name is followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// Under `.ralph/`: a link is refused.
    Refuse,
    /// A file the user named: a link is followed to a regular file.
    Follow,
}

/// Why ralph will not use a file.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error(
        "`{}` is a symbolic link: ralph does not follow links under `.ralph/` (a cloned \
         repository or an agent may have planted it to make ralph write elsewhere); \
         remove the link and try again",
        .path.display()
    )]
    Symlink { path: PathBuf },
    #[error(
        "`{}` is {found}, not {expected}: ralph uses only regular files and directories, \
         so that it never blocks on a pipe or reads a device without end; replace it with \
         a regular {}",
        .path.display(),
        if *.expected == "a directory" { "directory" } else { "file" }
    )]
    NotRegular {
        path: PathBuf,
        found: &'static str,
        expected: &'static str,
    },
    #[error(
        "`{}` is {size} bytes, over the {limit}-byte limit for {what}; make it smaller",
        .path.display()
    )]
    TooLarge {
        path: PathBuf,
        what: &'static str,
        size: u64,
        limit: u64,
    },
}

impl Refused {
    /// The refusal carried by `error`, if it is one.
    pub fn of(error: &io::Error) -> Option<&Refused> {
        error.get_ref()?.downcast_ref()
    }

    fn into_io(self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidInput, self)
    }
}

/// What a file type is called in a message.
fn kind_name(file_type: std::fs::FileType) -> &'static str {
    if file_type.is_fifo() {
        "a FIFO (named pipe)"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_dir() {
        "a directory"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else if file_type.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

fn flags(links: Links) -> i32 {
    let mut flags = OFlag::O_NONBLOCK | OFlag::O_CLOEXEC;
    if links == Links::Refuse {
        flags |= OFlag::O_NOFOLLOW;
    }
    flags.bits()
}

/// Opens `path` with `options` (plus the flags above) and makes sure it is a regular
/// file. A missing file is `NotFound`, as with `File::open`.
pub fn open(path: &Path, options: &mut OpenOptions, links: Links) -> io::Result<File> {
    if links == Links::Refuse {
        check_ralph_dirs(path)?;
    }
    let file = match options.custom_flags(flags(links)).open(path) {
        Ok(file) => file,
        // ELOOP: a link at the name under O_NOFOLLOW. ENXIO: a FIFO without reader (or a
        // socket) opened for writing. EEXIST under O_EXCL is left as it is.
        Err(e) if matches!(e.raw_os_error(), Some(nix::libc::ELOOP | nix::libc::ENXIO)) => {
            return Err(explain(path, e, links));
        }
        Err(e) => return Err(e),
    };
    let file_type = file.metadata()?.file_type();
    if !file_type.is_file() {
        return Err(Refused::NotRegular {
            path: path.to_path_buf(),
            found: kind_name(file_type),
            expected: "a regular file",
        }
        .into_io());
    }
    Ok(file)
}

/// Opens `path` for reading.
pub fn open_read(path: &Path, links: Links) -> io::Result<File> {
    open(path, OpenOptions::new().read(true), links)
}

/// Creates (or empties) the file at `path` under `.ralph/` for writing, refusing a link.
pub fn create_file(path: &Path) -> io::Result<File> {
    open(
        path,
        OpenOptions::new().write(true).create(true).truncate(true),
        Links::Refuse,
    )
}

/// Reads all of `path`, refusing a file over `limit` bytes (`what` names it in the
/// message).
pub fn read_bounded(
    path: &Path,
    links: Links,
    limit: u64,
    what: &'static str,
) -> io::Result<Vec<u8>> {
    let file = open_read(path, links)?;
    let size = file.metadata()?.len();
    let too_large = |size| {
        Refused::TooLarge {
            path: path.to_path_buf(),
            what,
            size,
            limit,
        }
        .into_io()
    };
    if size > limit {
        return Err(too_large(size));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    // The file may grow while it is read: never read past the bound either way.
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// [`read_bounded`] as UTF-8 text.
pub fn read_to_string(
    path: &Path,
    links: Links,
    limit: u64,
    what: &'static str,
) -> io::Result<String> {
    let bytes = read_bounded(path, links, limit, what)?;
    String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Refuses `dir` when it is a link or exists as anything but a directory; `Ok` when it
/// is a directory or does not exist.
pub fn check_dir(dir: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.file_type().is_symlink() => Err(Refused::Symlink {
            path: dir.to_path_buf(),
        }
        .into_io()),
        Ok(meta) if !meta.is_dir() => Err(Refused::NotRegular {
            path: dir.to_path_buf(),
            found: kind_name(meta.file_type()),
            expected: "a directory",
        }
        .into_io()),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Creates `dir` (not its parents), refusing a link or a non-directory at its name;
/// `Ok` when it already is a directory.
pub fn create_dir(dir: &Path) -> io::Result<()> {
    check_ralph_dirs(dir)?;
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => check_dir(dir),
        Err(e) => Err(e),
    }
}

/// Appends `line` (ending in a newline) to the file at `path` under `.ralph/`, created if
/// needed, in one write on an `O_APPEND` descriptor, so concurrent writers never
/// interleave. If the file does not end with a newline (a writer died mid-line), the line
/// starts with one, so a torn line spoils only itself and not the next record.
pub fn append_line(path: &Path, line: &[u8]) -> io::Result<()> {
    let mut file = open(
        path,
        OpenOptions::new().read(true).append(true).create(true),
        Links::Refuse,
    )?;
    let len = file.metadata()?.len();
    let mut last = [0u8; 1];
    let torn = len > 0 && file.read_at(&mut last, len - 1)? == 1 && last[0] != b'\n';
    let mut bytes = Vec::with_capacity(line.len() + 1);
    if torn {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(line);
    // A short write only happens when the disk is full; write_all then finishes the line.
    file.write_all(&bytes)
}

/// The directories between the workspace and `path` that are ralph's own: from the
/// last `.ralph` component on. A link among them would carry a write outside.
pub fn check_ralph_dirs(path: &Path) -> io::Result<()> {
    let Some(parent) = path.parent() else {
        return Ok(());
    };
    let ancestors: Vec<&Path> = parent.ancestors().collect();
    let Some(top) = ancestors
        .iter()
        .position(|p| p.file_name() == Some(std::ffi::OsStr::new(crate::store::RALPH_DIR)))
    else {
        return Ok(());
    };
    // Outermost first, so the message names the link nearest the workspace.
    for dir in ancestors[..=top].iter().rev() {
        check_dir(dir)?;
    }
    Ok(())
}

/// A clearer error than `ELOOP` or `ENXIO` for what is at `path`.
fn explain(path: &Path, error: io::Error, links: Links) -> io::Error {
    let meta = match links {
        Links::Refuse => std::fs::symlink_metadata(path),
        Links::Follow => std::fs::metadata(path),
    };
    match meta {
        Ok(meta) if meta.file_type().is_symlink() => Refused::Symlink {
            path: path.to_path_buf(),
        }
        .into_io(),
        Ok(meta) if !meta.is_file() => Refused::NotRegular {
            path: path.to_path_buf(),
            found: kind_name(meta.file_type()),
            expected: "a regular file",
        }
        .into_io(),
        _ => error,
    }
}

#[cfg(test)]
#[path = "fsafe_tests.rs"]
mod tests;
