//! Running `git` for the worktree commands: through the one command runner
//! (`ralph_agent::command::run_command`: own process group, a deadline, no orphans),
//! and again, after a growing pause, when git fails because one of its own `*.lock`
//! files is held (`index.lock`, `config.lock`, `packed-refs.lock`, a ref's lock) by
//! another git process: an agent's `git commit` in the main checkout, say. ralph's own
//! worktree commands queue on the repository lock (`lock.rs`) instead.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ralph_agent::command::{CommandRequest, run_command};
use ralph_agent::{StopController, StopLevel};
use ralph_types::Invocation;

use crate::diagnostic::diagnostic;
use crate::error::CliError;

/// The longest one git command may take (a `worktree add` checks out the whole tree).
const GIT_TIMEOUT: Duration = Duration::from_secs(300);
/// How long a git command runs before ralph says it still runs: past it, what runs is
/// most likely one of the repository's hooks, filters or its fsmonitor, and the user
/// should know why nothing happens.
const GIT_NOTICE_AFTER: Duration = Duration::from_secs(3);
/// The most of git's stdout kept (file lists, `worktree list`).
const GIT_STDOUT_BYTES: usize = 8 * 1024 * 1024;
/// How long git's lock contention is retried before its failure stands.
const LOCK_RETRY_FOR: Duration = Duration::from_secs(30);
/// The first pause before a retry; each next one doubles, up to [`LOCK_RETRY_MAX_PAUSE`].
const LOCK_RETRY_FIRST_PAUSE: Duration = Duration::from_millis(25);
const LOCK_RETRY_MAX_PAUSE: Duration = Duration::from_secs(1);
/// The most of git's output quoted in an error.
const ERROR_LINES: usize = 12;
const ERROR_BYTES: usize = 2048;
/// Added to a failed git's output when one of its hooks could not open the terminal.
const WANTED_TERMINAL: &str = "(a hook of the repository wanted the terminal (`/dev/tty`) to ask \
    something: ralph runs git without one, so that no hook can wait for an answer nobody \
    sees. Make the hook skip its question when `/dev/tty` cannot be opened, or do this step \
    by hand)";

/// How one git command ended.
#[derive(Debug)]
pub(crate) struct GitOutput {
    /// Its exit code (`None` when it did not exit by itself).
    pub(crate) code: Option<i32>,
    /// Whether its deadline stopped it.
    pub(crate) timed_out: bool,
    /// The signal that ended it, when something other than ralph killed it (the OOM
    /// killer, a `kill` by hand).
    pub(crate) signal: Option<i32>,
    /// Its stdout as git wrote it: paths in it are bytes, and may hold a newline.
    pub(crate) stdout: Vec<u8>,
    /// Whether stdout was longer than ralph keeps ([`GIT_STDOUT_BYTES`]): cut there.
    pub(crate) stdout_truncated: bool,
    /// The end of its output (stdout and stderr), for messages.
    pub(crate) tail: String,
}

impl GitOutput {
    pub(crate) fn ok(&self) -> bool {
        self.code == Some(0)
    }

    /// Its stdout as text (what is not UTF-8 replaced): for refs, counts, messages, never
    /// for paths.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// `args` for a git that runs none of the repository's hooks: for the commands that undo
/// or clean up, which a hung or failing hook must not stop.
pub(super) fn hookless<'a>(args: &[&'a str]) -> Vec<&'a str> {
    [&["-c", "core.hooksPath=/dev/null"][..], args].concat()
}

/// Runs git commands, one at a time, each to its end.
pub(crate) struct Git {
    runtime: tokio::runtime::Runtime,
    stop: StopController,
    /// The longest one command may take.
    timeout: Duration,
    /// The most of one command's stdout kept.
    stdout_cap: usize,
}

impl Git {
    pub(crate) fn new() -> Result<Git, CliError> {
        let runtime = crate::commands::runtime()?;
        Ok(Git {
            runtime,
            stop: StopController::new().0,
            timeout: GIT_TIMEOUT,
            stdout_cap: GIT_STDOUT_BYTES,
        })
    }

    /// This runner keeping at most `bytes` of a command's stdout (a test's long list).
    #[cfg(test)]
    pub(crate) fn with_stdout_cap(self, bytes: usize) -> Git {
        Git {
            stdout_cap: bytes,
            ..self
        }
    }

    /// The most of one command's stdout kept: a longer one is cut
    /// ([`GitOutput::stdout_truncated`]).
    pub(crate) fn stdout_cap(&self) -> usize {
        self.stdout_cap
    }

