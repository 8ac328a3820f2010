//! What `ralph run`, `plan` and `doctor` say about a project file they do not read.
//!
//! They take the configuration of the directory they run in: `ralph.yml` there, or `-c`.
//! Typed in a project's subdirectory, they would otherwise run on the built-in defaults
//! without a word while the project's `ralph.yml` sits one level up: the agent, the
//! limits and the task all differ from what the person wrote. So with a `ralph.yaml`
//! (or `.ralph.yml`, `Ralph.yml`) beside no `ralph.yml`: written to be read, and not; and
//! with a `prompt.md` where the task is looked for in `PROMPT.md`.

use std::path::{Path, PathBuf};

use ralph_core::config::PROJECT_CONFIG_FILE;
use ralph_core::store::{RALPH_DIR, has_git};

/// Names a project file is given by mistake (another extension, case, a dot), which
/// ralph does not read. On a file system that ignores case, `Ralph.yml` is read as
/// `ralph.yml` and never gets here.
const MISNAMED: [&str; 7] = [
    "ralph.yaml",
    ".ralph.yml",
    ".ralph.yaml",
    "Ralph.yml",
    "Ralph.yaml",
    "RALPH.yml",
    "RALPH.yaml",
];

/// The lines to say (each one warning) for a command about to read the configuration of
/// `cwd` (absolute), with `-c` (or `$RALPH_CONFIG`) given or not.
pub(crate) fn project_file_hints(cwd: &Path, config_file: Option<&Path>) -> Vec<String> {
    if config_file.is_some() || cwd.join(PROJECT_CONFIG_FILE).symlink_metadata().is_ok() {
        return Vec::new();
    }
    let mut hints: Vec<String> = MISNAMED
        .iter()
        .filter(|name| cwd.join(name).symlink_metadata().is_ok())
        .map(|name| {
            format!(
                "{name}: ralph does not read this file, it reads {PROJECT_CONFIG_FILE}: the \
                 built-in defaults apply here. Rename it to {PROJECT_CONFIG_FILE}, or pass \
                 `-c {name}`"
            )
        })
        .collect();
    if let Some(above) = project_file_above(cwd) {
        let dir = above.parent().unwrap_or(Path::new(".."));
        hints.push(format!(
            "{} is the project's config, but ralph reads {PROJECT_CONFIG_FILE} (and the task \
             in PROMPT.md beside it) only in the directory it runs in, which has none: the \
             built-in defaults apply here. Run ralph from `{}`, or pass `-c {}`",
            above.display(),
            dir.display(),
            above.display()
        ));
    }
    hints
}

/// Names the task file is given by mistake (case, another extension), which ralph does
/// not read for `PROMPT.md`.
const PROMPT_NEAR_MISSES: [&str; 6] = [
    "prompt.md",
    "Prompt.md",
    "PROMPT.MD",
    "PROMPT.txt",
    "prompt.txt",
    "PROMPT",
];

/// A file beside the task file `file` (as a run names it, from `cwd`) by a name ralph does
/// not read, when `file` is not there: `prompt.md` for `PROMPT.md`.
pub(crate) fn prompt_file_near_miss(cwd: &Path, file: &Path) -> Option<PathBuf> {
    let dir = file.parent().unwrap_or(Path::new(""));
    PROMPT_NEAR_MISSES
        .iter()
        .map(|name| dir.join(name))
        .find(|near| cwd.join(near).is_file())
}

/// The nearest `ralph.yml` above `cwd`, as a path from `cwd` (`../ralph.yml`), looked for
/// up to the project's edge: the top of the git checkout, or the first directory with a
/// `.ralph/` (a workspace of its own). Nothing above an edge is the project's; a `cwd`
/// that is itself the top of a checkout has nothing above it to find, and without an
/// edge there is no project to speak of (a `ralph.yml` in `/tmp` is nobody's).
pub(crate) fn project_file_above(cwd: &Path) -> Option<PathBuf> {
    if has_git(cwd) {
        return None;
    }
    let mut found = None;
    for (up, dir) in cwd.ancestors().enumerate().skip(1) {
        if found.is_none() && dir.join(PROJECT_CONFIG_FILE).is_file() {
            let mut path: PathBuf = std::iter::repeat_n("..", up).collect();
            path.push(PROJECT_CONFIG_FILE);
            found = Some(path);
        }
        if has_git(dir) || dir.join(RALPH_DIR).is_dir() {
            return found;
        }
    }
    None
}

#[cfg(test)]
#[path = "project_hints_tests.rs"]
mod tests;
