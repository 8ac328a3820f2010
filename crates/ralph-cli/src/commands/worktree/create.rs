//! `ralph run --worktree[=NAME] [--base REF]`: the worktree and its branch, made under
//! the repository lock, with the files `.worktreeinclude` lists copied in; `ralph run`
//! then runs the loop there as in any workspace.

use std::io::Write;
use std::path::{Path, PathBuf};

use ralph_core::store::{
    BRANCH_PREFIX, WORKTREE_RECORD_FORMAT, WORKTREES_DIR, WorktreeRecord, check_name, name_from,
};

use ralph_core::fsafe;

use ralph_agent::StopController;

use super::git::hookless;
use super::{Git, Repo, include, nested, now_ms, seen_from};
use crate::diagnostic::diagnostic;
use crate::error::CliError;

/// A generated name's stem when the task gives none.
const DEFAULT_STEM: &str = "loop";
/// How many words of a `-p` task make a generated name.
const NAME_WORDS: usize = 4;
/// The most `-<n>` suffixes tried for a free generated name.
const MAX_SUFFIX: u32 = 999;

/// A worktree made for a loop.
pub(crate) struct Created {
    pub(crate) path: PathBuf,
}

/// What the worktree is made from.
pub(crate) struct Request<'a> {
    /// The name given, or `None` for one made from `hint`.
    pub(crate) name: Option<&'a str>,
    pub(crate) base: Option<&'a str>,
    /// The task file (its stem) or text (its first words), for a readable name.
    pub(crate) hint: Option<String>,
    /// What stops the git commands (Ctrl-C, SIGTERM: `ralph run` routes them there):
    /// `git worktree add` runs the repository's hooks and filters.
    pub(crate) stop: StopController,
}

/// A name hint from the task: the prompt file's stem, else the task's first words.
pub(crate) fn hint(prompt_file: Option<&Path>, prompt: Option<&str>) -> Option<String> {
    if let Some(stem) = prompt_file.and_then(Path::file_stem) {
        return Some(stem.to_string_lossy().into_owned());
    }
    prompt.map(|p| {
        p.split_whitespace()
            .take(NAME_WORDS)
            .collect::<Vec<_>>()
            .join("-")
    })
}

/// Makes the worktree in the repository `cwd` is in (anywhere in its checkout). The
/// base (`HEAD` by default) and the files `.worktreeinclude` lists are those of the
/// checkout `cwd` is in; the worktree goes beside it when that is a worktree loop's
/// (`nested.rs`).
pub(crate) fn create(cwd: &Path, request: &Request<'_>) -> Result<Created, CliError> {
    if let Some(name) = request.name {
        check_name(name).map_err(|e| CliError::Worktree(e.to_string()))?;
    }
    let mut here = Repo::at_top(cwd)?;
    here.git = here.git.stopped_by(request.stop.clone());
    let (base_ref, base_commit) = base(&here, request.base)?;
    // Checked before anything is made: a refused list leaves nothing behind.
    let include = include::plan(&here)?;
    let source = here.top.clone();
    let repo = nested::home(here);
    let _lock = repo.lock()?;
    ensure_ignored(&repo)?;
    let name = match request.name {
        Some(name) if taken(&repo, name)? => return Err(in_use(&repo, name)),
        Some(name) => name.to_owned(),
        None => free_name(&repo, request.hint.as_deref())?,
    };
    // A cloned repository may carry `.ralph/worktrees` as a link: the worktree would be
    // made wherever it points. Both directories are made here, refusing links.
    let ralph_dir = repo.ralph_dir();
    let worktrees = ralph_dir.path().join(WORKTREES_DIR);
    fsafe::create_dir(ralph_dir.path())
        .and_then(|()| fsafe::create_dir(&worktrees))
        .map_err(|e| CliError::io("create", &worktrees, e))?;
    let branch = format!("{BRANCH_PREFIX}{name}");
    let relative = format!("{}/{WORKTREES_DIR}/{name}", ralph_core::store::RALPH_DIR);
    repo.git
        .ok(&repo.top, &["branch", "--no-track", &branch, &base_commit])?;
    if let Err(e) = repo
        .git
        .ok(&repo.top, &["worktree", "add", &relative, &branch])
    {
        let failed = match e {
            CliError::WorktreeInterrupted(why) => {
                CliError::WorktreeInterrupted(format!("{why}: worktree loop `{name}` was not made"))
            }
            e => e,
        };
        return Err(undo_add(&repo, &relative, &branch, failed));
    }
    let path = repo.ralph_dir().worktree_path(&name);
    let record = WorktreeRecord {
        format: WORKTREE_RECORD_FORMAT,
        name: name.clone(),
        path: path.clone(),
        branch,
        base_ref,
        base_commit,
        created_at_ms: now_ms(),
        landing: None,
    };
    repo.records
        .save(&record)
        .map_err(|e| CliError::io("save the worktree record in", repo.records.path(), e))?;
    drop(_lock);
    include::copy(&source, &path, &include)?;
    diagnostic(format_args!(
        "worktree loop `{name}`: branch {} from {}, in {}",
        record.branch,
        record.base_name(),
        seen_from(&path, cwd).display()
    ));
    Ok(Created { path })
}

