//! What to run: the program, its arguments, environment, working directory, stdin and
//! whether it gets a terminal.

use std::ffi::OsString;
use std::path::PathBuf;

use super::LiveStdin;

/// What the child reads on stdin. Never a pipe nobody closes: pi and others read a non-TTY
/// stdin to end of file before doing anything, so a pipe left open would hang them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StdinSource {
    /// `/dev/null`: end of file at once.
    Null,
    /// A pipe that receives these bytes (the prompt) and is then closed.
    Bytes(Vec<u8>),
    /// A pipe kept open for commands while the agent runs (steering): it receives what is
    /// queued on the [`LiveStdin`], in order, and is closed when the input is, when the
    /// agent reports its terminal event, before any signal, and at the end of the run.
    /// Only for agents that act on each line as it comes (pi's RPC mode, Claude Code's
    /// stream-json input). One input feeds one run.
    Live(LiveStdin),
}

/// One child process to supervise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpawnSpec {
    /// A name looked up on `PATH`, or a path.
    pub program: OsString,
    pub args: Vec<OsString>,
    /// Added to (or overriding) ralph's own environment.
    pub env: Vec<(OsString, OsString)>,
    pub cwd: Option<PathBuf>,
    pub stdin: StdinSource,
    /// Run on a pseudo-terminal (stdin, stdout and stderr all on it) instead of pipes.
    pub pty: bool,
    /// Send stderr down the stdout pipe (`2>&1`), so that one stream holds both in the
    /// order they were written: for a log read by a person (a gate's). Two pipes can only
    /// be read in the order their bytes reach ralph, which may differ. No stderr is then
    /// read or reported apart.
    pub merge_stderr: bool,
    /// Start the child in a session of its own, with no controlling terminal (`setsid`),
    /// instead of a process group of ralph's session. Nothing it runs can then open
    /// `/dev/tty` (`ENXIO`, at once) or be stopped by the kernel for reading ralph's
    /// terminal from the background (`SIGTTIN`), which would freeze it, unseen, until its
    /// deadline: for commands that must never ask anyone anything (git under the worktree
    /// commands, whose hooks may prompt). The child still leads a process group (the
    /// session's) and is stopped as one. A PTY child always has a session of its own.
    pub own_session: bool,
}

impl SpawnSpec {
    /// A spec with no arguments, no environment additions, stdin at end of file and pipes.
    pub fn new(program: impl Into<OsString>) -> SpawnSpec {
        SpawnSpec {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
            stdin: StdinSource::Null,
            pty: false,
            merge_stderr: false,
            own_session: false,
        }
    }

    /// Appends arguments.
    pub fn args<I, S>(mut self, args: I) -> SpawnSpec
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Adds one environment variable.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> SpawnSpec {
        self.env.push((key.into(), value.into()));
        self
    }

    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> SpawnSpec {
        self.cwd = Some(dir.into());
        self
    }

    pub fn stdin(mut self, stdin: StdinSource) -> SpawnSpec {
        self.stdin = stdin;
        self
    }

    pub fn pty(mut self, pty: bool) -> SpawnSpec {
        self.pty = pty;
        self
    }

    /// See [`SpawnSpec::own_session`].
    pub fn own_session(mut self, own_session: bool) -> SpawnSpec {
        self.own_session = own_session;
        self
    }
}
