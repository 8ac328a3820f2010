//! Messages for the user on stderr, for every command.

use std::io::{self, Write};

use ralph_core::visible::visible;

/// A message for the user on stderr, prefixed `ralph: `. Never panics: a run whose
/// terminal went away (SIGHUP) must still end cleanly. Messages quote text ralph did not
/// write (paths, config values, an agent's stderr), so they are shown [`visible`].
pub(crate) fn diagnostic(message: std::fmt::Arguments<'_>) {
    let message = message.to_string();
    if crate::view::tui::terminal::hold(&format!("ralph: {}", visible(&message))) {
        return;
    }
    // After what the views wrote before it: they write through a thread of their own.
    // Locked first: two messages at once each make room in turn.
    let mut stderr = io::stderr().lock();
    crate::view::stdout_relay::beside_stdout(|end| {
        crate::view::term::status::make_room(&mut stderr, end);
        let _ = writeln!(stderr, "ralph: {}", visible(&message));
    });
}

/// Says that a lock is being waited for, who holds it when that is known, and for how
/// long at most (see `ralph_core::file_lock`).
pub(crate) fn lock_wait(wait: &ralph_core::file_lock::LockWait<'_>) {
    let by = wait
        .holder
        .as_ref()
        .map(|h| format!(", held by {h}"))
        .unwrap_or_default();
    let until = wait
        .limit
        .map(|limit| format!("; giving up after {} s", limit.as_secs()))
        .unwrap_or_default();
    diagnostic(format_args!(
        "waiting for the lock `{}`{by}{until}",
        wait.lock.display()
    ));
}
