//! Errors the commands report to the user.

use std::io;
use std::path::PathBuf;

use crate::exit::CommandOutcome;

/// A command failed. Each message says what failed, where, and what to do about it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// Stdout was closed by its reader (`ralph … | head`): not worth a message.
    #[error("stdout was closed")]
    BrokenPipe,
    #[error("cannot read `{path}`: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("cannot write to stdout: {0}")]
    Write(io::Error),
    #[error(
        "`{input}` is not an agent stream: {} an event of pi, Claude Code, Codex, Gemini CLI, OpenCode or Copilot (pick the agent with --agent if it was cut before its first events)",
        none_of(*.lines)
    )]
    NotAStream { input: String, lines: u64 },
    #[error(
        "`{input}` does not look like a {agent} stream: {} a {agent} event",
        none_of(*.lines)
    )]
    NotThatStream {
        input: String,
        agent: &'static str,
        lines: u64,
    },
    #[error(
        "{}\nralph: nothing was run; fix the configuration and try again",
        config_lines(.0)
    )]
    Config(ralph_core::config::ConfigErrors),
    #[error("`{}` already exists; keep it, or pass --force to replace it with the template", .0.display())]
    ConfigExists(PathBuf),
    #[error(
        "no task to work on: pass `-p TEXT` or `-P FILE`, set `event_loop.prompt` or \
         `event_loop.prompt_file` in the config, or write it in {}{}",
        .file.display(),
        .near.as_ref().map(|near| format!(
            "; `{}` is there, but ralph reads {}: rename it, or pass `-P {}`",
            near.display(),
            .file.display(),
            near.display()
        )).unwrap_or_default()
    )]
    NoPrompt {
        /// Where the task file would be.
        file: PathBuf,
        /// A file beside it by a name ralph does not read (`prompt.md`).
        near: Option<PathBuf>,
    },
    #[error(
        "the prompt file `{}` holds no task (it is empty, or only blank): write the task in it, \
         or pass `-p TEXT`",
        .0.display()
    )]
    EmptyPromptFile(PathBuf),
    #[error(transparent)]
    Lock(#[from] ralph_core::store::LockError),
    #[error(transparent)]
    Detect(Box<ralph_agent::DetectError>),
    /// A hat's agent (or one of its fallbacks) cannot run: named as `ralph doctor` names it.
    #[error("{who}: {source}")]
    HatAgent {
        who: String,
        source: Box<ralph_agent::DetectError>,
    },
    #[error(transparent)]
    Store(#[from] ralph_core::store::StoreError),
    #[error(transparent)]
    Resume(#[from] ralph_core::machine::ResumeError),
    #[error("cannot build the command line of hat `{hat}`: {source}")]
    Build {
        hat: String,
        source: ralph_agent::BuildError,
    },
    #[error("cannot {what} `{}`: {source}", .path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    /// A worktree command refused or failed (`ralph run --worktree`, `ralph runs land|rm`):
    /// the message says why and what to do.
    #[error("{0}")]
    Worktree(String),
    /// A worktree command stopped by Ctrl-C or SIGTERM (exit 130): the message says in
    /// what state it left the repository.
    #[error("{0}")]
    WorktreeInterrupted(String),
    /// A full-screen view asked for where stdout is not a terminal: refused before
    /// anything of a run is made.
    #[error("`{command}` draws a full-screen view and needs a terminal on stdout; {instead}")]
    NoTerminal {
        command: &'static str,
        instead: &'static str,
    },
    #[error("cannot start the async runtime: {0}")]
    Runtime(io::Error),
    #[error(transparent)]
    Emit(#[from] ralph_core::event::EmitError),
    #[error(transparent)]
    Spawn(#[from] ralph_agent::supervise::SpawnFailure),
    #[error(
        "no ralph run to send the event to: `ralph emit` is for agents started by `ralph run` \
         (which sets RALPH_EVENTS_FILE), or for a workspace whose .ralph/ names a current run"
    )]
    NoRunForEmit,
    #[error(
        "no ralph loop is running in `{}`, so no agent would read the event; `ralph emit` \
         publishes to a running loop (start one with `ralph run`, or resume the last one with \
         `ralph run --continue`, then emit)",
        .0.display()
    )]
    NoLoopForEmit(PathBuf),
    #[error(
        "the ralph loop in `{}` is finishing: it has read its events for the last time, so \
         no agent would read this one; nothing was written (emit it to the next run once \
         that has started)",
        .0.display()
    )]
    LoopFinishingForEmit(PathBuf),
    #[error(
        "a ralph loop is starting in `{}` but had not named its run after {}s, so it is not \
         known which inbox it will read; nothing was written (emit again once it runs)",
        .0.display(),
        .1
    )]
    LoopStartingForEmit(PathBuf, u64),
    #[error(
        "RALPH_EVENTS_FILE names `{}`, {why}; `ralph emit` writes only to the events file of \
         the current run in its workspace (`{}/runs/<run id>/inbox.jsonl`), which `ralph run` \
         sets for its agents. To publish to the loop running here, unset it \
         (`env -u RALPH_EVENTS_FILE ralph emit ...`); for a loop elsewhere, run `ralph emit` \
         in that loop's workspace",
        .given.display(),
        .ralph_dir.display()
    )]
    EventsFileElsewhere {
        given: PathBuf,
        ralph_dir: PathBuf,
        why: EventsFileMismatch,
    },
    #[error(
        "no ralph loop is running in `{}`, so there is nothing to steer; start one with \
         `ralph run` (or `ralph run --continue`) and steer it while it runs",
        .0.display()
    )]
    NoLoopForSteer(PathBuf),
    #[error("the loop ended before it took the message; nothing was sent")]
    SteerLoopEnded,
    #[error("the loop refused the message: {0}")]
    SteerRefused(String),
    #[error(
        "could not confirm the message: the loop did not answer within {secs} s{}",
        if *.withdrawn {
            "; it was withdrawn, nothing was sent (try again)"
        } else {
            "; the loop took it but has not said where it went (see the run's steering.jsonl)"
        }
    )]
    SteerUnconfirmed { secs: u64, withdrawn: bool },
    #[error("cannot send that message: {0}")]
    SteerMessage(#[from] ralph_core::steer::RequestError),
    #[error("no run to show in `{}`: start one with `ralph run`", .0.display())]
    NoRunForEvents(PathBuf),
    #[error(
        "no run to show in `{}`: the worktree loops keep their runs in their own checkouts; \
         `ralph watch {name}` shows one (`ralph runs` lists them)",
        .dir.display()
    )]
    NoRunButWorktrees { dir: PathBuf, name: String },
    #[error(
        "`{}` is the checkout of the worktree loop `{name}`, not a run: `ralph watch {name}` \
         shows its run (`ralph runs` lists the loops by name)",
        .path.display()
    )]
    WorktreeNotRun { path: PathBuf, name: String },
    #[error(
        "`--iteration` picks an iteration of a run (`--run ID`) or of ralph's own \
         `--output json` capture; `{input}` is an agent's stream"
    )]
    IterationOfAgentStream { input: String },
    #[error(
        "`{input}` is ralph's `--output json` capture, but holds no agent events{}{}",
        .iteration.map(|n| format!(" of iteration {n}")).unwrap_or_default(),
        .attempt.map(|k| format!(", attempt {k}")).unwrap_or_default()
    )]
    NoAgentEvents {
        input: String,
        iteration: Option<u32>,
        attempt: Option<u32>,
    },
    #[error("no run `{id}` in `{}`: `ralph runs` lists them", .dir.display())]
    UnknownRun { id: String, dir: PathBuf },
    #[error(
        "run {run} keeps no raw output of iteration {iteration} (`{}`): it ran with \
         transcripts disabled, did not run, or its stream was deleted to keep the run under \
         `transcripts.max_bytes_per_run`; its events are in run-events.jsonl",
        .path.display()
    )]
    NoTranscript {
        run: String,
        iteration: u32,
        path: PathBuf,
    },
    #[error("run {run} has no iteration {iteration}: {}", iterations_run(*.iterations, *.running))]
    NoIteration {
        run: String,
        iteration: u32,
        /// How many iterations the run finished.
        iterations: u32,
        /// The loop is running the iteration after them now.
        running: bool,
    },
    #[error("run {run} keeps no attempt {attempt} of iteration {iteration}: {}", attempts_kept(.kept))]
    NoAttempt {
        run: String,
        iteration: u32,
        attempt: u32,
        /// The attempts whose raw stream the run keeps, as they ran.
        kept: Vec<u32>,
    },
    #[error(
        "no gates are configured: add a `gates:` list to ralph.yml (`ralph init` writes an \
         example; docs/config.md describes the keys)"
    )]
    NoGates,
    #[error(transparent)]
    Task(#[from] ralph_core::tasks::TaskError),
    /// The task list could not be changed as asked (see its message).
    #[error(transparent)]
    TaskList(ralph_core::tasks::UpdateError),
    #[error(transparent)]
    UnknownPreset(#[from] ralph_core::config::UnknownPreset),
    #[error("no gate named `{name}` (the gates are: {})", .known.join(", "))]
    UnknownGate { name: String, known: Vec<String> },
    #[error(
        "no loop in `{}` is waiting on a hook: `ralph hooks resume` lets a loop held by an \
         `on_error: suspend` hook go on",
        .0.display()
    )]
    NothingSuspended(PathBuf),
    #[error(transparent)]
    Tool(#[from] crate::commands::tools::ToolError),
}

