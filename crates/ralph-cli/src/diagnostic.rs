//! Messages for the user on stderr, for every command.

use std::io::{self, Write};

/// A message for the user on stderr, prefixed `ralph: `. Never panics: a run whose
/// terminal went away (SIGHUP) must still end cleanly.
pub(crate) fn diagnostic(message: std::fmt::Arguments<'_>) {
    let mut stderr = io::stderr().lock();
    crate::view::term::status::erase_before_diagnostic(&mut stderr);
    let _ = writeln!(stderr, "ralph: {message}");
}
