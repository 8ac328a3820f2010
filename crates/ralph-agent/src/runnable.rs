//! Why a program that is there cannot run: a directory, a file with no execute bit, or a
//! script whose `#!` line names an interpreter that is missing. The kernel would only say
//! "not found" or "permission denied" at the first spawn, and a script run through
//! `/usr/bin/env` (every npm-installed agent: `#!/usr/bin/env node`) even starts and
//! exits 127, so the loop would count failures instead of saying what to fix. Checked
//! before a custom agent runs and by `ralph doctor`.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// How much of a script's start is read for its `#!` line: Linux reads at most 256 bytes
/// of it (`BINPRM_BUF_SIZE`).
const SHEBANG_BYTES: usize = 256;

/// Why `program` (as configured), resolved to `found` (`None`: not found on `PATH` or at
/// its path), cannot run; `None` when nothing is known against it. `search_path` is the
/// `PATH` an interpreter named through `env` is looked up on (`None`: ralph's own).
pub fn why_unrunnable(
    program: &str,
    found: Option<&Path>,
    search_path: Option<&OsStr>,
) -> Option<String> {
    match found {
        Some(path) => missing_interpreter(path, search_path),
        // A path that is there, but not as a program (a name alone is simply not on PATH).
        None if program.contains('/') => {
            let meta = std::fs::metadata(program).ok()?;
            if meta.is_dir() {
                Some(format!("`{program}` is a directory, not a program"))
            } else if !has_execute_bit(&meta) {
                Some(format!(
                    "`{program}` is not executable; make it so with `chmod +x {program}`"
                ))
            } else {
                None
            }
        }
        None => None,
    }
}

/// The interpreter a script's `#!` line names, when it is not there.
fn missing_interpreter(path: &Path, search_path: Option<&OsStr>) -> Option<String> {
    let line = shebang(path)?;
    let mut words = line.split_ascii_whitespace();
    let interpreter = words.next()?;
    if !is_program(Path::new(interpreter)) {
        return Some(format!(
            "its first line `#!{line}` names `{interpreter}`, which is not there"
        ));
    }
    if Path::new(interpreter).file_name() != Some(OsStr::new("env")) {
        return None;
    }
    // `env [-S] [-i] [NAME=VALUE ...] PROGRAM`: the first word that is neither an
    // option nor an assignment. Options taking a value (`-u NAME`) are rare here; when
    // one is met, nothing is said rather than something wrong.
    let mut named = None;
    for word in words {
        match word {
            "-S" | "-i" | "--split-string" | "--ignore-environment" | "-" => {}
            w if w.starts_with('-') => return None,
            w if w.contains('=') => {}
            w => {
                named = Some(w);
                break;
            }
        }
    }
    let named = named?;
    let cwd = std::env::current_dir().ok()?;
    let found = match search_path {
        Some(paths) => which::which_in(named, Some(paths), cwd).ok(),
        None => which::which(named).ok(),
    };
    match found {
        Some(_) => None,
        None => Some(format!(
            "its first line `#!{line}` runs `{named}`, which was not found on PATH; install \
             it, or put the directory that has it on PATH"
        )),
    }
}

/// The `#!` line of the file at `path`, without `#!` and surrounding blanks; `None` for a
/// file that does not start with one (a binary) or cannot be read.
fn shebang(path: &Path) -> Option<String> {
    let mut start = Vec::with_capacity(SHEBANG_BYTES);
    File::open(path)
        .ok()?
        .take(SHEBANG_BYTES as u64)
        .read_to_end(&mut start)
        .ok()?;
    let rest = start.strip_prefix(b"#!")?;
    let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    let line = std::str::from_utf8(&rest[..end]).ok()?;
    // A script saved with CRLF line ends names `node\r`; the kernel says so on its own
    // (ralph's spawn error names it), so it is left to that.
    let line = line.trim_matches([' ', '\t']);
    (!line.is_empty() && !line.ends_with('\r')).then(|| line.to_owned())
}

/// Whether anyone may execute the file `meta` describes (its owner, group or others: who
/// ralph runs as is left to the kernel, which says so at the spawn).
pub fn has_execute_bit(meta: &std::fs::Metadata) -> bool {
    meta.permissions().mode() & 0o111 != 0
}

/// An executable file at `path` (followed through links).
fn is_program(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && has_execute_bit(&m))
}

#[cfg(test)]
#[path = "runnable_tests.rs"]
mod tests;