    /// This runner with its commands stopped by `stop` (the one a command's signal
    /// handling raises) instead of its own.
    pub(crate) fn stopped_by(self, stop: StopController) -> Git {
        Git { stop, ..self }
    }

    /// Routes Ctrl-C, Ctrl-\\, SIGTERM and SIGHUP to the git commands (and whatever else runs
    /// under [`Git::stop`]) for the rest of the process: the one running is stopped with
    /// its process group (hooks, filters), and each later one is refused, so that
    /// `command` ends at once and says where it left things.
    pub(crate) fn stop_on_signals(&self, command: &'static str) -> Result<(), CliError> {
        crate::run::signals::install_for(self.stop.clone(), command).map_err(CliError::Runtime)
    }

    /// What stops the git commands, for other commands run alongside them (a check).
    pub(crate) fn stop(&self) -> &StopController {
        &self.stop
    }

    /// Whether a stop was asked for (see [`Git::stop_on_signals`]).
    pub(crate) fn stopped(&self) -> bool {
        self.stop.current() > StopLevel::None
    }

    /// `git <args>` in `dir`, retried while git's own lock files are held; its output
    /// whatever its exit code.
    pub(crate) fn run(&self, dir: &Path, args: &[&str]) -> Result<GitOutput, CliError> {
        let started = Instant::now();
        let mut pause = LOCK_RETRY_FIRST_PAUSE;
        loop {
            let out = self.once(dir, args)?;
            if out.ok() || !lock_contention(&out.tail) || started.elapsed() > LOCK_RETRY_FOR {
                return Ok(out);
            }
            std::thread::sleep(pause + jitter());
            pause = (pause * 2).min(LOCK_RETRY_MAX_PAUSE);
        }
    }

    /// `git <args>` in `dir`, which must succeed: its stdout, as text.
    pub(crate) fn ok(&self, dir: &Path, args: &[&str]) -> Result<String, CliError> {
        Ok(self.succeeded(dir, args)?.text())
    }

    /// `git <args>` in `dir`, which must print one path (and a newline): that path,
    /// exactly. Only the last newline is git's: a path may hold one, end in a blank, or
    /// not be UTF-8.
    pub(crate) fn path(&self, dir: &Path, args: &[&str]) -> Result<PathBuf, CliError> {
        let mut out = self.succeeded(dir, args)?.stdout;
        if out.last() == Some(&b'\n') {
            out.pop();
        }
        Ok(PathBuf::from(OsString::from_vec(out)))
    }

    /// The git directory of the checkout at `dir`, absolute: where git keeps what is that
    /// checkout's own, an operation in progress (`rebase-merge`, `MERGE_HEAD`, …).
    /// Joined here rather than asked with `--git-path`, whose answers come one a line.
    pub(crate) fn git_dir(&self, dir: &Path) -> Result<PathBuf, CliError> {
        self.path(dir, &["rev-parse", "--absolute-git-dir"])
    }

    /// `git <args>` in `dir`, which must succeed: how it ended.
    pub(crate) fn succeeded(&self, dir: &Path, args: &[&str]) -> Result<GitOutput, CliError> {
        let out = self.run(dir, args)?;
        if out.ok() {
            return Ok(out);
        }
        let how = match (out.timed_out, out.code, out.signal) {
            (true, _, _) => format!(
                " (timed out after {} s: one of the repository's hooks, filters or its \
                 fsmonitor may hang; try the command by hand there)",
                self.timeout.as_secs()
            ),
            (false, Some(code), _) => format!(" (exit {code})"),
            (false, None, Some(signal)) => format!(" ({})", killed_by(signal)),
            (false, None, None) => String::new(),
        };
        Err(CliError::Worktree(format!(
            "`git {}` failed in `{}`{how}:\n{}",
            args.join(" "),
            dir.display(),
            out.tail
        )))
    }

    /// `git <args>` in `dir`: its first line of output, trimmed, when it succeeds.
    pub(crate) fn line(&self, dir: &Path, args: &[&str]) -> Result<Option<String>, CliError> {
        let out = self.run(dir, args)?;
        Ok(out.ok().then(|| {
            out.text()
                .lines()
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned()
        }))
    }

