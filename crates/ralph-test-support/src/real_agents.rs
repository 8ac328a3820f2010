//! Finding the real agent CLIs that `scripts/install-agents.sh` installed, for tests that run
//! them. A missing agent is an error that says how to install it, unless the tester opted out
//! with `RALPH_SKIP_REAL_AGENTS=1`: real-agent tests never pass silently.

use std::path::PathBuf;

use crate::error::MockError;

/// Set to `1` to skip the real-agent tests (they then print why and return).
pub const SKIP_REAL_AGENTS_ENV: &str = "RALPH_SKIP_REAL_AGENTS";
/// The install script's cache dir; the launchers are in its `bin/`.
pub const AGENTS_DIR_ENV: &str = "RALPH_AGENTS_DIR";
/// The cache dir when [`AGENTS_DIR_ENV`] is unset, under the user's cache directory
/// (`$XDG_CACHE_HOME`, else `$HOME/.cache`), exactly as `scripts/install-agents.sh` computes it:
/// one install per machine and user, shared by every checkout and CI run.
const DEFAULT_AGENTS_SUBDIR: &str = "ralph/agents";

/// The install script's cache dir: [`AGENTS_DIR_ENV`], else the per-user default.
pub fn agents_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(AGENTS_DIR_ENV).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache")
        });
    cache.join(DEFAULT_AGENTS_SUBDIR)
}

/// The directory of agent launchers (`pi`, `pi-0.51.6`, `claude`, …).
pub fn agents_bin_dir() -> PathBuf {
    agents_dir().join("bin")
}

/// The launcher called `name` (e.g. `pi`, `pi-0.51.6`, `claude`). `Ok(None)` when real-agent
/// tests are skipped; an error naming the install command when it is missing.
pub fn real_agent(name: &str) -> Result<Option<PathBuf>, MockError> {
    if std::env::var(SKIP_REAL_AGENTS_ENV).is_ok_and(|value| value == "1") {
        eprintln!("{SKIP_REAL_AGENTS_ENV}=1: skipping the test that runs the real `{name}`");
        return Ok(None);
    }
    let path = agents_bin_dir().join(name);
    if path.exists() {
        Ok(Some(path))
    } else {
        Err(MockError::AgentNotInstalled {
            name: name.to_owned(),
            path,
        })
    }
}
