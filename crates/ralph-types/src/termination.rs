//! How one agent run ended: the supervisor reports it, the loop judges it.

use std::ffi::OsStr;
use std::fmt;
use std::io;
use std::path::Path;
use std::time::Duration;

/// How the run ended. Exactly one of these; timeouts and stops are distinct so the loop
/// and the user can tell "the agent crashed" from "ralph stopped a hung agent".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// The child exited on its own with this code.
    Exited { code: i32 },
    /// The child was killed by a signal ralph did not send.
    Signaled { signal: i32 },
    /// No stdout byte arrived within the startup deadline; ralph stopped it.
    StartupTimeout,
    /// No stdout byte arrived for the inactivity deadline; ralph stopped it.
    IdleTimeout,
    /// The iteration hit its wall-clock deadline; ralph stopped it.
    WallClockTimeout,
    /// The agent reported its terminal event but did not exit within the exit grace;
    /// ralph stopped it. A success.
    StoppedAfterFinish,
    /// The output sink asked for a stop (e.g. a budget was crossed).
    StoppedByCaller,
    /// A stop request (Ctrl-C) ended the run.
    Interrupted,
    /// The child could not be started.
    FailedToStart { error: SpawnFailure },
    /// The child ended but its exit status could not be collected (something else in the
    /// process reaped it).
    StatusLost,
}

impl Termination {
    /// Why the child could not be started, when it could not.
    pub fn start_failure(&self) -> Option<&SpawnFailure> {
        match self {
            Termination::FailedToStart { error } => Some(error),
            _ => None,
        }
    }

    /// True for a clean exit and for a stop after the agent had finished.
    pub fn is_success(&self) -> bool {
        match self {
            Termination::Exited { code } => *code == 0,
            Termination::StoppedAfterFinish => true,
            Termination::Signaled { .. }
            | Termination::StartupTimeout
            | Termination::IdleTimeout
            | Termination::WallClockTimeout
            | Termination::StoppedByCaller
            | Termination::Interrupted
            | Termination::FailedToStart { .. }
            | Termination::StatusLost => false,
        }
    }
}

impl Termination {
    /// How a command that ralph runs under one time limit of its own (a hook, a backend's
    /// version check) ended, in words. The same as the [`Display`](fmt::Display) of an
    /// agent's run, except a timeout: that is the command's own `timeout`, named with the
    /// setting it comes from when the user can change it (`timed out after 3s
    /// (timeout_seconds)`), never an iteration's wall clock, which the command never had.
    pub fn command_end(&self, timeout: Duration, setting: Option<&str>) -> String {
        match self {
            Termination::WallClockTimeout => {
                // `{}` of an f64 writes 3.0 as `3` and keeps a fraction only when there
                // is one (a limit set in milliseconds, as tests do).
                let after = format!("timed out after {}s", timeout.as_secs_f64());
                match setting {
                    Some(setting) => format!("{after} ({setting})"),
                    None => after,
                }
            }
            other => other.to_string(),
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::Exited { code } => write!(f, "exited with code {code}"),
            Termination::Signaled { signal } => write!(f, "killed by signal {signal}"),
            Termination::StartupTimeout => {
                f.write_str("stopped: no output before the startup timeout")
            }
            Termination::IdleTimeout => {
                f.write_str("stopped: no output for the inactivity timeout")
            }
            Termination::WallClockTimeout => f.write_str("stopped: iteration wall-clock timeout"),
            Termination::StoppedAfterFinish => {
                f.write_str("finished; stopped after the exit grace")
            }
            Termination::StoppedByCaller => f.write_str("stopped by ralph (limit reached)"),
            Termination::Interrupted => f.write_str("interrupted"),
            Termination::FailedToStart { error } => write!(f, "{error}"),
            Termination::StatusLost => f.write_str("ended, but its exit status was lost"),
        }
    }
}

/// Why a child could not be started.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("could not start `{program}`: {message}")]
pub struct SpawnFailure {
    pub program: String,
    pub kind: io::ErrorKind,
    /// The system's error number, when the system gave one: `kind` does not tell every
    /// cause apart (a file that is no program, ENOEXEC, has no kind of its own), and
    /// the loop decides by it whether starting the agent again could go otherwise.
    pub errno: Option<i32>,
    pub message: String,
}

