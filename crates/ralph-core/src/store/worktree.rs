//! Worktree loops (`ralph run --worktree`): what the main checkout keeps about each.
//!
//! ```text
//! <checkout>/.ralph/worktrees/<name>/   the git worktree, on branch `ralph/<name>`,
//!                                       with its own .ralph/ (lock, runs)
//! <git common dir>/ralph/worktrees/<name>.json   this module's record: where it is,
//!                                       its base and branch, the last landing
//! ```
//!
//! The record lives in git's common directory (`git rev-parse --git-common-dir`, the
//! `.git` all checkouts of the repository share), not under a `.ralph/`: an agent's
//! `git clean -fdx` in the main checkout deletes ignored files there (it skips the
//! worktrees themselves, which are repositories to it), the worktree's agent may wipe
//! its own `.ralph/`, and branch names (`ralph/<name>`) are the repository's anyway.
//! How a worktree loop is doing (running, completed, ...) is read from the worktree's
//! own run; the record adds only what happened to the branch afterwards (landed, or a
//! landing that failed), and only while the branch still points where it did then.
//! Which git commands run, and how, is the CLI's; what is decided from their answers is
//! here, so it can be tested without git.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Durability, GIT_ENTRY, HeldBy, RALPH_DIR, RalphDir, replace};
use crate::fsafe::{self, Links};
use crate::machine::{EndClass, StopReason};

/// Where the worktrees are, under `.ralph/`.
pub const WORKTREES_DIR: &str = "worktrees";
/// Where their records are, under git's common directory.
pub const WORKTREE_RECORDS_DIR: &str = "ralph/worktrees";
/// Every worktree loop's branch is `ralph/<name>`.
pub const BRANCH_PREFIX: &str = "ralph/";
/// The version of a record's layout; a record of another version is not read.
pub const WORKTREE_RECORD_FORMAT: u32 = 1;
/// The longest name: it becomes a directory and a branch name.
pub const MAX_NAME_LEN: usize = 64;
/// The most of a record read: a few refs and commit ids.
const MAX_RECORD_BYTES: u64 = 16 * 1024;

/// What the main checkout keeps about one worktree loop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeRecord {
    pub format: u32,
    pub name: String,
    /// The worktree's directory (absolute): `<checkout>/.ralph/worktrees/<name>`.
    pub path: PathBuf,
    /// `ralph/<name>`.
    pub branch: String,
    /// What it was started from and lands on: a full branch ref (`refs/heads/main`), or a
    /// commit id when it was started from a detached HEAD (which cannot be landed on).
    pub base_ref: String,
    /// The commit the branch was created at.
    pub base_commit: String,
    pub created_at_ms: u64,
    /// The last landing attempt, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landing: Option<Landing>,
}

/// How the last `ralph runs land` went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Landing {
    pub outcome: LandingOutcome,
    /// The branch's head when it was recorded: the record speaks for the branch only
    /// while it still points there (a loop continued since has made it stale).
    pub head: String,
    pub at_ms: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LandingOutcome {
    Landed,
    NeedsRebase,
    CheckFailed,
}

/// What `ralph runs` says of a worktree loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorktreeStatus {
    Running,
    /// `ralph runs land` is at work on it (rebasing, checking): it holds the worktree's
    /// lock, and no loop can start there until it is done.
    Landing,
    /// `ralph runs rm` is deleting it.
    Removing,
    Completed,
    Failed,
    Limit,
    Interrupted,
    Landed,
    NeedsRebase,
    CheckFailed,
}

impl WorktreeStatus {
    pub fn name(self) -> &'static str {
        match self {
            WorktreeStatus::Running => "running",
            WorktreeStatus::Landing => "landing",
            WorktreeStatus::Removing => "removing",
            WorktreeStatus::Completed => "completed",
            WorktreeStatus::Failed => "failed",
            WorktreeStatus::Limit => "limit",
            WorktreeStatus::Interrupted => "interrupted",
            WorktreeStatus::Landed => "landed",
            WorktreeStatus::NeedsRebase => "needs-rebase",
            WorktreeStatus::CheckFailed => "check-failed",
        }
    }
}

/// What is known of a worktree loop's own run, for [`WorktreeRecord::status`].
#[derive(Clone, Copy, Debug)]
pub struct LoopView<'a> {
    /// What holds the worktree's lock now: its loop, or a worktree command at work.
    pub held: Option<HeldBy>,
    /// Whether the worktree has a run at all (a loop that failed before creating one
    /// has none).
    pub has_run: bool,
    /// How its run ended, if it did.
    pub end: Option<&'a StopReason>,
    /// The branch's head now (`None` when it cannot be read).
    pub head: Option<&'a str>,
}

