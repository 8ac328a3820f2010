//! Commands ralph runs for itself, gates and hooks, through the one supervisor.
//!
//! A gate or hook is a short-lived command in the workspace: its own process group, a
//! total deadline (`timeout_seconds`; no startup or inactivity deadline, since a test
//! suite may print nothing for minutes), TERM then KILL to the whole group, and no
//! orphans, exactly as for an agent. Its output is never held whole: every byte goes to
//! the caller's log file as it arrives, and only a bounded tail (for the failure report)
//! and, when asked, a bounded head of stdout (a hook's JSON answer) stay in memory.

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use ralph_types::Invocation;

use crate::supervise::stderr_tail::StderrTail;
use crate::supervise::{
    Flow, OutputSink, RunDeadlines, SpawnFailure, SpawnSpec, StdinSource, StopRequests,
    Termination, run,
};

/// One command to run.
#[derive(Clone, Debug)]
pub struct CommandRequest {
    pub invocation: Invocation,
    pub cwd: PathBuf,
    /// Added to ralph's own environment.
    pub env: Vec<(OsString, OsString)>,
    /// Bytes written to the command's stdin, which is then closed; `None`: `/dev/null`.
    pub stdin: Option<Vec<u8>>,
    /// The whole run's deadline; past it the group gets TERM, then KILL.
    pub timeout: Duration,
    /// Keep at most this many bytes of stdout (from its start) in the result.
    pub keep_stdout: usize,
    /// Run it with no controlling terminal (see [`SpawnSpec::own_session`]): what it
    /// starts cannot prompt on ralph's terminal, nor freeze trying to.
    pub own_session: bool,
}

/// How a command ended and what it said.
#[derive(Debug)]
pub struct CommandResult {
    pub termination: Termination,
    pub duration: Duration,
    /// Bytes written on stdout and stderr together.
    pub output_bytes: u64,
    /// Lines written on stdout and stderr together, as many as the log has: a last line
    /// without its newline counts too. Counted as the output streams by, since only its
    /// tail is kept.
    pub output_lines: u64,
    /// The start of stdout, at most [`CommandRequest::keep_stdout`] bytes.
    pub stdout: Vec<u8>,
    /// Whether stdout went past what was kept.
    pub stdout_truncated: bool,
    /// Why the log stopped being written, if it did (a full disk, say); the command
    /// itself still ran to its end.
    pub log_error: Option<String>,
    /// The end of stdout and stderr: in the order written when they share a pipe
    /// (`keep_stdout` 0), else interleaved as they reached ralph.
    tail: StderrTail,
}

impl CommandResult {
    /// Exit code 0.
    pub fn passed(&self) -> bool {
        self.termination == Termination::Exited { code: 0 }
    }

    /// The exit code, when the command exited by itself.
    pub fn exit_code(&self) -> Option<i32> {
        match self.termination {
            Termination::Exited { code } => Some(code),
            _ => None,
        }
    }

    /// The last `max_lines` lines of output, at most `max_bytes` long, with terminal
    /// escape sequences removed and each carriage-return overwrite resolved to what a
    /// terminal would show last (progress bars).
    pub fn tail_text(&self, max_lines: usize, max_bytes: usize) -> String {
        output_tail(&self.tail.to_text(), max_lines, max_bytes)
    }

    /// Whether it failed because it asked for input on the terminal, which a command in
    /// a session of its own does not have (see [`crate::terminal_asked`]). The whole
    /// kept tail is read: what follows the failure (a test runner's summary, git's
    /// hints) may push it out of what a message quotes.
    pub fn asked_for_terminal(&self) -> bool {
        !self.passed() && crate::terminal_asked::asked_for_terminal(&self.tail.to_text())
    }
}

/// `text`'s last `max_lines` non-blank lines, at most `max_bytes` long (cut at a
/// character boundary from the front), escape sequences removed.
pub fn output_tail(text: &str, max_lines: usize, max_bytes: usize) -> String {
    let lines: Vec<String> = text
        .lines()
        .map(|line| line.trim_end_matches('\r'))
        // What a terminal shows of `50%\r100%` is what came after the last return (the
        // stripper would drop the return and keep both).
        .map(|line| line.rsplit('\r').next().unwrap_or(line))
        .map(strip_ansi_escapes::strip_str)
        .filter(|line| !line.trim().is_empty())
        .collect();
    let keep = &lines[lines.len().saturating_sub(max_lines)..];
    let mut out = keep.join("\n");
    if out.len() > max_bytes {
        let cut = out.ceil_char_boundary(out.len() - max_bytes);
        out.drain(..cut);
    }
    out
}

