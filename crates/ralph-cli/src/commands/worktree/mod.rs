//! Worktree loops: `ralph run --worktree` (`create`), what `ralph runs` shows of them
//! (`list`), `ralph runs land` and `ralph runs rm`. Each loop runs in its own git
//! worktree under the main checkout's `.ralph/worktrees/<name>` (never under another
//! loop's: see `nested.rs`), on branch `ralph/<name>`, with its own `.ralph/` (lock,
//! runs); git's common directory keeps a record of each
//! (`ralph_core::store::WorktreeRecords`). Inside `.ralph/` rather than beside the
//! repository: it is the one place ralph already owns and ignores, it moves and is
//! deleted with the checkout, and the user's directory around the repository stays
//! untouched. See docs/scale.md.

mod base_loops;
pub(crate) mod create;
mod dirty;
pub(crate) mod from_subdir;
mod git;
mod held;
mod in_progress;
mod include;
pub(crate) mod land;
pub(crate) mod list;
mod lock;
mod nested;
mod onto;
mod put_back;
pub(crate) mod rm;

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use ralph_core::store::{RalphDir, WorktreeRecord, WorktreeRecords};

use crate::error::CliError;
pub(crate) use git::{Git, no_repository};

/// The git checkout the worktree commands run in.
pub(crate) struct Repo {
    /// Its top directory.
    pub(crate) top: PathBuf,
    /// Git's common directory, where the repository-wide locks and the records are.
    pub(crate) common_dir: PathBuf,
    pub(crate) records: WorktreeRecords,
    pub(crate) git: Git,
}

impl Repo {
    /// The repository `cwd` is in; `Ok(None)` outside of one (or without git). A
    /// repository git refuses to work in (not its user's, see `no_repository`) is an
    /// error carrying git's own words.
    pub(crate) fn find(cwd: &Path) -> Result<Option<Repo>, CliError> {
        let git = Git::new()?;
        let Ok(asked) = git.run(cwd, &["rev-parse", "--show-toplevel"]) else {
            return Ok(None);
        };
        if !asked.ok() {
            if no_repository(&asked.tail) {
                return Ok(None);
            }
            return Err(CliError::Worktree(format!(
                "git refuses the repository `{}` is in:\n{}",
                cwd.display(),
                asked.tail.trim_end()
            )));
        }
        // Read exactly: a path may hold a newline or end in a blank.
        let mut top = asked.stdout;
        if top.last() == Some(&b'\n') {
            top.pop();
        }
        let common = git.path(cwd, &["rev-parse", "--git-common-dir"])?;
        let common_dir = cwd
            .join(common)
            .canonicalize()
            .map_err(|e| CliError::io("find git's directory from", cwd, e))?;
        Ok(Some(Repo {
            top: PathBuf::from(OsString::from_vec(top)),
            records: WorktreeRecords::in_git_dir(&common_dir),
            common_dir,
            git,
        }))
    }

    /// The repository `cwd` is in, which it must be.
    pub(crate) fn here(cwd: &Path) -> Result<Repo, CliError> {
        Repo::find(cwd)?.ok_or_else(|| {
            CliError::Worktree(format!(
                "`{}` is not in a git repository: worktree loops need one",
                cwd.display()
            ))
        })
    }

    /// The repository `cwd` is in, from its top directory (where new worktrees go), as
    /// git works from anywhere in a checkout. git gives the top with links resolved; when
    /// `cwd` is under it, the top is spelled as in `cwd`, so that the paths ralph records
    /// and shows are the ones the user typed.
    pub(crate) fn at_top(cwd: &Path) -> Result<Repo, CliError> {
        let repo = Repo::here(cwd)?;
        let Ok(resolved) = repo.top.canonicalize() else {
            return Ok(repo);
        };
        let top = cwd
            .ancestors()
            .find(|dir| dir.canonicalize().is_ok_and(|d| d == resolved))
            .map_or_else(|| repo.top.clone(), Path::to_path_buf);
        Ok(Repo { top, ..repo })
    }

    /// This checkout's `.ralph/`.
    pub(crate) fn ralph_dir(&self) -> RalphDir {
        RalphDir::in_workspace(&self.top)
    }

