//! `.worktreeinclude`: the files a new worktree gets copied from the main checkout that
//! git does not check out (ignored or untracked: `.env`, local config). The list has
//! gitignore's syntax and git itself matches it (`git ls-files --others --ignored
//! --exclude=…`), so a pattern means there what it means in a `.gitignore`. Nothing
//! leaves the repository: a pattern with `..` is refused, as is a listed link that
//! points out of the repository; links are never followed when copying, and nothing is
//! written through a link in the new worktree. Names are read as git wrote them, bytes
//! (a name need not be UTF-8). Git's output is kept up to a bound (`git.rs`): a list
//! longer than that is cut, and the copy says so, naming where.

use std::ffi::OsStr;
use std::fs::{self, OpenOptions};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use nix::fcntl::OFlag;
use ralph_core::fsafe::{self, Links};
use ralph_core::store::{GIT_ENTRY, INCLUDE_FILE, include_path_allowed, include_patterns};

use super::Repo;
use crate::diagnostic::diagnostic;
use crate::error::CliError;

const MIB: usize = 1024 * 1024;
/// The most of `.worktreeinclude` read.
const MAX_INCLUDE_BYTES: u64 = 64 * 1024;

/// One file to copy, relative to the top.
pub(super) enum Copy {
    File(PathBuf),
    /// A link that stays inside the repository: made again with the same target.
    Link(PathBuf, PathBuf),
}

/// What `.worktreeinclude` asks to copy.
#[derive(Default)]
pub(super) struct Plan {
    pub(super) copies: Vec<Copy>,
    /// When git's list was longer than ralph reads: the last name read whole (`None`
    /// when not even one was). The files git listed after it are not copied.
    pub(super) cut: Option<Cut>,
}

/// Where git's list of files to copy was cut.
pub(super) struct Cut {
    pub(super) after: Option<PathBuf>,
    /// The patterns that matched them, as written in the file.
    pub(super) patterns: Vec<String>,
    /// How much of git's list was read, in bytes.
    pub(super) read: usize,
}

/// What `.worktreeinclude` asks to copy, checked; empty without the file.
pub(super) fn plan(repo: &Repo) -> Result<Plan, CliError> {
    let list = repo.top.join(INCLUDE_FILE);
    let text = match fsafe::read_to_string(&list, Links::Refuse, MAX_INCLUDE_BYTES, INCLUDE_FILE) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Plan::default()),
        Err(e) => return Err(CliError::io("read", &list, e)),
    };
    let patterns = include_patterns(&text).map_err(|e| CliError::Worktree(e.to_string()))?;
    if patterns.is_empty() {
        return Ok(Plan::default());
    }
    let mut args = vec!["ls-files", "-z", "--others", "--ignored"];
    let excludes: Vec<String> = patterns.iter().map(|p| format!("--exclude={p}")).collect();
    args.extend(excludes.iter().map(String::as_str));
    let listed = repo.git.succeeded(&repo.top, &args)?;
    let mut names: Vec<&[u8]> = listed.stdout.split(|b| *b == 0).collect();
    // What follows the last NUL is a name cut short (or nothing): never copied.
    names.pop();
    let cut = listed.stdout_truncated.then(|| Cut {
        after: names.last().map(|n| PathBuf::from(OsStr::from_bytes(n))),
        patterns: patterns.clone(),
        read: repo.git.stdout_cap(),
    });
    let mut copies = Vec::new();
    for name in names.into_iter().filter(|f| !f.is_empty()) {
        let relative = Path::new(OsStr::from_bytes(name));
        if !include_path_allowed(relative) {
            continue;
        }
        let source = repo.top.join(relative);
        let meta = source
            .symlink_metadata()
            .map_err(|e| CliError::io("read", &source, e))?;
        if meta.file_type().is_symlink() {
            let target = fs::read_link(&source).map_err(|e| CliError::io("read", &source, e))?;
            if !link_stays_inside(relative, &target) {
                return Err(CliError::Worktree(format!(
                    "{INCLUDE_FILE} lists `{}`, a link to `{}` outside the repository; \
                     nothing is copied out of it",
                    relative.display(),
                    target.display()
                )));
            }
            copies.push(Copy::Link(relative.to_owned(), target));
        } else if meta.is_file() {
            copies.push(Copy::File(relative.to_owned()));
        } else {
            diagnostic(format_args!(
                "warning: {INCLUDE_FILE}: `{}` is not a regular file: not copied",
                relative.display()
            ));
        }
    }
    Ok(Plan { copies, cut })
}

