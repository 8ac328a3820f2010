//! Which agent CLIs are installed.
//!
//! A candidate is available when its binary is on `PATH` and its version command exits
//! 0 within [`VERSION_PROBE_TIMEOUT`] (exit code only: pi prints its version on stderr;
//! stdin is `/dev/null`, output is discarded). Probes run through the supervisor, so a
//! hanging `--version` is stopped like any agent. Results are cached in the [`Detector`]
//! for the rest of the run and, with [`Detector::with_cache`], successes across runs (see
//! [`crate::probe_cache`]).

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use crate::BackendKind;
use crate::backend::BackendProfile;
use crate::probe_cache::ProbeCache;
use crate::runnable::why_unrunnable;
use crate::supervise::{
    DiscardOutput, RunDeadlines, SpawnSpec, StopLevel, StopRequests, Termination, run,
};

/// How long a version command may take. Node-based CLIs start in one to a few seconds on an
/// idle machine, but `pi --version` took over 5 s on a busy 2-core machine (load 12, measured by
/// the real-agent tests), and a slow probe must not be reported as a broken installation.
pub const VERSION_PROBE_TIMEOUT: Duration = Duration::from_secs(30);
/// SIGTERM-to-SIGKILL grace for a version probe that timed out.
const PROBE_KILL_GRACE: Duration = Duration::from_millis(500);

/// The default auto-detection order (`cli.backend_priority`), shared with the config.
pub use ralph_types::DEFAULT_PRIORITY;

/// Finds `program` the way the supervisor will run it: a name is looked up on `PATH`, a
/// path (containing `/`) is checked directly. `None` when it is missing or not executable.
pub fn resolve_binary(program: &str) -> Option<PathBuf> {
    which::which(program).ok()
}

/// What a probe found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Availability {
    Available {
        path: PathBuf,
    },
    /// Not on `PATH` (or not executable).
    NotInstalled,
    /// There, but it cannot run, for the reason given (see [`crate::runnable`]): a
    /// directory, no execute bit, a `#!` interpreter that is missing.
    Unrunnable {
        why: String,
    },
    /// Found, but its version command did not exit 0 in time.
    ProbeFailed {
        path: PathBuf,
        termination: Termination,
        stderr_tail: String,
    },
}

/// Why no usable backend could be chosen. Each names the binary and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DetectError {
    #[error(
        "the `{backend}` backend needs `{binary}`, which was not found{}; install it: {install_hint}",
        if .binary.contains('/') { "" } else { " on PATH" }
    )]
    NotInstalled {
        backend: BackendKind,
        binary: String,
        install_hint: &'static str,
    },
    #[error(
        "`{binary} --version` did not succeed ({}), so the `{backend}` installation looks broken; reinstall it: {install_hint}{}",
        .termination.command_end(*.timeout, None),
        stderr_suffix(.stderr_tail)
    )]
    ProbeFailed {
        backend: BackendKind,
        binary: String,
        termination: Termination,
        /// The time the version command had.
        timeout: Duration,
        stderr_tail: String,
        install_hint: &'static str,
    },
    #[error("the `{backend}` backend runs `{binary}`, which cannot run: {why}")]
    Unrunnable {
        backend: BackendKind,
        binary: String,
        why: String,
    },
    #[error("the custom backend needs a command: set `cli.command` in ralph.yml")]
    CustomWithoutCommand,
    #[error(
        "no agent CLI found on PATH (tried: {}); install one, for example: {}",
        names(.tried),
        first_install_hint(.tried)
    )]
    NoneFound { tried: Vec<BackendKind> },
}

fn stderr_suffix(tail: &str) -> String {
    match tail.trim() {
        "" => String::new(),
        t => format!("\nits stderr ended with:\n{t}"),
    }
}

/// How to install the first backend tried: the one the user ranked first (Claude Code's
/// when nothing was tried), so the hint is for a backend ralph would pick.
fn first_install_hint(tried: &[BackendKind]) -> &'static str {
    BackendProfile::of(tried.first().copied().unwrap_or(BackendKind::Claude)).install_hint
}

