//! Auto-detection probes version commands by exit code, in priority order, with a
//! timeout, and caches; an explicit backend that is missing gets an install hint.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use ralph_agent::BackendKind;
use ralph_agent::probe::{Availability, DetectError, Detector};
use ralph_agent::supervise::Termination;

/// Writes an executable `name` into `dir` that logs each call to `calls` and runs `body`.
fn fake_bin(dir: &Path, name: &str, body: &str) {
    let path = dir.join(name);
    let script = format!(
        "#!/bin/sh\necho \"$0 $*\" >> \"{}/calls\"\n{body}\n",
        dir.display()
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn calls(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("calls"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.rsplit('/').next().unwrap_or(l).to_owned())
        .collect()
}

fn machine() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    // pi 0.73 prints its version on stderr.
    fake_bin(dir.path(), "pi", "echo 0.73.1 >&2");
    fake_bin(
        dir.path(),
        "gemini",
        "echo 'gemini: broken install' >&2; exit 1",
    );
    fake_bin(dir.path(), "codex", "exec sleep 1000");
    fake_bin(dir.path(), "claude", "echo 2.1.332");
    dir
}

/// How long the tests' version commands may take: a hanging one is stopped soon.
const PROBE_TIMEOUT: Duration = Duration::from_millis(500);

fn detector(dir: &Path) -> Detector {
    Detector::new()
        .with_search_path(dir.as_os_str())
        .with_probe_timeout(PROBE_TIMEOUT)
}

#[tokio::test]
async fn first_available_backend_in_priority_order_wins_and_failures_are_skipped() {
    let dir = machine();
    let mut d = detector(dir.path()).with_priority(vec![
        BackendKind::Kiro,
        BackendKind::Gemini,
        BackendKind::Codex,
        BackendKind::Custom,
        BackendKind::Pi,
        BackendKind::Claude,
    ]);
    assert_eq!(d.detect().await, Ok(BackendKind::Pi));
    // kiro is not installed (no call); gemini fails; codex times out; claude is never probed.
    assert_eq!(
        calls(dir.path()),
        vec!["gemini --version", "codex --version", "pi --version"]
    );
    // The two installed but broken are said; the one not installed is not.
    let passed_over: Vec<String> = d.passed_over().iter().map(|e| e.to_string()).collect();
    assert_eq!(passed_over.len(), 2, "{passed_over:?}");
    assert!(
        passed_over[0].starts_with("`gemini --version` did not succeed (exited with code 1)"),
        "{passed_over:?}"
    );
    assert!(
        passed_over[1].starts_with("`codex --version` did not succeed (timed out after 0.5s)"),
        "{passed_over:?}"
    );
    assert!(d.passed_over().is_empty(), "said once");
}

#[tokio::test]
async fn default_priority_prefers_claude() {
    let dir = machine();
    assert_eq!(detector(dir.path()).detect().await, Ok(BackendKind::Claude));
}

#[tokio::test]
async fn probe_results_are_cached_for_the_run() {
    let dir = machine();
    let mut d = detector(dir.path());
    let first = d.probe(BackendKind::Pi, None).await;
    let second = d.probe(BackendKind::Pi, None).await;
    assert_eq!(first, second);
    assert_eq!(
        first,
        Availability::Available {
            path: dir.path().join("pi")
        }
    );
    assert_eq!(calls(dir.path()), vec!["pi --version"]);
}

#[tokio::test]
async fn hanging_version_command_is_stopped_and_reported() {
    let dir = machine();
    let mut d = detector(dir.path());
    assert_eq!(
        d.probe(BackendKind::Codex, None).await,
        Availability::ProbeFailed {
            path: dir.path().join("codex"),
            termination: Termination::WallClockTimeout,
            stderr_tail: String::new(),
        }
    );
}

#[tokio::test]
async fn a_hanging_explicit_backend_is_said_to_have_timed_out_after_the_probes_limit() {
    let dir = machine();
    let message = detector(dir.path())
        .require(BackendKind::Codex, None)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("`codex --version` did not succeed (timed out after 0.5s), "),
        "{message}"
    );
}