impl From<ralph_agent::DetectError> for CliError {
    fn from(error: ralph_agent::DetectError) -> CliError {
        CliError::Detect(Box::new(error))
    }
}

impl CliError {
    /// How a command that failed with this error ends, for its exit code: failed, but a
    /// success for a reader that closed stdout.
    pub(crate) fn outcome(&self) -> CommandOutcome {
        match self {
            CliError::BrokenPipe => CommandOutcome::Success,
            CliError::WorktreeInterrupted(_) => CommandOutcome::Interrupted,
            _ => CommandOutcome::Failed,
        }
    }

    /// An I/O error on one of ralph's own files.
    pub(crate) fn io(what: &'static str, path: impl Into<PathBuf>, source: io::Error) -> CliError {
        CliError::Io {
            what,
            path: path.into(),
            source,
        }
    }

    /// Wraps a stdout write error, recognising a closed pipe.
    pub(crate) fn write(err: io::Error) -> CliError {
        if err.kind() == io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::Write(err)
        }
    }
}

/// The end of [`CliError::NoIteration`]'s message: which iterations there are to read.
/// The configuration's errors, one a line, each line but the first with the `ralph: `
/// prefix that `main` puts before the first: every error reads as one of ralph's, and
/// each can be found by its prefix.
fn config_lines(errors: &ralph_core::config::ConfigErrors) -> String {
    errors
        .0
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\nralph: ")
}