/// The warning for a list of files to copy that git made longer than ralph reads.
fn cut_warning(cut: &Cut) -> String {
    let after = match &cut.after {
        Some(last) => format!("the files listed after `{}`", last.display()),
        None => "all of them".to_owned(),
    };
    format!(
        "warning: {INCLUDE_FILE}: its patterns ({}) match more files than ralph lists (over \
         {} of names): {after}, in git's order (`git ls-files --others --ignored`), \
         were not copied into the worktree. Narrow the patterns, or copy the rest by hand",
        cut.patterns.join(", "),
        match cut.read % MIB {
            0 => format!("{} MiB", cut.read / MIB),
            _ => format!("{} bytes", cut.read),
        }
    )
}

/// Whether a link at `relative` (under the top) with `target` resolves inside the
/// repository, judged on the names alone: relative, and never above the top or into
/// `.git`.
fn link_stays_inside(relative: &Path, target: &Path) -> bool {
    if target.is_absolute() {
        return false;
    }
    let mut depth: Vec<&OsStr> = relative
        .parent()
        .map(|p| p.iter().collect())
        .unwrap_or_default();
    for part in target.components() {
        match part {
            Component::Normal(name) => depth.push(name),
            Component::CurDir => {}
            Component::ParentDir if depth.pop().is_some() => {}
            _ => return false,
        }
    }
    depth.first().is_none_or(|first| *first != GIT_ENTRY)
}

/// Copies what `plan` lists from `top` into the new worktree at `tree`, then warns when
/// the list was cut. A file the worktree's checkout already has is left as checked out;
/// nothing is written through a link.
pub(super) fn copy(top: &Path, tree: &Path, plan: &Plan) -> Result<(), CliError> {
    for copy in &plan.copies {
        let relative = match copy {
            Copy::File(r) | Copy::Link(r, _) => r,
        };
        let dest = tree.join(relative);
        if dest.symlink_metadata().is_ok() {
            diagnostic(format_args!(
                "warning: {INCLUDE_FILE}: `{}` is in the worktree's checkout already: kept as checked out",
                relative.display()
            ));
            continue;
        }
        make_parents(tree, relative).map_err(|e| CliError::io("create the parent of", &dest, e))?;
        let done = match copy {
            Copy::Link(_, target) => std::os::unix::fs::symlink(target, &dest),
            Copy::File(_) => copy_file(&top.join(relative), &dest),
        };
        done.map_err(|e| CliError::io("copy into the worktree", &dest, e))?;
    }
    if let Some(cut) = &plan.cut {
        diagnostic(format_args!("{}", cut_warning(cut)));
    }
    Ok(())
}

/// Creates the directories of `relative` under `tree`, refusing any that is a link (a
/// versioned link in the checkout would carry the copy elsewhere).
fn make_parents(tree: &Path, relative: &Path) -> io::Result<()> {
    let mut dir = tree.to_path_buf();
    let parents: Vec<_> = relative.parent().into_iter().flat_map(Path::iter).collect();
    for part in parents {
        dir.push(part);
        match dir.symlink_metadata() {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("`{}` is not a plain directory", dir.display()),
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => fs::create_dir(&dir)?,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Copies a regular file without following a link at either end, keeping its mode.
fn copy_file(source: &Path, dest: &Path) -> io::Result<()> {
    let mut from = OpenOptions::new()
        .read(true)
        .custom_flags(OFlag::O_NOFOLLOW.bits())
        .open(source)?;
    let meta = from.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let mut to = OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(OFlag::O_NOFOLLOW.bits())
        .mode(meta.permissions().mode() & 0o7777)
        .open(dest)?;
    io::copy(&mut from, &mut to)?;
    to.set_permissions(fs::Permissions::from_mode(
        meta.permissions().mode() & 0o7777,
    ))?;
    Ok(())
}

#[cfg(test)]
#[path = "include_tests.rs"]
mod tests;