/// Runs `request` under supervision, writing its output to `log` as it arrives.
/// Returns when the command and everything it started are gone: at its exit, at its
/// timeout, or at a stop request (Ctrl-C).
pub async fn run_command(
    request: CommandRequest,
    log: Option<&mut dyn Write>,
    stop: StopRequests,
) -> CommandResult {
    let started = Instant::now();
    let mut sink = CommandSink::new(log, request.keep_stdout);
    let Some((program, args)) = request.invocation.program_and_args() else {
        let error = io::Error::new(io::ErrorKind::InvalidInput, "the command is empty");
        return sink.finish(
            Termination::FailedToStart {
                error: SpawnFailure::new(&OsString::new(), &error),
            },
            started.elapsed(),
        );
    };
    let spec = SpawnSpec {
        program: program.into(),
        args: args.into_iter().map(OsString::from).collect(),
        env: request.env,
        cwd: Some(request.cwd),
        stdin: request.stdin.map_or(StdinSource::Null, StdinSource::Bytes),
        pty: false,
        // The log shows what a terminal would, in order, unless stdout is an answer to
        // read apart from stderr (a hook's JSON).
        merge_stderr: request.keep_stdout == 0,
        own_session: request.own_session,
    };
    let deadlines = RunDeadlines {
        wall: Some(request.timeout),
        ..RunDeadlines::none()
    };
    let outcome = run(spec, deadlines, &mut sink, stop).await;
    sink.finish(outcome.termination, outcome.wall)
}

struct CommandSink<'a> {
    log: Option<&'a mut dyn Write>,
    log_error: Option<String>,
    keep_stdout: usize,
    stdout: Vec<u8>,
    stdout_truncated: bool,
    /// Used for both streams: the same bounded ring the supervisor keeps for stderr.
    tail: StderrTail,
    /// Newlines seen in both streams.
    newlines: u64,
    /// Whether the output seen so far ends inside a line (one more line to count).
    open_line: bool,
}

impl<'a> CommandSink<'a> {
    fn new(log: Option<&'a mut dyn Write>, keep_stdout: usize) -> CommandSink<'a> {
        CommandSink {
            log,
            log_error: None,
            keep_stdout,
            stdout: Vec::new(),
            stdout_truncated: false,
            tail: StderrTail::default(),
            newlines: 0,
            open_line: false,
        }
    }

    fn write_log(&mut self, bytes: &[u8]) {
        self.tail.push(bytes);
        self.count_lines(bytes);
        if let Some(log) = self.log.as_mut()
            && let Err(e) = log.write_all(bytes)
        {
            self.log_error = Some(e.to_string());
            self.log = None;
        }
    }

    fn count_lines(&mut self, bytes: &[u8]) {
        let Some(&last) = bytes.last() else {
            return;
        };
        // memchr looks for the newlines with vector instructions: counting them adds
        // little to a gate that prints gigabytes.
        let newlines = memchr::memchr_iter(b'\n', bytes).count();
        self.newlines += u64::try_from(newlines).unwrap_or(u64::MAX);
        self.open_line = last != b'\n';
    }

    fn finish(mut self, termination: Termination, duration: Duration) -> CommandResult {
        if let Some(log) = self.log.as_mut()
            && let Err(e) = log.flush()
        {
            self.log_error = Some(e.to_string());
        }
        CommandResult {
            termination,
            duration,
            output_bytes: self.tail.total(),
            output_lines: self.newlines + u64::from(self.open_line),
            stdout: self.stdout,
            stdout_truncated: self.stdout_truncated,
            log_error: self.log_error,
            tail: self.tail,
        }
    }
}

impl OutputSink for CommandSink<'_> {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        let room = self.keep_stdout.saturating_sub(self.stdout.len());
        self.stdout
            .extend_from_slice(&bytes[..room.min(bytes.len())]);
        self.stdout_truncated |= bytes.len() > room;
        self.write_log(bytes);
        Flow::Continue
    }

    fn on_stderr(&mut self, bytes: &[u8]) {
        self.write_log(bytes);
    }
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;
