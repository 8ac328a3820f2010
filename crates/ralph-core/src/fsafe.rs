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
//!   but what it points to must still be a regular file ([`Links::Follow`]). On Linux
//!   the check and the open are one `openat2(RESOLVE_NO_SYMLINKS)` from the directory
//!   that holds `.ralph`: an agent that swaps a directory for a link between a check and
//!   an open (it runs while ralph does) cannot win that race, and the open costs one
//!   system call instead of one per directory;
//! - with `O_CLOEXEC`, so no agent inherits the descriptor;
//! - and read up to a documented bound (the `MAX_*` constants), never without end.
//!
//! A refusal is an [`io::Error`] wrapping a [`Refused`], so it passes through the
//! callers' `io::Result`s and reads as a full sentence: what, where, how to fix.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

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
/// The most of the inbox read after an iteration's agent ends, before the iteration is
/// judged, in slices of [`MAX_INBOX_SLICE_BYTES`]: what the agent (and anyone else) wrote
/// while it ran is read whole up to this, so its events past one slice are still its own.
/// Two slices: the iteration's records (`history.jsonl`, `run-events.jsonl`) carry these
/// events, and a record line must stay well under what its readers hold
/// (`run_event::MAX_RECORD_LINE_BYTES`).
pub const MAX_INBOX_ITERATION_BYTES: u64 = 2 * MAX_INBOX_SLICE_BYTES;

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
        "`{}` is {found}, not {expected}{}; replace it with a regular {}",
        .path.display(),
        special_file_reason(found),
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
/// Why a special file is refused: said only of one (a directory where a file should be
/// is simply the wrong thing, and "only regular files and directories" would read as
/// taking it).
fn special_file_reason(found: &str) -> &'static str {
    match found {
        "a directory" | "a regular file" | "a symbolic link" => "",
        _ => {
            ": ralph uses only regular files and directories, so that it never blocks on a \
             pipe or reads a device without end"
        }
    }
}

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

/// How a file is opened: the same switches as [`OpenOptions`], which cannot hand its
/// flags to `openat2`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Access {
    read: bool,
    write: bool,
    append: bool,
    create: bool,
    truncate: bool,
    create_new: bool,
}

impl Access {
    pub fn new() -> Access {
        Access::default()
    }

    pub fn read(&mut self, on: bool) -> &mut Access {
        self.read = on;
        self
    }

    pub fn write(&mut self, on: bool) -> &mut Access {
        self.write = on;
        self
    }

    /// Writes go to the end, as with `O_APPEND` (writing is implied).
    pub fn append(&mut self, on: bool) -> &mut Access {
        self.append = on;
        self
    }

    pub fn create(&mut self, on: bool) -> &mut Access {
        self.create = on;
        self
    }

    pub fn truncate(&mut self, on: bool) -> &mut Access {
        self.truncate = on;
        self
    }

    /// Creates the file, failing with `AlreadyExists` if anything has its name.
    pub fn create_new(&mut self, on: bool) -> &mut Access {
        self.create_new = on;
        self
    }

    fn options(&self) -> OpenOptions {
        let mut options = OpenOptions::new();
        options
            .read(self.read)
            .write(self.write)
            .append(self.append)
            .create(self.create)
            .truncate(self.truncate)
            .create_new(self.create_new);
        options
    }

    /// The `open` flags for this access, as the standard library makes them.
    #[cfg(target_os = "linux")]
    fn oflags(&self) -> OFlag {
        let writes = self.write || self.append;
        let mut flags = match (self.read, writes) {
            (true, true) => OFlag::O_RDWR,
            (false, true) => OFlag::O_WRONLY,
            _ => OFlag::O_RDONLY,
        };
        if self.append {
            flags |= OFlag::O_APPEND;
        }
        if self.create_new {
            flags |= OFlag::O_CREAT | OFlag::O_EXCL;
        } else if self.create {
            flags |= OFlag::O_CREAT;
        }
        if self.truncate && !self.create_new {
            flags |= OFlag::O_TRUNC;
        }
        flags
    }
}

