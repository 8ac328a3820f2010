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
    pub message: String,
}

impl SpawnFailure {
    /// The failure to start `program` with `error`, with a hint at the usual causes.
    pub fn new(program: &OsStr, error: &io::Error) -> SpawnFailure {
        let hint = match error.kind() {
            io::ErrorKind::NotFound => " (not found on PATH; is it installed?)",
            io::ErrorKind::PermissionDenied => " (not executable; check its permissions)",
            // E2BIG.
            io::ErrorKind::ArgumentListTooLong => " (the command line or environment is too large)",
            _ => "",
        };
        SpawnFailure {
            program: program.to_string_lossy().into_owned(),
            kind: error.kind(),
            message: format!("{error}{hint}"),
        }
    }

    /// The failure to start `program` in the directory `dir` with `error`. The child
    /// reports a working directory that is not there with the same ENOENT as a program
    /// that is not there: when `dir` is gone, that is said, rather than sending the user
    /// to install a program they have.
    pub fn in_dir(program: &OsStr, dir: &Path, error: &io::Error) -> SpawnFailure {
        if error.kind() != io::ErrorKind::NotFound || dir.is_dir() {
            return SpawnFailure::new(program, error);
        }
        SpawnFailure {
            program: program.to_string_lossy().into_owned(),
            kind: error.kind(),
            message: format!(
                "its working directory `{}` does not exist (any more?)",
                dir.display()
            ),
        }
    }
}

#[cfg(test)]
#[path = "termination_tests.rs"]
mod tests;