    fn once(&self, dir: &Path, args: &[&str]) -> Result<GitOutput, CliError> {
        let mut argv = vec!["git".to_owned()];
        argv.extend(args.iter().map(|a| (*a).to_owned()));
        if self.stopped() {
            return Err(CliError::WorktreeInterrupted(format!(
                "stopped before `git {}` in `{}`",
                args.join(" "),
                dir.display()
            )));
        }
        let request = CommandRequest {
            invocation: Invocation::Argv(argv),
            cwd: dir.to_path_buf(),
            env: git_env(),
            stdin: None,
            timeout: self.timeout,
            keep_stdout: self.stdout_cap,
            // A hook that prompts (commitizen's prepare-commit-msg reads /dev/tty) fails at
            // once instead of waiting, stopped by the kernel, for the deadline.
            own_session: true,
        };
        let result = self.runtime.block_on(async {
            let run = run_command(request, None, self.stop.requests());
            tokio::pin!(run);
            tokio::select! {
                result = &mut run => return result,
                () = tokio::time::sleep(GIT_NOTICE_AFTER) => {}
            }
            diagnostic(format_args!(
                "`git {}` in `{}` is still running after {} s: the repository's hooks, \
                 filters or fsmonitor may be what runs (ralph stops it if it still runs \
                 after {} s)",
                args.join(" "),
                dir.display(),
                GIT_NOTICE_AFTER.as_secs(),
                self.timeout.as_secs()
            ));
            run.await
        });
        // The failure says why (git not on PATH, or `dir` gone); the command says what for.
        if let ralph_agent::Termination::FailedToStart { error } = &result.termination {
            return Err(CliError::Worktree(format!(
                "cannot run `git {}` in `{}`: {error}",
                args.join(" "),
                dir.display()
            )));
        }
        if result.termination == ralph_agent::Termination::Interrupted {
            return Err(CliError::WorktreeInterrupted(format!(
                "`git {}` in `{}` was stopped (Ctrl-C or SIGTERM)",
                args.join(" "),
                dir.display()
            )));
        }
        let mut tail = result.tail_text(ERROR_LINES, ERROR_BYTES);
        if result.asked_for_terminal() {
            tail = format!("{tail}\n{WANTED_TERMINAL}");
        }
        Ok(GitOutput {
            code: result.exit_code(),
            timed_out: result.termination == ralph_agent::Termination::WallClockTimeout,
            signal: match result.termination {
                ralph_agent::Termination::Signaled { signal } => Some(signal),
                _ => None,
            },
            stdout_truncated: result.stdout_truncated,
            stdout: result.stdout,
            tail,
        })
    }
}

/// What every git command gets: messages in English (read for lock contention), no
/// prompt for a password or an editor (a rebase runs unattended), and none of git's
/// optional locks (a `git status` would otherwise take `index.lock` to refresh it).
fn git_env() -> Vec<(OsString, OsString)> {
    [
        ("LC_ALL", "C"),
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GIT_EDITOR", "true"),
        ("GIT_SEQUENCE_EDITOR", "true"),
        ("GIT_OPTIONAL_LOCKS", "0"),
    ]
    .into_iter()
    .map(|(k, v)| (k.into(), v.into()))
    .collect()
}

/// Whether git's failure `output` says there is no repository at all, which is the one
/// failure of a `rev-parse` that means "not in a repository": any other (a repository
/// git refuses for its owner, the `safe.directory` check; a damaged one) is git's to
/// tell, as its message says what to do. Read in English: git runs with `LC_ALL=C`.
pub(crate) fn no_repository(output: &str) -> bool {
    output.contains("not a git repository")
}

/// How a git killed by `signal` ended, in words: the signal's name where it has one
/// (`SIGKILL` is most often the kernel's out-of-memory killer).
fn killed_by(signal: i32) -> String {
    match nix::sys::signal::Signal::try_from(signal) {
        Ok(nix::sys::signal::Signal::SIGKILL) => format!(
            "killed by signal {signal}, SIGKILL: by something outside ralph, the \
             out-of-memory killer most often"
        ),
        Ok(name) => format!("killed by signal {signal}, {}", name.as_str()),
        Err(_) => format!("killed by signal {signal}"),
    }
}

/// Whether git failed because another git process holds one of its lock files.
pub(crate) fn lock_contention(output: &str) -> bool {
    output.contains("Another git process")
        || (output.contains("File exists")
            && (output.contains(".lock") || output.contains("could not lock")))
}

/// A few milliseconds that differ between processes, so that loops started together
/// do not retry in step.
fn jitter() -> Duration {
    Duration::from_millis(u64::from(std::process::id() % 17))
}

#[cfg(test)]
#[path = "git_tests.rs"]
mod tests;