    /// The record of worktree `name`, or why there is none.
    pub(crate) fn record(&self, name: &str) -> Result<WorktreeRecord, CliError> {
        ralph_core::store::check_name(name).map_err(|e| CliError::Worktree(e.to_string()))?;
        self.records
            .get(name)
            .map_err(|e| CliError::io("read the worktree record in", self.records.path(), e))?
            .ok_or_else(|| {
                CliError::Worktree(format!(
                    "no worktree loop `{name}` here: `ralph runs` lists them"
                ))
            })
    }

    /// The commit `refs/heads/<branch>` points at, if the branch exists.
    pub(crate) fn head(&self, branch: &str) -> Result<Option<String>, CliError> {
        let full = format!("refs/heads/{branch}");
        self.git
            .line(&self.top, &["rev-parse", "--verify", "-q", &full])
    }

    /// How many commits `record`'s branch has that its base does not.
    pub(crate) fn ahead(&self, record: &WorktreeRecord) -> Result<Option<u32>, CliError> {
        let range = format!("{}..refs/heads/{}", record.base_ref, record.branch);
        Ok(self
            .git
            .line(&self.top, &["rev-list", "--count", &range])?
            .and_then(|n| n.parse().ok()))
    }

    /// The repository's checkouts, as `git worktree list --porcelain -z` gives them.
    pub(crate) fn worktrees(&self) -> Result<Vec<Checkout>, CliError> {
        // `-z`: each field ends with a NUL and each checkout with an empty one; without
        // it, a path holding a newline would be cut there.
        let out = self
            .git
            .succeeded(&self.top, &["worktree", "list", "--porcelain", "-z"])?;
        Ok(checkouts(&out.stdout))
    }

    /// Takes the short repository-wide lock (see `lock.rs`).
    pub(crate) fn lock(&self) -> Result<lock::RepoLock, CliError> {
        lock::take(
            &self.common_dir,
            lock::REPO_LOCK,
            "another ralph command on this repository's worktrees",
            self.git.stop(),
        )
    }
}

/// One of the repository's checkouts, as git lists it.
pub(crate) struct Checkout {
    /// Its directory.
    pub(crate) path: PathBuf,
    /// The branch checked out there (`refs/heads/…`; none when its head is detached).
    pub(crate) branch: Option<String>,
    /// Whether git can no longer read it: its directory, or the `.git` file in it that
    /// leads to the repository, is gone (`git worktree prune` would forget it). No git
    /// command runs there.
    pub(crate) prunable: bool,
}

/// The checkouts in the output of `git worktree list --porcelain -z`.
fn checkouts(listed: &[u8]) -> Vec<Checkout> {
    let mut found = Vec::new();
    let mut fields = listed.split(|b| *b == 0).peekable();
    while fields.peek().is_some() {
        let block: Vec<&[u8]> = fields.by_ref().take_while(|f| !f.is_empty()).collect();
        let field = |key: &[u8]| block.iter().find_map(|f| f.strip_prefix(key));
        let Some(path) = field(b"worktree ") else {
            continue;
        };
        found.push(Checkout {
            path: PathBuf::from(OsString::from_vec(path.to_vec())),
            branch: field(b"branch ").map(|b| String::from_utf8_lossy(b).into_owned()),
            prunable: block
                .iter()
                .any(|f| *f == b"prunable" || f.starts_with(b"prunable ")),
        });
    }
    found
}

/// `path` as seen from `from` (both absolute): relative, with `..` where it is not under
/// `from`; as is when they share no root.
pub(crate) fn seen_from(path: &Path, from: &Path) -> PathBuf {
    let common = path
        .components()
        .zip(from.components())
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 {
        return path.to_path_buf();
    }
    let up = from.components().count() - common;
    let mut seen: PathBuf = std::iter::repeat_n(std::path::Component::ParentDir, up).collect();
    seen.extend(path.components().skip(common));
    seen
}

/// The current Unix time in milliseconds.
/// Says on stdout what a worktree command did. The work is done by then: a reader that
/// went away (`| head`) must not turn it into a panic (`println!`'s), only lose the line.
pub(crate) fn report(line: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stdout(), "{line}");
}

pub(crate) fn now_ms() -> u64 {
    ralph_core::store::unix_ms(std::time::SystemTime::now())
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