impl WorktreeRecord {
    /// The status: a running loop (or a landing or removal at work) first, then the last landing if the branch has not
    /// moved since, then how the run ended. A run that did not end and whose loop is
    /// gone (killed) is `interrupted`, as `ralph run --continue` resumes it; a worktree
    /// without any run (its loop failed before starting one) is `failed`.
    pub fn status(&self, view: LoopView<'_>) -> WorktreeStatus {
        match view.held {
            Some(HeldBy::Loop) => return WorktreeStatus::Running,
            // A landing moving the branch checked out there (a loop that fans out lands
            // onto its own) is a landing at work on it too.
            Some(HeldBy::Land | HeldBy::LandBase) => return WorktreeStatus::Landing,
            Some(HeldBy::Remove) => return WorktreeStatus::Removing,
            None => {}
        }
        if let Some(landing) = &self.landing
            && view.head == Some(landing.head.as_str())
        {
            return match landing.outcome {
                LandingOutcome::Landed => WorktreeStatus::Landed,
                LandingOutcome::NeedsRebase => WorktreeStatus::NeedsRebase,
                LandingOutcome::CheckFailed => WorktreeStatus::CheckFailed,
            };
        }
        match view.end.map(StopReason::class) {
            Some(EndClass::Completed) => WorktreeStatus::Completed,
            Some(EndClass::Failed) => WorktreeStatus::Failed,
            Some(EndClass::LimitReached) => WorktreeStatus::Limit,
            Some(EndClass::Interrupted) => WorktreeStatus::Interrupted,
            None if view.has_run => WorktreeStatus::Interrupted,
            None => WorktreeStatus::Failed,
        }
    }

    /// The base as people name it: `main` for `refs/heads/main`, else the commit.
    pub fn base_name(&self) -> &str {
        self.base_ref
            .strip_prefix("refs/heads/")
            .unwrap_or(&self.base_ref)
    }

    /// The base branch's full ref, when the base is a branch.
    pub fn base_branch(&self) -> Option<&str> {
        self.base_ref
            .starts_with("refs/heads/")
            .then_some(self.base_ref.as_str())
    }
}

/// Why a worktree name is refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{name}` cannot name a worktree: {why} (a name is 1 to {MAX_NAME_LEN} letters, digits, \
     `.`, `_` or `-`, starting with a letter or a digit)"
)]
pub struct NameError {
    pub name: String,
    pub why: &'static str,
}

/// Checks a worktree name: it becomes a directory under `.ralph/worktrees/` and the
/// branch `ralph/<name>`, so no separator, no `..`, nothing that reads as an option and
/// nothing git refuses in a ref (`.lock` at the end, a trailing dot).
pub fn check_name(name: &str) -> Result<(), NameError> {
    let refuse = |why| {
        Err(NameError {
            name: name.to_owned(),
            why,
        })
    };
    if name.is_empty() {
        return refuse("it is empty");
    }
    if name.len() > MAX_NAME_LEN {
        return refuse("it is too long");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    {
        return refuse("it has a character other than a letter, a digit, `.`, `_` or `-`");
    }
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return refuse("it does not start with a letter or a digit");
    }
    if name.contains("..") {
        return refuse("it contains `..`");
    }
    if name.ends_with('.') || name.ends_with(".lock") {
        return refuse("git refuses a branch name ending in `.` or `.lock`");
    }
    Ok(())
}

/// A readable name made of `hint` (the task file's name, say): its letters, digits,
/// `.`, `_` and `-`, other characters as `-`, cut to fit; `None` when nothing is left.
pub fn name_from(hint: &str) -> Option<String> {
    let mapped: String = hint
        .chars()
        .map(|c| match c {
            c if c.is_ascii_alphanumeric() || c == '_' => c,
            _ => '-',
        })
        .collect();
    let trimmed = mapped.trim_matches('-');
    let mut name = String::new();
    for part in trimmed.split('-').filter(|p| !p.is_empty()) {
        if name.len() + part.len() + 1 > MAX_NAME_LEN - SUFFIX_ROOM {
            break;
        }
        if !name.is_empty() {
            name.push('-');
        }
        name.push_str(part);
    }
    check_name(&name).is_ok().then_some(name)
}

/// Room kept in a generated name for the `-<n>` that makes it unique.
const SUFFIX_ROOM: usize = 4;

/// The worktree's name when `workspace` is a worktree made by `ralph run --worktree`
/// (`…/.ralph/worktrees/<name>`), from its path alone.
pub fn worktree_name_of(workspace: &Path) -> Option<String> {
    let name = workspace.file_name()?.to_str()?;
    let parent = workspace.parent()?;
    let ralph = parent.parent()?;
    let is_ours = parent.file_name()? == WORKTREES_DIR && ralph.file_name()? == RALPH_DIR;
    (is_ours && check_name(name).is_ok()).then(|| name.to_owned())
}

impl RalphDir {
    /// Where worktree `name` of this checkout lives: `.ralph/worktrees/<name>`.
    pub fn worktree_path(&self, name: &str) -> PathBuf {
        self.root.join(WORKTREES_DIR).join(name)
    }

