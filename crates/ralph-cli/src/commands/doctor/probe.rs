//! The version probes of `ralph doctor`: each program found on `PATH` and asked its
//! version once (stdin `/dev/null`, under a deadline), the answer kept for every agent
//! that names the same program.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use ralph_agent::probe::VERSION_PROBE_TIMEOUT;
use ralph_agent::supervise::{Flow, OutputSink, StopRequests};
use ralph_agent::{
    BackendKind, BackendProfile, RunDeadlines, SpawnSpec, StdinSource, resolve_binary,
};
use ralph_core::config::ResolvedConfig;

/// Most of a version command's output kept (its first line is shown).
const VERSION_OUTPUT_BYTES: usize = 4096;
/// SIGTERM-to-SIGKILL grace for a version command that timed out.
const PROBE_KILL_GRACE: Duration = Duration::from_millis(500);

/// The probes run so far, by program.
pub(super) type Probes = HashMap<String, Probe>;

/// What a version command showed.
#[derive(Clone, Debug)]
pub(super) struct Probe {
    pub(super) path: Option<PathBuf>,
    pub(super) version: Option<String>,
    pub(super) problem: Option<String>,
}

impl Probe {
    pub(super) fn usable(&self) -> bool {
        self.path.is_some() && self.problem.is_none()
    }
}

/// Keeps the beginning of a version command's stdout.
struct Capture(Vec<u8>);

impl OutputSink for Capture {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        let room = VERSION_OUTPUT_BYTES.saturating_sub(self.0.len());
        self.0.extend_from_slice(&bytes[..bytes.len().min(room)]);
        Flow::Continue
    }
}

/// The first usable backend in the configured priority, as `auto` picks it.
pub(super) async fn auto_detect(
    config: &ResolvedConfig,
    probes: &mut Probes,
) -> Option<BackendKind> {
    for &kind in &config.backend_priority {
        let profile = BackendProfile::of(kind);
        let Some(binary) = profile.binary else {
            continue;
        };
        if probe_cached(probes, binary, profile.version_args)
            .await
            .usable()
        {
            return Some(kind);
        }
    }
    None
}

pub(super) async fn probe_cached(
    probes: &mut Probes,
    program: &str,
    version_args: &[&str],
) -> Probe {
    if let Some(hit) = probes.get(program) {
        return hit.clone();
    }
    let probe = probe(program, version_args).await;
    probes.insert(program.to_owned(), probe.clone());
    probe
}

/// Finds `program` and runs its version command (stdin `/dev/null`, under a deadline).
async fn probe(program: &str, version_args: &[&str]) -> Probe {
    let Some(path) = resolve_binary(program) else {
        return Probe {
            path: None,
            version: None,
            problem: None,
        };
    };
    let spec = SpawnSpec::new(path.clone())
        .args(version_args.iter().copied())
        .stdin(StdinSource::Null);
    let deadlines = RunDeadlines {
        wall: Some(VERSION_PROBE_TIMEOUT),
        kill_grace: PROBE_KILL_GRACE,
        ..RunDeadlines::none()
    };
    let mut capture = Capture(Vec::new());
    let outcome =
        ralph_agent::supervise::run(spec, deadlines, &mut capture, StopRequests::never()).await;
    // pi prints its version on stderr.
    let first_line = |text: &str| {
        text.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(str::to_owned)
    };
    let version = first_line(&String::from_utf8_lossy(&capture.0))
        .or_else(|| first_line(&outcome.stderr_tail));
    let problem = (!outcome.termination.is_success()).then(|| {
        format!(
            "`{program} {}` did not succeed ({}); reinstall it",
            version_args.join(" "),
            outcome.termination.command_end(VERSION_PROBE_TIMEOUT, None)
        )
    });
    Probe {
        path: Some(path),
        version: if problem.is_none() { version } else { None },
        problem,
    }
}
