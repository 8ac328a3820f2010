//! A workspace's `.ralph/` directory: where runs keep their files.
//!
//! ```text
//! .ralph/
//!   loop.lock            flock held by the running loop, or by `ralph runs land` or `rm`
//!                        at work on the worktree (its pid and host inside, and which
//!                        command: the `lock_holder` module)
//!   current-run          the id of the current (or last) run
//!   .gitignore           keeps the two files above, runs/, the worktrees, gates/ and the
//!                        agent's lock files out of commits
//!   runs/<run-id>/
//!     inbox.jsonl        agent → ralph: `ralph emit` appends, the loop reads by offset
//!     inbox.closed       once the loop has read the inbox for the last time: who closed
//!                        it (the `inbox_closed` module); `--continue` removes it
//!     inbox.jsonl.lock   flock: `ralph emit` checks and appends under it, the loop reads
//!                        the inbox for the last time and closes it under it
//!     history.jsonl      ralph's record: one JSON line per iteration; never read as input
//!     state.json         the loop state and inbox offset, for `ralph run --continue`
//!     .state.json.spare  the state before the last save: swapped with state.json on save
//!     agent.json         while the loop runs: who runs it (the `leftovers` module)
//!     summary.md         written when the run stops
//!     run-events.jsonl   every run event (the `--output json` lines), agent events included
//!     answer-tags.jsonl  the `<event>` tags read from the answers of the attempt in
//!                        progress, kept for a `--continue` after a kill (`answer_tags`)
//!     steering.jsonl     every `ralph steer` message and where it went (`crate::steer`)
//!     steer/             `ralph steer`'s requests and the loop's answers, in transit
//!     iterations/<n>/    each iteration's transcript (the `transcript` module); an
//!                        attempt that ended on a limit and ran again: `<n>-limited-<k>/`
//!   worktrees/<name>/    worktree loops (`ralph run --worktree`, the `worktree` module)
//! ```
//!
//! Each run has its own directory, so a run never sees another run's events. Writes
//! that replace a file are atomic (the `atomic` module); appends write whole lines.
//! Nothing here follows a symbolic link or opens anything but a regular file (see
//! [`crate::fsafe`]): a cloned repository or the agent can plant either under `.ralph/`.

mod answer_tags;
mod atomic;
mod checkout_held;
mod gitignore;
mod inbox_closed;
mod leftovers;
mod lock;
mod lock_holder;
mod run_events;
mod run_number;
mod transcript;
mod transcript_id;
mod worktree;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

pub use atomic::{Durability, TEMPORARY_PREFIX, is_temporary_name, replace, rewrite, spare_of};
pub use checkout_held::{GIT_ENTRY, has_git};
pub use gitignore::{AGENT_LOCK_FILES, GITIGNORE_FILE, GitignoreError, rewritten_by_ralph};
pub use inbox_closed::{ClosedBy, INBOX_CLOSED_FILE, InboxListener};
pub use leftovers::{
    AGENT_FILE, AGENT_RECORD_FORMAT, AgentRecord, AgentRecordFile, Host, Leftovers,
};
pub use lock::{LOCK_FILE, LockError, RemovalLock, WorkspaceLock};
pub use lock_holder::{HeldBy, LockHolder, read_holder, this_host};
pub use run_events::{IterationStart, KilledIteration};
pub use transcript::{
    COMMAND_FILE, ITERATIONS_DIR, PROMPT_FILE, STDERR_FILE, STDOUT_FILE, is_run_id, is_run_name,
};
pub use transcript_id::{Attempt, TranscriptId};
pub use worktree::{
    BRANCH_PREFIX, INCLUDE_FILE, IncludeError, Landing, LandingOutcome, LoopView, MAX_NAME_LEN,
    NameError, WORKTREE_RECORD_FORMAT, WORKTREE_RECORDS_DIR, WORKTREES_DIR, WorktreeRecord,
    WorktreeRecords, WorktreeStatus, check_name, include_path_allowed, include_patterns, name_from,
    plain_ref, worktree_name_of,
};