fn names(kinds: &[BackendKind]) -> String {
    kinds
        .iter()
        .map(|k| k.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Probes backends and remembers the answers for the rest of the run.
#[derive(Debug)]
pub struct Detector {
    priority: Vec<BackendKind>,
    probe_timeout: Duration,
    search_path: Option<OsString>,
    across_runs: Option<ProbeCache>,
    cache: HashMap<(BackendKind, Option<String>), Availability>,
    /// The caller's stop requests: a Ctrl-C stops a version command as it stops an agent.
    stop: StopRequests,
    /// What auto-detection passed over because its version command failed (an agent
    /// installed but broken), for the caller to say ([`Detector::passed_over`]).
    passed_over: Vec<DetectError>,
}

impl Default for Detector {
    fn default() -> Detector {
        Detector::new()
    }
}

impl Detector {
    pub fn new() -> Detector {
        Detector {
            priority: DEFAULT_PRIORITY.to_vec(),
            probe_timeout: VERSION_PROBE_TIMEOUT,
            search_path: None,
            across_runs: None,
            cache: HashMap::new(),
            stop: StopRequests::never(),
            passed_over: Vec::new(),
        }
    }

    /// Stops a version command when `stop` asks (Ctrl-C while the agents are checked):
    /// [`Detector::detect`] and [`Detector::require`] then take the program found on
    /// `PATH` unchecked, as the caller is about to end without running it.
    pub fn with_stop(mut self, stop: StopRequests) -> Detector {
        self.stop = stop;
        self
    }

    /// Replaces the auto-detection order (`custom` entries are skipped: it is never
    /// auto-detected).
    pub fn with_priority(mut self, priority: Vec<BackendKind>) -> Detector {
        self.priority = priority;
        self
    }

    pub fn with_probe_timeout(mut self, timeout: Duration) -> Detector {
        self.probe_timeout = timeout;
        self
    }

    /// Looks binaries up in this `PATH`-style list instead of `$PATH`.
    pub fn with_search_path(mut self, path: impl Into<OsString>) -> Detector {
        self.search_path = Some(path.into());
        self
    }

    /// Skips the version command of a binary that succeeded before, unchanged since, and
    /// remembers new successes in `cache`. Without it every run probes.
    pub fn with_cache(mut self, cache: Option<ProbeCache>) -> Detector {
        self.across_runs = cache;
        self
    }

    fn resolve(&self, program: &str) -> Option<PathBuf> {
        match &self.search_path {
            Some(paths) => {
                let cwd = std::env::current_dir().ok()?;
                which::which_in(program, Some(paths), cwd).ok()
            }
            None => resolve_binary(program),
        }
    }

    /// Whether `kind` (run as `command` when given) is usable. Cached. A custom backend
    /// is only looked up and read (a directory, no execute bit, a missing `#!`
    /// interpreter), never run: an arbitrary command may not know `--version`.
    pub async fn probe(&mut self, kind: BackendKind, command: Option<&str>) -> Availability {
        let key = (kind, command.map(str::to_owned));
        if let Some(hit) = self.cache.get(&key) {
            return hit.clone();
        }
        let profile = BackendProfile::of(kind);
        let found = match command.or(profile.binary) {
            None => Availability::NotInstalled,
            Some(program) => match self.resolve(program) {
                None => match why_unrunnable(program, None, None) {
                    Some(why) => Availability::Unrunnable { why },
                    None => Availability::NotInstalled,
                },
                Some(path) if kind == BackendKind::Custom => {
                    let search = self.search_path.as_deref();
                    match why_unrunnable(program, Some(&path), search) {
                        Some(why) => Availability::Unrunnable { why },
                        None => Availability::Available { path },
                    }
                }
                Some(path) => self.run_version(path, profile.version_args).await,
            },
        };
        self.cache.insert(key, found.clone());
        found
    }

    async fn run_version(&self, path: PathBuf, args: &[&str]) -> Availability {
        if let Some(cache) = &self.across_runs
            && cache.hit(&path, args)
        {
            return Availability::Available { path };
        }
        let found = self.run_version_uncached(path, args).await;
        if let (Some(cache), Availability::Available { path }) = (&self.across_runs, &found) {
            cache.store(path, args);
        }
        found
    }

    /// The version command itself, through the supervisor with its deadline.
    async fn run_version_uncached(&self, path: PathBuf, args: &[&str]) -> Availability {
        let spec = SpawnSpec::new(path.clone()).args(args.iter().copied());
        let deadlines = RunDeadlines {
            wall: Some(self.probe_timeout),
            kill_grace: PROBE_KILL_GRACE,
            ..RunDeadlines::none()
        };
        let outcome = run(spec, deadlines, &mut DiscardOutput, self.stop.clone()).await;
        match outcome.termination {
            Termination::Exited { code: 0 } => Availability::Available { path },
            termination => Availability::ProbeFailed {
                path,
                termination,
                stderr_tail: outcome.stderr_tail,
            },
        }
    }

    /// The first available backend in priority order.
    pub async fn detect(&mut self) -> Result<BackendKind, DetectError> {
        let candidates: Vec<BackendKind> = self
            .priority
            .iter()
            .copied()
            .filter(|k| *k != BackendKind::Custom)
            .collect();
        for &kind in &candidates {
            match self.probe(kind, None).await {
                Availability::Available { .. } => return Ok(kind),
                // Stopped: taken unchecked, as `require` takes it.
                Availability::ProbeFailed { .. } if self.stop.current() != StopLevel::None => {
                    return Ok(kind);
                }
                Availability::NotInstalled | Availability::Unrunnable { .. } => {}
                Availability::ProbeFailed {
                    termination,
                    stderr_tail,
                    ..
                } => {
                    let broken = self.probe_failed(kind, None, termination, stderr_tail);
                    self.passed_over.push(broken);
                }
            }
        }
        Err(DetectError::NoneFound { tried: candidates })
    }

    /// The backends [`Detector::detect`] passed over because their version command
    /// failed (installed, but broken or hanging): each is worth a warning, or the user
    /// never learns why another agent ran, or why every run waits for it.
    pub fn passed_over(&mut self) -> Vec<DetectError> {
        std::mem::take(&mut self.passed_over)
    }

    /// The path of an explicitly chosen backend's program, or an error that says how to
    /// install it.
    pub async fn require(
        &mut self,
        kind: BackendKind,
        command: Option<&str>,
    ) -> Result<PathBuf, DetectError> {
        if command.or(BackendProfile::of(kind).binary).is_none() {
            return Err(DetectError::CustomWithoutCommand);
        }
        match self.probe(kind, command).await {
            Availability::Available { path } => Ok(path),
            // Stopped: the command said nothing about the installation.
            Availability::ProbeFailed { path, .. } if self.stop.current() != StopLevel::None => {
                Ok(path)
            }
            Availability::NotInstalled => Err(DetectError::NotInstalled {
                backend: kind,
                binary: binary(kind, command).to_owned(),
                install_hint: BackendProfile::of(kind).install_hint,
            }),
            Availability::Unrunnable { why } => Err(DetectError::Unrunnable {
                backend: kind,
                binary: binary(kind, command).to_owned(),
                why,
            }),
            Availability::ProbeFailed {
                termination,
                stderr_tail,
                ..
            } => Err(self.probe_failed(kind, command, termination, stderr_tail)),
        }
    }

    /// The error of `kind`'s version command (run as `command` when given) that ended as
    /// `termination`, its stderr ending with `stderr_tail`.
    fn probe_failed(
        &self,
        kind: BackendKind,
        command: Option<&str>,
        termination: Termination,
        stderr_tail: String,
    ) -> DetectError {
        DetectError::ProbeFailed {
            backend: kind,
            binary: binary(kind, command).to_owned(),
            termination,
            timeout: self.probe_timeout,
            stderr_tail,
            install_hint: BackendProfile::of(kind).install_hint,
        }
    }
}

/// The program `kind` runs: `command` when given, else its own binary (none for custom).
fn binary(kind: BackendKind, command: Option<&str>) -> &str {
    command
        .or(BackendProfile::of(kind).binary)
        .unwrap_or_default()
}
