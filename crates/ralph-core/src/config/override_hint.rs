//! `-c core.scratchpad=notes.md`, ralph-orchestrator's override form, names no file here:
//! the error says that ralph's `-c` takes a file, and gives the YAML that sets the key.

use std::io;
use std::path::Path;

use super::unsupported::moved_to;

/// `e`, the error of reading the config file `file`, with the hint when `file` is a
/// `KEY=VALUE` that names nothing.
pub(super) fn with_override_hint(e: io::Error, file: &Path) -> io::Error {
    let override_form = file
        .to_str()
        .and_then(|arg| arg.split_once('='))
        .filter(|(key, _)| !key.is_empty() && !key.contains('/'));
    match (e.kind(), override_form) {
        (io::ErrorKind::NotFound, Some((key, value))) => {
            // A version 1 key at the top level has a new home: point there, not at a key
            // the config would refuse.
            let key = if key.contains('.') {
                key
            } else {
                moved_to(key).unwrap_or(key)
            };
            let (section, name) = key.rsplit_once('.').unwrap_or(("", key));
            let value = yaml_scalar(value);
            let yaml = if section.is_empty() {
                format!("`{name}: {value}`")
            } else {
                format!("`{name}: {value}` under `{section}:`")
            };
            io::Error::new(
                e.kind(),
                format!(
                    "{e}; ralph's -c takes a config file, not a KEY=VALUE override (the form \
                     ralph-orchestrator's -c also took): to set `{key}`, write {yaml} in \
                     ralph.yml (or in the file you pass with -c)"
                ),
            )
        }
        _ => e,
    }
}

/// `value` as YAML reads it back the same: plain when it is a word, a number or a path;
/// else double-quoted (a `: ` or a `#` would make it a mapping or a comment).
fn yaml_scalar(value: &str) -> String {
    let plain = value
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '.' || c == '/' || c == '_')
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '_' | '-' | '+'));
    if plain {
        value.to_owned()
    } else {
        serde_json::to_string(value).expect("a string is JSON")
    }
}

#[cfg(test)]
#[path = "override_hint_tests.rs"]
mod tests;