use crate::fsafe::{self, Access, Links};
use crate::machine::{IterationRecord, LoopState};

/// The directory under the workspace.
pub const RALPH_DIR: &str = ".ralph";
/// The marker naming the current run.
pub const CURRENT_RUN_FILE: &str = "current-run";
/// Where run directories live, under `.ralph/`.
pub const RUNS_DIR: &str = "runs";
pub const INBOX_FILE: &str = "inbox.jsonl";
pub const HISTORY_FILE: &str = "history.jsonl";
pub const STATE_FILE: &str = "state.json";
pub const SUMMARY_FILE: &str = "summary.md";
/// Every run event of the run, as `--output json` prints them (what `ralph watch` and
/// the full-screen view read back).
pub const RUN_EVENTS_FILE: &str = "run-events.jsonl";
/// The directory of gate logs, in a run's directory and (for `ralph gates`) in `.ralph/`.
pub const GATES_DIR: &str = "gates";

/// The version of `state.json`'s layout; a file of another version is not resumed.
pub const STATE_FORMAT: u32 = 1;

/// A workspace's `.ralph/` directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RalphDir {
    root: PathBuf,
}

/// One run's directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunDir {
    id: String,
    path: PathBuf,
}

/// What `ralph run --continue` needs: the task, how far the inbox was read, and the
/// loop state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedRun {
    pub format: u32,
    pub run_id: String,
    pub objective: String,
    pub inbox_offset: u64,
    pub state: LoopState,
    /// The limits given on the command line of the run (and of its last `--continue`),
    /// which `--continue` applies again unless given anew. Absent in older state files.
    #[serde(default)]
    pub command_line: CommandLineLimits,
}

/// A run's history as read back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    pub records: Vec<IterationRecord>,
    /// Lines that were not records (damaged), left out.
    pub skipped: usize,
}

/// Limits given as flags (`--max-iterations`, `--max-cost`, `--max-runtime`,
/// `--completion-promise`), the backend of `-b` and the hats of `-H`: kept with the run,
/// so that resuming it does not fall back to `ralph.yml`'s values (nor run another agent,
/// with other costs and credentials, nor route its events to other hats).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CommandLineLimits {
    pub max_iterations: Option<u32>,
    pub max_cost_usd: Option<f64>,
    pub max_runtime_seconds: Option<u64>,
    pub completion_promise: Option<String>,
    /// `-H` as given (`builtin:NAME` or a path); absent in runs saved before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hats: Option<String>,
    /// `-b` as given (`auto` or a backend's name); absent in runs saved before it existed.
    /// A name this ralph does not know (a state file edited by hand) is dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
}

impl CommandLineLimits {
    /// The limits `overrides` gives.
    pub fn of(overrides: &crate::config::Overrides) -> CommandLineLimits {
        CommandLineLimits {
            max_iterations: overrides.max_iterations,
            max_cost_usd: overrides.max_cost_usd,
            max_runtime_seconds: overrides.max_runtime_seconds,
            completion_promise: overrides.completion_promise.clone(),
            hats: None,
            backend: overrides.backend.map(|b| b.name().to_owned()),
        }
    }

    /// `overrides` with every limit it does not give taken from these.
    pub fn fill(&self, overrides: &mut crate::config::Overrides) {
        overrides.max_iterations = overrides.max_iterations.or(self.max_iterations);
        overrides.max_cost_usd = overrides.max_cost_usd.or(self.max_cost_usd);
        overrides.max_runtime_seconds = overrides.max_runtime_seconds.or(self.max_runtime_seconds);
        if overrides.backend.is_none() {
            overrides.backend = self.backend.as_deref().and_then(|b| b.parse().ok());
        }
        if overrides.completion_promise.is_none() {
            overrides
                .completion_promise
                .clone_from(&self.completion_promise);
        }
    }
}

