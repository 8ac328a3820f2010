//! Every run keeps its run events in `.ralph/runs/<id>/run-events.jsonl`, one JSON line
//! each, exactly what `--output json` prints: the record that a viewer in another
//! terminal (`ralph watch`) and any later look at the run read back. It wraps the run's
//! own view, so what is recorded is what was shown.
//!
//! Writes are buffered: streamed text and thinking arrive in many small events, so the
//! file is flushed at every other event and on every tick (a tenth of a second), never
//! per delta. A record that cannot be written (a full disk) is said once and dropped;
//! the run goes on.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::Instant;

use ralph_core::run_event::RunEvent;
use ralph_stream::AgentEvent;

use super::observer::Observer;
use crate::diagnostic::diagnostic;

pub(crate) struct Recorder<'a> {
    inner: &'a mut dyn Observer,
    file: Option<BufWriter<File>>,
    line: Vec<u8>,
}

impl<'a> Recorder<'a> {
    /// Records into `file` (when there is one) and passes every event on to `inner`.
    pub(crate) fn new(inner: &'a mut dyn Observer, file: Option<File>) -> Recorder<'a> {
        Recorder {
            inner,
            file: file.map(BufWriter::new),
            line: Vec::with_capacity(4096),
        }
    }

    fn record(&mut self, event: &RunEvent<'_>) {
        let Some(file) = self.file.as_mut() else {
            return;
        };
        self.line.clear();
        if serde_json::to_writer(&mut self.line, event).is_err() {
            return;
        }
        self.line.push(b'\n');
        let streamed = matches!(
            event,
            RunEvent::Agent {
                event: AgentEvent::TextDelta { .. } | AgentEvent::ThinkingDelta { .. },
                ..
            }
        );
        let written = file
            .write_all(&self.line)
            .and_then(|()| if streamed { Ok(()) } else { file.flush() });
        if let Err(e) = written {
            diagnostic(format_args!(
                "warning: the run's event record (run-events.jsonl) stops here: {e}"
            ));
            self.file = None;
        }
    }
}

impl Observer for Recorder<'_> {
    fn observe(&mut self, event: &RunEvent<'_>) {
        self.record(event);
        self.inner.observe(event);
    }

    fn wants_ticks(&self) -> bool {
        self.file.is_some() || self.inner.wants_ticks()
    }

    fn tick(&mut self, now: Instant) {
        if let Some(file) = self.file.as_mut()
            && file.flush().is_err()
        {
            self.file = None;
        }
        if self.inner.wants_ticks() {
            self.inner.tick(now);
        }
    }

    fn wait_over(&mut self) {
        self.inner.wait_over();
    }
}
