//! `.worktreeinclude`: the files a new worktree gets copied from the main checkout that
//! git does not check out (ignored or untracked: `.env`, local config). The list has
//! gitignore's syntax and git itself matches it (`git ls-files --others --ignored
//! --exclude=…`), so a pattern means there what it means in a `.gitignore`. Nothing
//! leaves the repository: a pattern with `..` is refused, as is a listed link that
//! points out of the repository; links are never followed when copying, and nothing is
//! written through a link in the new worktree.

use std::fs::{self, OpenOptions};
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

use nix::fcntl::OFlag;
use ralph_core::fsafe::{self, Links};
use ralph_core::store::{INCLUDE_FILE, include_path_allowed, include_patterns};

use super::Repo;
use crate::diagnostic::diagnostic;
use crate::error::CliError;

/// The most of `.worktreeinclude` read.
const MAX_INCLUDE_BYTES: u64 = 64 * 1024;

/// One file to copy, relative to the top.
pub(super) enum Copy {
    File(String),
    /// A link that stays inside the repository: made again with the same target.
    Link(String, PathBuf),
}

/// What `.worktreeinclude` asks to copy, checked; empty without the file.
pub(super) fn plan(repo: &Repo) -> Result<Vec<Copy>, CliError> {
    let list = repo.top.join(INCLUDE_FILE);
    let text = match fsafe::read_to_string(&list, Links::Refuse, MAX_INCLUDE_BYTES, INCLUDE_FILE) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(CliError::io("read", &list, e)),
    };
    let patterns = include_patterns(&text).map_err(|e| CliError::Worktree(e.to_string()))?;
    if patterns.is_empty() {
        return Ok(Vec::new());
    }
    let mut args = vec!["ls-files", "-z", "--others", "--ignored"];
    let excludes: Vec<String> = patterns.iter().map(|p| format!("--exclude={p}")).collect();
    args.extend(excludes.iter().map(String::as_str));
    let listed = repo.git.ok(&repo.top, &args)?;
    let mut copies = Vec::new();
    for relative in listed.split('\0').filter(|f| !f.is_empty()) {
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
                    "{INCLUDE_FILE} lists `{relative}`, a link to `{}` outside the repository; \
                     nothing is copied out of it",
                    target.display()
                )));
            }
            copies.push(Copy::Link(relative.to_owned(), target));
        } else if meta.is_file() {
            copies.push(Copy::File(relative.to_owned()));
        } else {
            diagnostic(format_args!(
                "warning: {INCLUDE_FILE}: `{relative}` is not a regular file: not copied"
            ));
        }
    }
    Ok(copies)
}

/// Whether a link at `relative` (under the top) with `target` resolves inside the
/// repository, judged on the names alone: relative, and never above the top or into
/// `.git`.
fn link_stays_inside(relative: &str, target: &Path) -> bool {
    if target.is_absolute() {
        return false;
    }
    let mut depth: Vec<&std::ffi::OsStr> = Path::new(relative)
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
    depth.first().is_none_or(|first| *first != ".git")
}

/// Copies `copies` from `top` into the new worktree at `tree`. A file the worktree's
/// checkout already has is left as checked out; nothing is written through a link.
pub(super) fn copy(top: &Path, tree: &Path, copies: &[Copy]) -> Result<(), CliError> {
    for copy in copies {
        let relative = match copy {
            Copy::File(r) | Copy::Link(r, _) => r,
        };
        let dest = tree.join(relative);
        if dest.symlink_metadata().is_ok() {
            diagnostic(format_args!(
                "warning: {INCLUDE_FILE}: `{relative}` is in the worktree's checkout already: kept as checked out"
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
    Ok(())
}

/// Creates the directories of `relative` under `tree`, refusing any that is a link (a
/// versioned link in the checkout would carry the copy elsewhere).
fn make_parents(tree: &Path, relative: &str) -> io::Result<()> {
    let mut dir = tree.to_path_buf();
    let parents: Vec<_> = Path::new(relative)
        .parent()
        .into_iter()
        .flat_map(Path::iter)
        .collect();
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