/// Why a saved run could not be read.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("there is no run to continue in this workspace (no `{}`); start one without --continue", .0.display())]
    NoRun(PathBuf),
    #[error("cannot read `{}`: {source}", .path.display())]
    Read { path: PathBuf, source: io::Error },
    #[error("`{}` is damaged ({message}); start a new run without --continue", .path.display())]
    Damaged { path: PathBuf, message: String },
    #[error(
        "`{}` was written by another version of ralph (format {found}, this one reads {STATE_FORMAT}); start a new run without --continue",
        .path.display()
    )]
    Format { path: PathBuf, found: u32 },
}

impl RalphDir {
    pub fn in_workspace(workspace: &Path) -> RalphDir {
        RalphDir {
            root: workspace.join(RALPH_DIR),
        }
    }

    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Removes a `.ralph/` that holds nothing but the lock and `.gitignore` (made by a
    /// `ralph run` that was then refused before its run began): left behind, it would
    /// stand for a workspace of its own, and hide the one above from `ralph runs`. Says
    /// whether it went; anything else in it (a run, a file of someone's) keeps it.
    pub fn remove_if_bare(&self) -> io::Result<bool> {
        let mut bare = Vec::new();
        for entry in fs::read_dir(&self.root)? {
            let name = entry?.file_name();
            if name != LOCK_FILE && name != gitignore::GITIGNORE_FILE {
                return Ok(false);
            }
            bare.push(self.root.join(name));
        }
        for file in bare {
            fs::remove_file(file)?;
        }
        // Not `remove_dir_all`: what another process put there meanwhile stays.
        fs::remove_dir(&self.root)?;
        Ok(true)
    }

    /// Writes `.ralph/.gitignore` when it is missing or incomplete (the `gitignore`
    /// module). A failure costs only tidiness: the caller warns and goes on.
    pub fn ensure_gitignore(&self) -> Result<(), GitignoreError> {
        gitignore::ensure(&self.root)
    }

    /// Creates the log of gate `gate` run by hand (`ralph gates`): `.ralph/gates/<gate>.log`.
    pub fn gate_log(&self, gate: &str) -> io::Result<(PathBuf, std::fs::File)> {
        fsafe::create_dir(&self.root)?;
        create_gate_log(&self.root.join(GATES_DIR), &format!("{gate}.log"))
    }

    /// Creates a new run directory (with an empty inbox) and makes it the current run.
    /// Its id is its start time, numbered after every run started in the same second
    /// (`run_number`), so ids keep sorting in the order the runs started.
    pub fn create_run(&self, now: SystemTime) -> io::Result<RunDir> {
        let runs = self.root.join(RUNS_DIR);
        fsafe::create_dir(&self.root)?;
        fsafe::create_dir(&runs)?;
        let base = run_id(now);
        let taken = run_number::names_of_second(&runs, &base)?;
        let mut n = run_number::next_run_number(&base, taken.iter().map(String::as_str));
        let id = loop {
            let Some(number) = n else {
                return Err(io::Error::other(format!(
                    "no run number is left for runs started at {base}: delete the \
                     directories named {base}-N in {}",
                    runs.display()
                )));
            };
            let id = run_number::numbered(&base, number);
            // In `runs/` as checked, even if a link is swapped in on the way meanwhile.
            match fsafe::create_new_dir(&runs.join(&id)) {
                Ok(()) => break id,
                // Another process made it since the listing: the next one, then.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    n = number.checked_add(1);
                }
                Err(e) => return Err(e),
            }
        };
        let run = RunDir {
            path: runs.join(&id),
            id,
        };
        let set_up = fsafe::open(
            &run.inbox(),
            Access::new().write(true).create_new(true),
            Links::Refuse,
        )
        .and_then(|_| {
            replace(
                &self.root.join(CURRENT_RUN_FILE),
                format!("{}\n", run.id).as_bytes(),
                Durability::Atomic,
            )
        });
        if let Err(e) = set_up {
            // A run that could not be set up (a full disk) is not left behind half made:
            // the directory was created just now, by this call, so nothing else is in it.
            let _ = fs::remove_dir_all(&run.path);
            return Err(e);
        }
        Ok(run)
    }

