//! Where a configuration value came from, so every message can point at it.
//!
//! Positions are printed the way compilers print them (`file:line:column`, both
//! 1-based, column counted in characters) so editors and terminals can jump to them.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The place a value was written, or the reason it has no place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A position in a config file.
    File {
        /// The file as the user named it (or as ralph found it).
        path: Arc<Path>,
        /// 1-based line.
        line: usize,
        /// 1-based column, in characters.
        column: usize,
    },
    /// A config file as a whole (it could not be read, or it is empty of documents).
    WholeFile(Arc<Path>),
    /// A command-line option, such as `--max-iterations`.
    CommandLine(&'static str),
    /// ralph's built-in default.
    Default,
}

impl Origin {
    /// The file this origin lies in, if any.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Origin::File { path, .. } | Origin::WholeFile(path) => Some(path),
            Origin::CommandLine(_) | Origin::Default => None,
        }
    }

    /// The directory relative paths written at this origin are relative to: the
    /// directory of the config file, or `None` for the command line and defaults (which
    /// are relative to where ralph runs).
    pub(crate) fn base_dir(&self) -> Option<PathBuf> {
        self.file()
            .map(|f| f.parent().map(Path::to_path_buf).unwrap_or_default())
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File { path, line, column } => {
                write!(f, "{}:{line}:{column}", path.display())
            }
            Origin::WholeFile(path) => write!(f, "{}", path.display()),
            // The message itself names the flag.
            Origin::CommandLine(_) => f.write_str("command line"),
            Origin::Default => f.write_str("built-in default"),
        }
    }
}

/// A value together with where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub origin: Origin,
}

impl<T> Spanned<T> {
    /// Wraps `value` written at `origin`.
    pub fn new(value: T, origin: Origin) -> Self {
        Spanned { value, origin }
    }

    /// Applies `f` to the value, keeping the origin.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Spanned<U> {
        Spanned {
            value: f(self.value),
            origin: self.origin,
        }
    }
}