/// Opens `path` with `access` (plus the flags above) and makes sure it is a regular
/// file. A missing file is `NotFound`, as with `File::open`.
pub fn open(path: &Path, access: &Access, links: Links) -> io::Result<File> {
    let file = match beneath::open(path, access, links) {
        Some(opened) => opened?,
        None => {
            if links == Links::Refuse {
                check_ralph_dirs(path)?;
            }
            match access.options().custom_flags(flags(links)).open(path) {
                Ok(file) => file,
                // ELOOP: a link at the name under O_NOFOLLOW. ENXIO: a FIFO without reader
                // (or a socket) opened for writing. EEXIST under O_EXCL is left as it is.
                Err(e) if matches!(e.raw_os_error(), Some(nix::libc::ELOOP | nix::libc::ENXIO)) => {
                    return Err(explain(path, e, links));
                }
                Err(e) => return Err(e),
            }
        }
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

/// Refuses `path` if it is there but is not a regular file (a link is followed): the
/// check [`open`] makes, for a file about to be replaced by name (renamed over) rather
/// than opened. A missing file passes.
pub fn check_replaceable(path: &Path) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.file_type().is_file() => Err(Refused::NotRegular {
            path: path.to_path_buf(),
            found: kind_name(meta.file_type()),
            expected: "a regular file",
        }
        .into_io()),
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Opens `path` for reading.
pub fn open_read(path: &Path, links: Links) -> io::Result<File> {
    open(path, Access::new().read(true), links)
}

/// Creates (or empties) the file at `path` under `.ralph/` for writing, refusing a link.
pub fn create_file(path: &Path) -> io::Result<File> {
    open(
        path,
        Access::new().write(true).create(true).truncate(true),
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
    match make_dir(dir)? {
        Made::Created | Made::Directory => Ok(()),
        // Named as `check_dir` names it (unless it changed meanwhile).
        Made::Other => check_dir(dir).and(Err(io::ErrorKind::AlreadyExists.into())),
    }
}

/// Creates `dir` (not its parents) as [`create_dir`] does, but fails with
/// `AlreadyExists` when anything has the name already: for a name that must be new (a
/// run's directory), where the caller tries another.
pub fn create_new_dir(dir: &Path) -> io::Result<()> {
    match make_dir(dir)? {
        Made::Created => Ok(()),
        Made::Directory | Made::Other => Err(io::ErrorKind::AlreadyExists.into()),
    }
}

/// What [`make_dir`] found at the name.
#[derive(Debug, PartialEq, Eq)]
enum Made {
    Created,
    /// A directory was there already.
    Directory,
    /// Something else (a link, a file) was there.
    Other,
}

/// Makes `dir` in its parent opened by [`open_parent`], so no link swapped in on the way
/// after the check carries the directory elsewhere; what is there already is looked at
/// in that same parent, not again by path.
fn make_dir(dir: &Path) -> io::Result<Made> {
    use nix::errno::Errno;
    use nix::fcntl::AtFlags;
    use nix::sys::stat::{Mode, SFlag, fstatat, mkdirat};
    let name = dir.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("`{}` names no directory to make", dir.display()),
        )
    })?;
    let parent = open_parent(dir)?;
    // 0777 less the umask, as `std::fs::create_dir` makes it.
    match mkdirat(&parent, name, Mode::from_bits_truncate(0o777)) {
        Ok(()) => Ok(Made::Created),
        Err(Errno::EEXIST) => {
            let stat = fstatat(&parent, name, AtFlags::AT_SYMLINK_NOFOLLOW)?;
            let is_dir = SFlag::from_bits_truncate(stat.st_mode) & SFlag::S_IFMT == SFlag::S_IFDIR;
            Ok(if is_dir { Made::Directory } else { Made::Other })
        }
        Err(e) => Err(e.into()),
    }
}

/// Opens the directory that holds `path` (not following a link at any name from
/// `.ralph` on, in one `openat2` where the system has it), so that what is then done in
/// it by name (`openat`, `renameat`) happens there even if a link is swapped in on the
/// way afterwards. Read-only: enough to create, rename and remove names in it, and to
/// flush it to disk.
pub fn open_parent(path: &Path) -> io::Result<std::os::fd::OwnedFd> {
    if let Some(opened) = beneath::parent(path, OFlag::O_RDONLY) {
        return opened;
    }
    check_ralph_dirs(path)?;
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
    Ok(nix::fcntl::open(
        parent,
        flags,
        nix::sys::stat::Mode::empty(),
    )?)
}

/// Appends `line` (ending in a newline) to the file at `path` under `.ralph/`, created if
/// needed, in one write on an `O_APPEND` descriptor, so concurrent writers never
/// interleave. If the file does not end with a newline (a writer died mid-line), the line
/// starts with one, so a torn line spoils only itself and not the next record.
pub fn append_line(path: &Path, line: &[u8]) -> io::Result<()> {
    let mut file = open(
        path,
        Access::new().read(true).append(true).create(true),
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

/// The last `.ralph` directory on the way to `path` (`path` itself not counted).
fn ralph_dir_of(path: &Path) -> Option<&Path> {
    path.parent()?
        .ancestors()
        .find(|p| p.file_name() == Some(std::ffi::OsStr::new(crate::store::RALPH_DIR)))
}

/// `path` as the directory that holds its last `.ralph` and the rest, from `.ralph` on
/// (`/w/.ralph/runs/x` → `/w`, `.ralph/runs/x`; a relative `.ralph/x` → `.`, `.ralph/x`).
#[cfg_attr(
    not(target_os = "linux"),
    allow(dead_code, reason = "openat2 is Linux's")
)]
fn split_at_ralph(path: &Path) -> Option<(&Path, &Path)> {
    let workspace = ralph_dir_of(path)?.parent()?;
    let inside = path.strip_prefix(workspace).ok()?;
    if workspace.as_os_str().is_empty() {
        return Some((Path::new("."), inside));
    }
    Some((workspace, inside))
}

/// The directories between the workspace and `path` that are ralph's own: from the
/// last `.ralph` component on. A link among them would carry a write outside.
pub fn check_ralph_dirs(path: &Path) -> io::Result<()> {
    let (Some(parent), Some(top)) = (path.parent(), ralph_dir_of(path)) else {
        return Ok(());
    };
    let ours: Vec<&Path> = parent
        .ancestors()
        .take_while(|dir| dir.starts_with(top))
        .collect();
    // Outermost first, so the message names the link nearest the workspace.
    for dir in ours.iter().rev() {
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

/// Whether `openat2` answered as unavailable once (an old kernel, a seccomp filter): it
/// is not asked again.
#[cfg_attr(
    not(target_os = "linux"),
    allow(dead_code, reason = "openat2 is Linux's")
)]
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

/// Opening under `.ralph/` with one `openat2` (Linux 5.6).
#[path = "fsafe_beneath.rs"]
mod beneath;

#[cfg(test)]
#[path = "fsafe_tests.rs"]
mod tests;