    /// The current (or last) run, if there is one.
    pub fn current_run(&self) -> io::Result<Option<RunDir>> {
        let marker = self.root.join(CURRENT_RUN_FILE);
        let text = fsafe::read_to_string(
            &marker,
            Links::Refuse,
            fsafe::MAX_CURRENT_RUN_BYTES,
            "the current-run marker",
        );
        let id = match text {
            Ok(id) => id.trim().to_owned(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        // The marker is the workspace's, which anything may have written: say what is wrong
        // with it rather than that there is none.
        let damaged = |why: String| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("`{}` {why}", marker.display()),
            )
        };
        if id.is_empty() {
            return Err(damaged(
                "is empty; start a new run with `ralph run`".to_owned(),
            ));
        }
        // Run ids are timestamps (`20261126T101500Z`, `…-2`): `..` or a path is not one.
        let plain = id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !plain {
            return Err(damaged(format!("names `{id}`, which is not a run id")));
        }
        let path = self.root.join(RUNS_DIR).join(&id);
        // A linked run directory would carry every later write outside the workspace.
        fsafe::check_ralph_dirs(&path.join(STATE_FILE))?;
        if !path.is_dir() {
            return Err(damaged(format!(
                "names run `{id}`, which is not in `{}`; start a new run with `ralph run`",
                self.root.join(RUNS_DIR).display()
            )));
        }
        Ok(Some(RunDir { id, path }))
    }
}

impl RunDir {
    /// Makes sure the run's directory (and `.ralph/`, `runs/`, the current-run marker)
    /// exists again after something deleted it mid-run (an agent's `git clean -fdx`):
    /// `true` when it had to be recreated. The files that were in it are gone; what the
    /// run writes next (history, state, summary) lands again.
    ///
    /// The marker is checked either way: `ralph emit` recreates the directory (and not
    /// the marker) when the agent publishes into a deleted one.
    pub fn ensure(&self) -> io::Result<bool> {
        let runs = self.path.parent().unwrap_or(&self.path);
        let root = runs.parent().unwrap_or(runs);
        let recreated = !self.path.is_dir();
        if recreated {
            fsafe::create_dir(root)?;
            fsafe::create_dir(runs)?;
            fsafe::create_dir(&self.path)?;
        }
        let marker = root.join(CURRENT_RUN_FILE);
        if !marker.exists() {
            replace(
                &marker,
                format!("{}\n", self.id).as_bytes(),
                Durability::Atomic,
            )?;
        }
        Ok(recreated)
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn inbox(&self) -> PathBuf {
        self.path.join(INBOX_FILE)
    }

    pub fn history(&self) -> PathBuf {
        self.path.join(HISTORY_FILE)
    }

    pub fn state(&self) -> PathBuf {
        self.path.join(STATE_FILE)
    }

    pub fn summary(&self) -> PathBuf {
        self.path.join(SUMMARY_FILE)
    }

    pub fn run_events(&self) -> PathBuf {
        self.path.join(RUN_EVENTS_FILE)
    }

    /// Opens the run's event record for appending (a continued run adds to it).
    pub fn open_run_events(&self) -> io::Result<std::fs::File> {
        fsafe::open(
            &self.run_events(),
            fsafe::Access::new().append(true).create(true),
            fsafe::Links::Refuse,
        )
    }

    /// Creates the log of gate `gate` run after `iteration`:
    /// `gates/<iteration>-<gate>.log` in the run's directory.
    pub fn gate_log(&self, iteration: u32, gate: &str) -> io::Result<(PathBuf, std::fs::File)> {
        create_gate_log(
            &self.path.join(GATES_DIR),
            &format!("{iteration}-{gate}.log"),
        )
    }

    /// Appends one iteration to the history (one line, one write).
    pub fn append_history(&self, record: &IterationRecord) -> io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
        line.push(b'\n');
        fsafe::append_line(&self.history(), &line)
    }

    /// Every iteration recorded so far; lines that do not parse are skipped.
    pub fn read_history(&self) -> io::Result<Vec<IterationRecord>> {
        self.read_history_counted().map(|history| history.records)
    }