impl SpawnFailure {
    /// The failure to start `program` with `error`, with a hint at the usual causes.
    pub fn new(program: &OsStr, error: &io::Error) -> SpawnFailure {
        SpawnFailure::at(program, None, error)
    }

    /// [`SpawnFailure::new`] for a child started in `dir` (where a relative `program` is).
    fn at(program: &OsStr, dir: Option<&Path>, error: &io::Error) -> SpawnFailure {
        SpawnFailure {
            program: program.to_string_lossy().into_owned(),
            kind: error.kind(),
            errno: error.raw_os_error(),
            message: format!("{error}{}", hint(program, dir, error)),
        }
    }

    /// The failure to start `program` in the directory `dir` with `error`. The child
    /// reports a working directory that is not there with the same ENOENT as a program
    /// that is not there: when `dir` is gone, that is said, rather than sending the user
    /// to install a program they have.
    pub fn in_dir(program: &OsStr, dir: &Path, error: &io::Error) -> SpawnFailure {
        if error.kind() != io::ErrorKind::NotFound || dir.is_dir() {
            return SpawnFailure::at(program, Some(dir), error);
        }
        SpawnFailure {
            program: program.to_string_lossy().into_owned(),
            kind: error.kind(),
            errno: error.raw_os_error(),
            message: format!(
                "its working directory `{}` does not exist (any more?)",
                dir.display()
            ),
        }
    }
}

/// The usual cause of `error` for `program`. The kernel says "not found" both for a
/// program that is not there and for a script whose interpreter is not (a `#!` line
/// that names nothing, or ends in a carriage return: a script saved with Windows line
/// endings), and "permission denied" for a directory too: the file itself tells which.
fn hint(program: &OsStr, dir: Option<&Path>, error: &io::Error) -> String {
    let named = Path::new(program);
    // A bare name was looked up on PATH; anything with a slash is a path.
    let path = (named.components().count() > 1 || named.is_absolute())
        .then(|| dir.map_or_else(|| named.to_path_buf(), |d| d.join(named)));
    match (error.kind(), path) {
        (io::ErrorKind::NotFound, None) => " (not found on PATH; is it installed?)".to_owned(),
        (io::ErrorKind::NotFound, Some(path)) => match interpreter(&path) {
            Some(line) if line.ends_with('\r') => format!(
                " (its first line `#!{}` ends with a carriage return: the script has \
                 Windows line endings; convert it, with `dos2unix` or `sed -i 's/\\r$//'`)",
                line.escape_debug()
            ),
            Some(line) => format!(
                " (its interpreter `{}` was not found)",
                line.split_whitespace().next().unwrap_or_default()
            ),
            None if path.symlink_metadata().is_err() => " (no such file)".to_owned(),
            None => String::new(),
        },
        (io::ErrorKind::PermissionDenied, Some(path)) if path.is_dir() => {
            " (a directory, not a program)".to_owned()
        }
        (io::ErrorKind::PermissionDenied, _) => {
            " (not executable; check its permissions)".to_owned()
        }
        // E2BIG.
        (io::ErrorKind::ArgumentListTooLong, _) => {
            " (the command line or environment is too large)".to_owned()
        }
        _ => String::new(),
    }
}

/// What follows `#!` on the first line of the file at `path`, if it starts so.
fn interpreter(path: &Path) -> Option<String> {
    use std::io::Read as _;
    let mut head = [0u8; SHEBANG_BYTES];
    let file = std::fs::File::open(path).ok()?;
    let n = file.take(SHEBANG_BYTES as u64).read(&mut head).ok()?;
    let line = head[..n]
        .strip_prefix(b"#!")?
        .split(|&b| b == b'\n')
        .next()?;
    Some(String::from_utf8_lossy(line).trim_start().to_owned())
}

/// The most of a script read for its `#!` line (Linux reads at most 256 bytes of it).
const SHEBANG_BYTES: usize = 256;

#[cfg(test)]
#[path = "termination_tests.rs"]
mod tests;