/// The base as recorded (a branch's full ref, else the commit) and its commit.
fn base(repo: &Repo, given: Option<&str>) -> Result<(String, String), CliError> {
    let rev = given.unwrap_or("HEAD");
    let commit = repo.git.line(
        &repo.top,
        &[
            "rev-parse",
            "--verify",
            "-q",
            "--end-of-options",
            &format!("{rev}^{{commit}}"),
        ],
    )?;
    let head_ref = match given {
        None => repo.git.line(&repo.top, &["symbolic-ref", "-q", "HEAD"])?,
        Some(_) => None,
    };
    let Some(commit) = commit else {
        return Err(CliError::Worktree(match (given, &head_ref) {
            (Some(rev), _) => format!("--base `{rev}` names no commit here"),
            // HEAD is a branch that has no commit: a repository just made with `git
            // init` (or an orphan branch). Nothing was asked of --base.
            (None, Some(branch)) => format!(
                "the repository at `{}` has no commit yet (branch {} is unborn), and a \
                 worktree loop starts from one: commit something first (`git commit`), or \
                 pass --base REF to start from another branch",
                repo.top.display(),
                branch.trim_start_matches("refs/heads/")
            ),
            (None, None) => format!(
                "HEAD in `{}` names no commit git can find: check out a branch or a commit \
                 there, or pass --base REF",
                repo.top.display()
            ),
        }));
    };
    let full = match given {
        None => head_ref,
        // rev-parse echoes `--end-of-options` on a line of its own before the name.
        Some(rev) => repo
            .git
            .run(
                &repo.top,
                &["rev-parse", "--symbolic-full-name", "--end-of-options", rev],
            )?
            .text()
            .lines()
            .find(|l| l.starts_with("refs/"))
            .map(str::to_owned),
    };
    let base_ref = full
        .filter(|r| ralph_core::store::plain_ref(r) && r.starts_with("refs/heads/"))
        .unwrap_or_else(|| commit.clone());
    Ok((base_ref, commit))
}

/// Whether `name` is in use: a record, a directory or a branch.
fn taken(repo: &Repo, name: &str) -> Result<bool, CliError> {
    let record = repo
        .records
        .get(name)
        .map_err(|e| CliError::io("read the worktree records in", repo.records.path(), e))?;
    Ok(record.is_some()
        || repo
            .ralph_dir()
            .worktree_path(name)
            .symlink_metadata()
            .is_ok()
        || repo.head(&format!("{BRANCH_PREFIX}{name}"))?.is_some())
}