    /// Every iteration recorded so far, and how many lines were skipped because they do
    /// not parse (a torn line, a stray non-UTF-8 byte): damage is counted, never fatal.
    pub fn read_history_counted(&self) -> io::Result<History> {
        let bytes = match fsafe::read_bounded(
            &self.history(),
            Links::Refuse,
            fsafe::MAX_HISTORY_FILE_BYTES,
            "a run's history",
        ) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(History::default()),
            Err(e) => return Err(e),
        };
        let mut history = History::default();
        for line in bytes.split(|&b| b == b'\n') {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice(line) {
                Ok(record) => history.records.push(record),
                Err(_) => history.skipped += 1,
            }
        }
        Ok(history)
    }

    /// Drops the records of iterations after `iterations`, which the saved state does not
    /// cover (ralph stopped between writing the history line and the state): the
    /// iteration runs again on `--continue`, and must not be in the history twice. The
    /// state also covers the first `run_again` attempts of iteration `iterations + 1`:
    /// they ended on a provider's limit and were not counted, so they stay. Returns how
    /// many records were dropped.
    pub fn trim_history(
        &self,
        iterations: u32,
        run_again: u32,
        durability: Durability,
    ) -> io::Result<usize> {
        let history = self.read_history_counted()?;
        let mut next = 0;
        let (kept, dropped): (Vec<_>, Vec<_>) = history.records.into_iter().partition(|r| {
            if r.iteration == iterations.saturating_add(1) {
                next += 1;
                return next <= run_again;
            }
            r.iteration <= iterations
        });
        if dropped.is_empty() {
            return Ok(0);
        }
        let mut bytes = Vec::new();
        for record in &kept {
            serde_json::to_writer(&mut bytes, record).map_err(io::Error::other)?;
            bytes.push(b'\n');
        }
        replace(&self.history(), &bytes, durability)?;
        Ok(dropped.len())
    }

    pub fn save(&self, saved: &SavedRun, durability: Durability) -> io::Result<()> {
        let bytes = serde_json::to_vec_pretty(saved).map_err(io::Error::other)?;
        rewrite(&self.state(), &bytes, durability)
    }

    pub fn load(&self) -> Result<SavedRun, StoreError> {
        match self.load_once() {
            // A reader slower than a whole iteration can see the spare it opened written
            // over by the next save (`rewrite`): what it read then is torn, a new read is
            // whole.
            Err(StoreError::Damaged { .. }) => self.load_once(),
            loaded => loaded,
        }
    }

    fn load_once(&self) -> Result<SavedRun, StoreError> {
        let path = self.state();
        let text = match fsafe::read_to_string(
            &path,
            Links::Refuse,
            fsafe::MAX_STATE_FILE_BYTES,
            "a run's saved state",
        ) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(StoreError::NoRun(path)),
            Err(source) => return Err(StoreError::Read { path, source }),
        };
        #[derive(Deserialize)]
        struct Format {
            format: u32,
        }
        let damaged = |e: serde_json::Error| StoreError::Damaged {
            path: path.clone(),
            message: e.to_string(),
        };
        let format: Format = serde_json::from_str(&text).map_err(damaged)?;
        if format.format != STATE_FORMAT {
            return Err(StoreError::Format {
                path,
                found: format.format,
            });
        }
        serde_json::from_str(&text).map_err(damaged)
    }

    pub fn write_summary(&self, text: &str, durability: Durability) -> io::Result<()> {
        replace(&self.summary(), text.as_bytes(), durability)
    }
}

/// Creates `dir` (its parent must exist) and the file `name` in it, refusing links.
fn create_gate_log(dir: &Path, name: &str) -> io::Result<(PathBuf, std::fs::File)> {
    fsafe::create_dir(dir)?;
    let path = dir.join(name);
    let file = fsafe::create_file(&path)?;
    Ok((path, file))
}

/// Milliseconds since the Unix epoch.
pub fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A run id: the UTC start time, `YYYYMMDDTHHMMSSZ`.
pub fn run_id(t: SystemTime) -> String {
    let c = crate::time_text::Civil::of(t);
    format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
        c.year, c.month, c.day, c.hour, c.minute, c.second
    )
}

#[cfg(test)]
mod tests;