fn iterations_run(iterations: u32, running: bool) -> String {
    let so_far = if running { " so far" } else { "" };
    match (iterations, running) {
        (0, false) => "it ran none".to_owned(),
        (0, true) => "it is running iteration 1".to_owned(),
        (1, _) => format!("it has iteration 1 only{so_far}"),
        (n, _) => format!("it has iterations 1 to {n}{so_far}"),
    }
}

/// The end of [`CliError::NoAttempt`]'s message: which attempts there are to read.
fn attempts_kept(kept: &[u32]) -> String {
    let numbers: Vec<String> = kept.iter().map(u32::to_string).collect();
    match numbers.as_slice() {
        [] => "it keeps no raw output of that iteration".to_owned(),
        [one] => format!("it keeps attempt {one} (`--attempt`)"),
        [first @ .., last] => format!(
            "it keeps attempts {} and {last} (`--attempt`)",
            first.join(", ")
        ),
    }
}

/// Why `$RALPH_EVENTS_FILE` is not the events file `ralph emit` may write.
#[derive(Debug, thiserror::Error)]
pub(crate) enum EventsFileMismatch {
    #[error("which is not a run's events file")]
    NotAnInbox,
    /// `ralph run` always sets an absolute path: a relative one was set by hand, and
    /// means another file from each directory it is used in.
    #[error("a relative path (ralph run sets an absolute one)")]
    Relative,
    #[error("the events file of a run of another workspace")]
    OtherWorkspace,
    #[error(
        "the events file of a run that is not the workspace's current one (`{current}`): \
         nothing reads it any more"
    )]
    OldRun { current: String },
}

/// `none of its 12 lines is`, or `its only line is not` for a file of one line.
fn none_of(lines: u64) -> String {
    if lines == 1 {
        "its only line is not".to_owned()
    } else {
        format!("none of its {lines} lines is")
    }
}