    /// The pid of the process holding this workspace's lock (its loop, or `ralph runs
    /// land` or `rm`), as it wrote it (only meaningful while [`RalphDir::held_by`] says
    /// something holds it).
    pub fn holder_pid(&self) -> Option<u32> {
        super::lock::holder_pid(&self.root.join(super::LOCK_FILE))
    }
}

/// The records of a repository's worktree loops, in its git common directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorktreeRecords {
    dir: PathBuf,
}

impl WorktreeRecords {
    /// The records of the repository whose common directory is `common_dir`.
    pub fn in_git_dir(common_dir: &Path) -> WorktreeRecords {
        WorktreeRecords {
            dir: common_dir.join(WORKTREE_RECORDS_DIR),
        }
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.json"))
    }

    /// Saves a record (atomically, never through a link).
    pub fn save(&self, record: &WorktreeRecord) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let bytes = serde_json::to_vec_pretty(record).map_err(io::Error::other)?;
        replace(&self.file(&record.name), &bytes, Durability::Durable)
    }

    /// The record of worktree `name`; `Ok(None)` when there is none.
    pub fn get(&self, name: &str) -> io::Result<Option<WorktreeRecord>> {
        if check_name(name).is_err() {
            return Ok(None);
        }
        let path = self.file(name);
        let text = match fsafe::read_to_string(
            &path,
            Links::Refuse,
            MAX_RECORD_BYTES,
            "a worktree record",
        ) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let record: WorktreeRecord = serde_json::from_str(&text).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("`{}` is damaged: {e}", path.display()),
            )
        })?;
        // Its fields become git arguments and the directory `ralph runs rm` removes:
        // nothing git would read as an option, no directory but a worktree of its name.
        if record.format != WORKTREE_RECORD_FORMAT
            || record.name != name
            || record.branch != format!("{BRANCH_PREFIX}{name}")
            || !record.path.is_absolute()
            || worktree_name_of(&record.path).as_deref() != Some(name)
            || !plain_ref(&record.base_ref)
            || !is_commit_id(&record.base_commit)
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "`{}` is not a worktree record this ralph reads",
                    path.display()
                ),
            ));
        }
        Ok(Some(record))
    }

    /// The names of every worktree with a record, sorted.
    pub fn names(&self) -> io::Result<Vec<String>> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut names = Vec::new();
        for entry in entries {
            let file = entry?.file_name();
            if let Some(name) = file.to_str().and_then(|f| f.strip_suffix(".json"))
                && check_name(name).is_ok()
            {
                names.push(name.to_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    /// Deletes worktree `name`'s record (none is fine).
    pub fn remove(&self, name: &str) -> io::Result<()> {
        match fs::remove_file(self.file(name)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

/// A base a record may name: a branch's full ref, or a commit id; never something git
/// would read as an option or a range.
pub fn plain_ref(base: &str) -> bool {
    match base.strip_prefix("refs/heads/") {
        Some(branch) => {
            !branch.is_empty()
                && !branch.contains("..")
                && branch
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'))
        }
        None => is_commit_id(base),
    }
}

/// A full commit id (SHA-1 or SHA-256), lowercase hex.
fn is_commit_id(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Why a line of `.worktreeinclude` is refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error(".worktreeinclude:{line}: `{text}` {why}; list paths inside the repository")]
pub struct IncludeError {
    pub line: usize,
    pub text: String,
    pub why: &'static str,
}

/// The file listing what a worktree gets copied from the main checkout beyond what git
/// checks out (ignored files such as `.env`).
pub const INCLUDE_FILE: &str = ".worktreeinclude";

/// The patterns of a `.worktreeinclude` (gitignore syntax: `#` comments, blank lines,
/// `!` to exclude again, a leading `/` anchors at the repository's top). A pattern
/// with a `..` component is refused: nothing outside the repository is copied.
pub fn include_patterns(text: &str) -> Result<Vec<String>, IncludeError> {
    let mut patterns = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim_end();
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let refuse = |why| IncludeError {
            line: n + 1,
            text: line.to_owned(),
            why,
        };
        let body = line.strip_prefix('!').unwrap_or(line);
        if body.split(['/', '\\']).any(|part| part == "..") {
            return Err(refuse("leads out of the repository (`..`)"));
        }
        if line.starts_with('~') {
            return Err(refuse("names a home directory"));
        }
        patterns.push(line.to_owned());
    }
    Ok(patterns)
}

/// Whether a file `git` listed for copying (`relative`, under the top) may be copied:
/// never ralph's own files or git's, never anything with a `..` or an absolute path.
pub fn include_path_allowed(relative: impl AsRef<Path>) -> bool {
    let path = relative.as_ref();
    !path.is_absolute()
        && path
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
        && !matches!(
            path.components()
                .next()
                .and_then(|c| c.as_os_str().to_str()),
            Some(RALPH_DIR | GIT_ENTRY)
        )
}

#[cfg(test)]
#[path = "worktree_tests.rs"]
mod tests;