/// Why `name`, which [`taken`] found in use, cannot name a new loop, and what to do: a
/// loop's record is for `ralph runs`; a directory or branch with none is not ralph's to
/// list or remove, so git's own commands are named.
fn in_use(repo: &Repo, name: &str) -> CliError {
    let path = repo.ralph_dir().worktree_path(name);
    let branch = format!("{BRANCH_PREFIX}{name}");
    if repo.records.get(name).ok().flatten().is_some() {
        return CliError::Worktree(format!(
            "worktree loop `{name}` exists already in this repository (`ralph runs` lists \
             it): continue it with `ralph run --continue` in its worktree, or remove it with \
             `ralph runs rm {name}`"
        ));
    }
    if path.symlink_metadata().is_ok() {
        return CliError::Worktree(format!(
            "`{}` exists already, though no worktree loop `{name}` is recorded (`ralph runs` \
             does not list it): look at what it holds, then remove it (`git worktree remove \
             --force {}` if `git worktree list` shows it, else delete it), or pick another \
             name",
            path.display(),
            path.display()
        ));
    }
    CliError::Worktree(format!(
        "branch {branch} exists already, though no worktree loop `{name}` is recorded \
         (`ralph runs` does not list it): look at it (`git log {branch}`), delete it if it \
         holds nothing you need (`git branch -D {branch}`), or pick another name"
    ))
}

/// Undoes a `git worktree add` that failed (`failed`, which is returned): a hook or a
/// filter may fail after the worktree is made and registered, which leaves the branch
/// checked out there, so the worktree goes first (forced: its files are the branch's,
/// just checked out), then the branch. Both are ralph's: neither existed before
/// ([`taken`]). What cannot be undone is said, with the git commands that finish it.
fn undo_add(repo: &Repo, relative: &str, branch: &str, failed: CliError) -> CliError {
    let path = repo.top.join(relative);
    // Undone by git commands no stop refuses (the add may have been stopped by Ctrl-C),
    // without the repository's hooks (the one that failed or hung may be among them).
    if let Ok(undo) = Git::new() {
        if path.symlink_metadata().is_ok() {
            let _ = undo.run(
                &repo.top,
                &hookless(&["worktree", "remove", "--force", "--", relative]),
            );
        }
        let _ = undo.run(&repo.top, &hookless(&["worktree", "prune"]));
        let _ = undo.run(&repo.top, &hookless(&["branch", "-D", branch]));
    }
    let mut left = Vec::new();
    if path.symlink_metadata().is_ok() {
        left.push(format!("`git worktree remove --force {}`", path.display()));
    }
    if repo.head(branch).ok().flatten().is_some() {
        left.push(format!("`git branch -D {branch}`"));
    }
    if left.is_empty() {
        return failed;
    }
    CliError::Worktree(format!(
        "{failed}\nand undoing it failed: remove what is left with {}",
        left.join(" then ")
    ))
}

/// The first free name of `<stem>`, `<stem>-2`, …
fn free_name(repo: &Repo, hint: Option<&str>) -> Result<String, CliError> {
    let stem = hint
        .and_then(name_from)
        .unwrap_or_else(|| DEFAULT_STEM.to_owned());
    for n in 1..=MAX_SUFFIX {
        let name = match n {
            1 => stem.clone(),
            n => format!("{stem}-{n}"),
        };
        if !taken(repo, &name)? {
            return Ok(name);
        }
    }
    Err(CliError::Worktree(format!(
        "no free worktree name for `{stem}`: name it with --worktree=NAME"
    )))
}

/// Makes sure git ignores the worktrees in the main checkout (an `add -A` there must not
/// take a worktree in as an embedded repository). `.ralph/`'s
/// own `.gitignore` says so for workspaces made since; for older ones a line goes to the
/// repository's `info/exclude`, which is not versioned.
fn ensure_ignored(repo: &Repo) -> Result<(), CliError> {
    let probe = format!(
        "{}/{WORKTREES_DIR}/probe/file",
        ralph_core::store::RALPH_DIR
    );
    let out = repo.git.run(&repo.top, &["check-ignore", "-q", &probe])?;
    if out.ok() {
        return Ok(());
    }
    let info = repo.common_dir.join("info");
    std::fs::create_dir_all(&info).map_err(|e| CliError::io("create", &info, e))?;
    let exclude = info.join("exclude");
    let lines = format!(
        "# ralph's worktree loops (ralph run --worktree)\n/{dir}/{WORKTREES_DIR}/\n",
        dir = ralph_core::store::RALPH_DIR
    );
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&exclude)
        .and_then(|mut f| f.write_all(lines.as_bytes()))
        .map_err(|e| CliError::io("add the worktrees to", &exclude, e))
}
