//! `--output json`: the run's events as JSON lines, the schema of `docs/run-events.md`.

use std::io::Write;

use ralph_core::run_event::RunEvent;

use super::observer::{Observer, report_closed};
use super::stdout_relay::RelayedStdout;
use crate::diagnostic::diagnostic;

/// `--output json`: one JSON object per line on stdout, flushed per line so a reader
/// sees each event as it happens; nothing else is written to stdout.
pub(crate) struct JsonObserver<W: Write> {
    out: W,
    closed: bool,
    line: Vec<u8>,
}

impl JsonObserver<RelayedStdout> {
    /// On stdout, through the relay (see `stdout_relay.rs`).
    pub(crate) fn stdout() -> Self {
        JsonObserver::new(RelayedStdout)
    }
}

impl<W: Write> JsonObserver<W> {
    pub(crate) fn new(out: W) -> Self {
        JsonObserver {
            out,
            closed: false,
            line: Vec::with_capacity(4096),
        }
    }
}

impl<W: Write> Observer for JsonObserver<W> {
    fn observe(&mut self, event: &RunEvent<'_>) {
        if self.closed {
            return;
        }
        self.line.clear();
        if let Err(e) = serde_json::to_writer(&mut self.line, event) {
            diagnostic(format_args!("cannot write an event as JSON: {e}"));
            return;
        }
        self.line.push(b'\n');
        // One write per line: a reader never sees half of one.
        let written = self
            .out
            .write_all(&self.line)
            .and_then(|()| self.out.flush());
        if let Err(e) = written {
            self.closed = true;
            report_closed(&e);
        }
    }
}

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