#[tokio::test]
async fn missing_explicit_backend_names_the_binary_and_how_to_install_it() {
    let dir = machine();
    let mut d = detector(dir.path());
    let err = d.require(BackendKind::Opencode, None).await;
    assert_eq!(
        err,
        Err(DetectError::NotInstalled {
            backend: BackendKind::Opencode,
            binary: "opencode".to_owned(),
            install_hint: "npm install -g opencode-ai",
        })
    );
    let message = err.unwrap_err().to_string();
    assert!(message.contains("`opencode`") && message.contains("npm install -g opencode-ai"));
    assert!(message.contains("not found on PATH"), "{message}");
    // A path was never looked up on PATH, and a custom command is not installed but set.
    let message = d
        .require(BackendKind::Custom, Some("./nope.sh"))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("needs `./nope.sh`, which was not found;")
            && message.contains("a hat's `backend: {command: ...}`"),
        "{message}"
    );
}

#[tokio::test]
async fn broken_explicit_backend_shows_its_stderr() {
    let dir = machine();
    let err = detector(dir.path())
        .require(BackendKind::Gemini, None)
        .await;
    assert_eq!(
        err,
        Err(DetectError::ProbeFailed {
            backend: BackendKind::Gemini,
            binary: "gemini".to_owned(),
            termination: Termination::Exited { code: 1 },
            timeout: PROBE_TIMEOUT,
            stderr_tail: "gemini: broken install\n".to_owned(),
            install_hint: "npm install -g @google/gemini-cli",
        })
    );
}

#[tokio::test]
async fn command_override_and_custom_commands_are_resolved() {
    let dir = machine();
    fake_bin(dir.path(), "my-agent", "exit 9");
    let mut d = detector(dir.path());
    // A custom command is only looked up, never run.
    assert_eq!(
        d.require(BackendKind::Custom, Some("my-agent")).await,
        Ok(dir.path().join("my-agent"))
    );
    assert_eq!(
        d.require(BackendKind::Custom, None).await,
        Err(DetectError::CustomWithoutCommand)
    );
    // A known backend run under another name is probed under that name.
    assert_eq!(
        d.require(BackendKind::Claude, Some("pi")).await,
        Ok(dir.path().join("pi"))
    );
    assert_eq!(calls(dir.path()), vec!["pi --version"]);
}

#[tokio::test]
async fn nothing_installed_lists_what_was_tried() {
    let empty = tempfile::tempdir().unwrap();
    let err = detector(empty.path())
        .with_priority(vec![BackendKind::Pi, BackendKind::Amp])
        .detect()
        .await;
    assert_eq!(
        err,
        Err(DetectError::NoneFound {
            tried: vec![BackendKind::Pi, BackendKind::Amp]
        })
    );
    // The hint is for a backend the user listed, the first, not one ralph would not try.
    assert_eq!(
        err.unwrap_err().to_string(),
        "no agent CLI found on PATH (tried: pi, amp); install one, for example: npm install \
         -g @mariozechner/pi-coding-agent"
    );
}

#[tokio::test]
async fn successes_are_remembered_across_runs_and_failures_are_not() {
    let dir = machine();
    let cache = ralph_agent::ProbeCache::in_dir(dir.path().join("cache"));
    for _run in 0..2 {
        let mut d = detector(dir.path()).with_cache(Some(cache.clone()));
        assert!(matches!(
            d.probe(BackendKind::Pi, None).await,
            Availability::Available { .. }
        ));
        assert!(matches!(
            d.probe(BackendKind::Gemini, None).await,
            Availability::ProbeFailed { .. }
        ));
    }
    assert_eq!(
        calls(dir.path()),
        vec!["pi --version", "gemini --version", "gemini --version"]
    );
}
