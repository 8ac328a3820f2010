//! Command lines as a person would type them: each word quoted for a POSIX shell only
//! when it needs it, so what `ralph doctor` and `ralph plan --dry-run` print can be
//! pasted into a terminal.

use std::ffi::OsStr;

/// `program args…`, shell-quoted. Words that are not UTF-8 are shown lossily.
pub(crate) fn shell_line<'a>(
    program: &OsStr,
    args: impl IntoIterator<Item = &'a std::ffi::OsString>,
) -> String {
    std::iter::once(program)
        .chain(args.into_iter().map(|a| a.as_os_str()))
        .map(|word| quote(&word.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One word, quoted when the shell would otherwise split or expand it (the core's, which
/// quotes the paths in its config errors' hints alike).
pub(crate) use ralph_core::shell_quote::quote;

/// ` -c FILE` for the commands a message suggests next, when the config is one a command
/// reads only when named; empty for none, or for the project's own `ralph.yml`.
pub(crate) fn config_flag(config: Option<&std::path::Path>) -> String {
    match config {
        Some(path) if path != std::path::Path::new(ralph_core::config::PROJECT_CONFIG_FILE) => {
            format!(" -c {}", quote(&path.display().to_string()))
        }
        _ => String::new(),
    }
}

#[cfg(test)]
#[path = "shell_words_tests.rs"]
mod tests;
