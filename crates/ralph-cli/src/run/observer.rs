//! Who watches a run: every [`RunEvent`] goes to one observer, in order, as it happens.
//!
//! [`JsonObserver`] here is `--output json`; [`TextObserver`](super::text::TextObserver)
//! is the text for people, live on a terminal (colours, a status line while the agent is
//! silent) or plain in a pipe.
//!
//! An observer never fails the run: a closed stdout (`ralph run | head`) silences it and
//! the loop goes on, because the agent's work and the run's files matter more than its
//! display.

use std::io::{self, Write};

use ralph_core::run_event::RunEvent;

/// Receives a run's events.
pub(crate) trait Observer {
    fn observe(&mut self, event: &RunEvent<'_>);

    /// Whether [`Observer::tick`] does anything: the run loop keeps no timer for an
    /// observer that does not want one.
    fn wants_ticks(&self) -> bool {
        false
    }

    /// Time passes while an agent runs (called every
    /// [`FRAME_INTERVAL`](crate::term::status::FRAME_INTERVAL) or so, even when the agent
    /// is silent): for spinners and elapsed counters.
    fn tick(&mut self, _now: std::time::Instant) {}
}

/// `--output json`: one JSON object per line on stdout, flushed per line so a reader
/// sees each event as it happens; nothing else is written to stdout.
pub(crate) struct JsonObserver<W: Write> {
    out: W,
    closed: bool,
    line: Vec<u8>,
}

impl JsonObserver<io::Stdout> {
    pub(crate) fn stdout() -> Self {
        JsonObserver::new(io::stdout())
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

/// A message for the user on stderr, prefixed `ralph: `. Never panics: a run whose
/// terminal went away (SIGHUP) must still end cleanly.
pub(crate) fn diagnostic(message: std::fmt::Arguments<'_>) {
    let mut stderr = io::stderr().lock();
    crate::term::status::erase_before_diagnostic(&mut stderr);
    let _ = writeln!(stderr, "ralph: {message}");
}

/// Says once, on stderr, that stdout is gone and the run goes on.
pub(crate) fn report_closed(error: &io::Error) {
    if error.kind() == io::ErrorKind::BrokenPipe {
        diagnostic(format_args!(
            "stdout was closed; the loop goes on without output (see .ralph/runs/)"
        ));
    } else {
        diagnostic(format_args!(
            "cannot write to stdout ({error}); the loop goes on without output"
        ));
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use ralph_stream::AgentEvent;

    use super::*;

    /// A writer that accepts `room` bytes, then fails like a closed pipe.
    struct ClosingPipe {
        written: Vec<u8>,
        room: usize,
    }

    impl Write for ClosingPipe {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.written.len() + buf.len() > self.room {
                return Err(io::Error::from(io::ErrorKind::BrokenPipe));
            }
            self.written.extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn json_lines_stop_quietly_when_the_pipe_closes() {
        let delta = AgentEvent::TextDelta {
            text: Cow::Borrowed("hi"),
        };
        let event = RunEvent::Agent {
            iteration: 1,
            event: &delta,
        };
        let mut observer = JsonObserver::new(ClosingPipe {
            written: Vec::new(),
            room: 80,
        });
        for _ in 0..3 {
            observer.observe(&event);
        }
        assert!(observer.closed);
        assert_eq!(
            String::from_utf8(observer.out.written).unwrap(),
            "{\"type\":\"agent\",\"iteration\":1,\"event\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n"
        );
    }
}
