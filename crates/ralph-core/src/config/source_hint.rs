//! A `-c` or `-H` value that names no file, in a form ralph-orchestrator took: a URL
//! (it downloaded the file), `-c builtin:NAME` (it answered with a migration note), `-H NAME`
//! (it looked the name up in preset directories, `./presets` first: see
//! [`incumbent_presets`](super::incumbent_presets)), or `-H debug` meaning the built-in
//! preset. ralph reads files from disk and looks nowhere else, so "No such file or
//! directory" alone leaves the user guessing: the error says what to pass instead.

use std::io;
use std::path::Path;

use super::incumbent_presets::{FoundPreset, PresetDirs, TOML_PRESET_FILES};
use super::override_hint::with_override_hint;
use super::preset::{BUILTIN_PREFIX, PRESETS};
use crate::shell_quote::quote;

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
                 `-H {}` (or `ralph init --preset {}` writes a ralph.yml with them; \
                 `ralph init --list-presets` lists the presets)",
                quote(arg),
                quote(name)
            ),
        );
    }
    with_override_hint(e, file)
}

/// `e`, the error of reading the hats file `path` (`-H`), with what to write instead when
/// `path` is a form of ralph-orchestrator's `-H`; a bare name is looked up in `presets`,
/// the directories it searched.
pub(super) fn with_hats_hint(e: io::Error, path: &Path, presets: &PresetDirs<'_>) -> io::Error {
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
    let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
    let hint = match presets.find(arg) {
        Some(FoundPreset::Yaml(file)) => format!(
            "ralph does not search preset directories: -H takes the file's path, \
             `-H {}`",
            quote(&file.display().to_string())
        ),
        Some(FoundPreset::TomlDirectory(dir)) => format!(
            "{} is an autoloop preset ({}), which ralph does not read: -H takes a YAML \
             hats file, so write its roles as `hats:` in one and pass its path",
            dir.display(),
            TOML_PRESET_FILES.join(" and ")
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
