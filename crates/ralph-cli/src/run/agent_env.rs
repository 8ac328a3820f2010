//! The environment ralph gives what it runs for a loop: the `RALPH_*` variables (named
//! in `ralph_types::env`) and a `PATH` on which `ralph` is this ralph.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use ralph_core::store::RunDir;
use ralph_types::env as var;

use crate::error::CliError;

/// What every agent, gate and hook of the run gets in its environment (hooks all but the
/// inbox, see `hooks::hook_env`): how to reach ralph, the run's inbox, its completion
/// promise, and which worktree loop it is; the run id and the workspace also under
/// ralph-orchestrator's names, for its prompts and scripts.
pub(super) fn agent_env(
    run_dir: &RunDir,
    workspace: &Path,
    promise: &str,
) -> Result<Vec<(OsString, OsString)>, CliError> {
    let exe = std::env::current_exe().map_err(|e| CliError::io("find the path of", "ralph", e))?;
    let mut path_dirs: Vec<PathBuf> = exe.parent().map(Path::to_path_buf).into_iter().collect();
    if let Some(path) = std::env::var_os("PATH") {
        path_dirs.extend(std::env::split_paths(&path));
    }
    let path = std::env::join_paths(path_dirs)
        .map_err(|e| CliError::io("build PATH with", &exe, io::Error::other(e)))?;
    let mut env: Vec<(OsString, OsString)> = vec![
        (BASH_FUNCTION_RALPH.into(), ralph_function(&exe)),
        (var::BIN.into(), exe.into_os_string()),
        (var::EVENTS_FILE.into(), run_dir.inbox().into_os_string()),
        (var::RUN_ID.into(), run_dir.id().into()),
        (var::LOOP_ID.into(), run_dir.id().into()),
        (var::WORKSPACE.into(), workspace.as_os_str().to_owned()),
        (var::WORKSPACE_ROOT.into(), workspace.as_os_str().to_owned()),
        (var::COMPLETION_PROMISE.into(), promise.into()),
        ("PATH".into(), path),
    ];
    env.extend(worktree_env(workspace));
    Ok(env)
}

/// The variable through which bash imports a function `ralph` (bash's own form for an
/// exported function, `export -f`).
const BASH_FUNCTION_RALPH: &str = "BASH_FUNC_ralph%%";

/// A bash function `ralph` that runs this ralph. Some agents run each command in a login
/// shell whose profile sets `PATH` anew (Codex: `bash -lc`; Debian's `/etc/profile` does),
/// which loses the ralph put first on it; a function survives the profile, so the
/// `ralph emit` and `ralph tools` that presets, hats and people write run this ralph
/// there too, without rewriting their text. Other shells ignore the variable.
fn ralph_function(exe: &Path) -> OsString {
    let mut body = OsString::from("() { ");
    body.push(shell_quoted(exe.as_os_str()));
    body.push(" \"$@\"\n}");
    body
}

/// `word` as one single-quoted POSIX shell word (a `'` in it closed, escaped, reopened).
fn shell_quoted(word: &std::ffi::OsStr) -> OsString {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let mut quoted = vec![b'\''];
    for &byte in word.as_bytes() {
        match byte {
            b'\'' => quoted.extend_from_slice(b"'\\''"),
            _ => quoted.push(byte),
        }
    }
    quoted.push(b'\'');
    OsString::from_vec(quoted)
}

/// `RALPH_WORKTREE` for a loop in a worktree `ralph run --worktree` made (gates and
/// hooks get it too); nothing elsewhere.
pub(crate) fn worktree_env(workspace: &Path) -> Option<(OsString, OsString)> {
    ralph_core::store::worktree_name_of(workspace).map(|name| (var::WORKTREE.into(), name.into()))
}

#[cfg(test)]
#[path = "agent_env_tests.rs"]
mod tests;
