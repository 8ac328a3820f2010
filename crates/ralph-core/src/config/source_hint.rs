//! A `-c` or `-H` value that names no file, in a form ralph-orchestrator took: a URL
//! (it downloaded the file), `-c builtin:NAME` (it answered with a migration note), `-H NAME`
//! (it looked the name up in preset directories, `./presets` first), or `-H debug` meaning
//! the built-in preset. ralph reads files from disk and looks nowhere else, so "No such file
//! or directory" alone leaves the user guessing: the error says what to pass instead.

use std::io;
use std::path::Path;

use super::override_hint::with_override_hint;
use super::preset::{BUILTIN_PREFIX, PRESETS};

/// The directory under the working directory where ralph-orchestrator looked first for a
/// hats file named without a path.
const INCUMBENT_PRESETS_DIR: &str = "presets";

/// The extensions it tried there.
const PRESET_EXTENSIONS: [&str; 2] = ["yml", "yaml"];

/// `e`, the error of reading the config file `file` (`-c`), with what to write instead
/// when `file` is a form of ralph-orchestrator's `-c`.
pub(super) fn with_config_hint(e: io::Error, file: &Path) -> io::Error {
    if e.kind() != io::ErrorKind::NotFound {
        return e;
    }
    let arg = file.to_str().unwrap_or_default();
    if let Some(hint) = url_hint(arg) {
        return with_hint(e, &hint);
    }
    if let Some(name) = arg.strip_prefix(BUILTIN_PREFIX) {
        return with_hint(
            e,
            &format!(
                "-c takes a config file; a built-in preset's hats come with \
                 `-H {BUILTIN_PREFIX}{name}` (or `ralph init --preset {name}` writes a \
                 ralph.yml with them; `ralph init --list-presets` lists the presets)"
            ),
        );
    }
    with_override_hint(e, file)
}

/// `e`, the error of reading the hats file `path` (`-H`) from `cwd`, with what to write
/// instead when `path` is a form of ralph-orchestrator's `-H`.
pub(super) fn with_hats_hint(e: io::Error, path: &Path, cwd: &Path) -> io::Error {
    if e.kind() != io::ErrorKind::NotFound {
        return e;
    }
    let arg = path.to_str().unwrap_or_default();
    if let Some(hint) = url_hint(arg) {
        return with_hint(e, &hint);
    }
    if let Some(p) = PRESETS.iter().find(|p| p.name == arg) {
        return with_hint(
            e,
            &format!(
                "for the built-in preset, write `-H {BUILTIN_PREFIX}{}`",
                p.name
            ),
        );
    }
    let bare_name = !arg.is_empty() && !arg.contains('/') && Path::new(arg).extension().is_none();
    if !bare_name {
        return e;
    }
    let found = PRESET_EXTENSIONS
        .iter()
        .map(|ext| format!("{INCUMBENT_PRESETS_DIR}/{arg}.{ext}"))
        .find(|file| cwd.join(file).is_file());
    let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
    let hint = match found {
        Some(file) => format!(
            "ralph does not search preset directories: -H takes the file's path, \
             `-H {file}`"
        ),
        None => format!(
            "-H takes a hats file's path or `{BUILTIN_PREFIX}NAME` of a built-in preset \
             ({}; `ralph init --list-presets` describes them)",
            names.join(", ")
        ),
    };
    with_hint(e, &hint)
}

/// What to do instead of a URL, `None` when `arg` is not one.
fn url_hint(arg: &str) -> Option<String> {
    let is_url = ["http://", "https://"].iter().any(|scheme| {
        arg.get(..scheme.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(scheme))
    });
    is_url.then(|| {
        "ralph reads config and hats files from disk and downloads nothing: fetch the \
         file (for example with curl -o) and pass its path"
            .to_owned()
    })
}

fn with_hint(e: io::Error, hint: &str) -> io::Error {
    io::Error::new(e.kind(), format!("{e}; {hint}"))
}

#[cfg(test)]
#[path = "source_hint_tests.rs"]
mod tests;
