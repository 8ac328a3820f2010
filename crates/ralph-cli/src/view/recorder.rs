//! Every run keeps its run events in `.ralph/runs/<id>/run-events.jsonl`, one JSON line
//! each, exactly what `--output json` prints: the record that a viewer in another
//! terminal (`ralph watch`) and any later look at the run read back. It wraps the run's
//! own view, so what is recorded is what was shown.
//!
//! Writes are buffered: streamed text and thinking arrive in many small events, so the
//! file is flushed at every other event and on every tick (a tenth of a second), never
//! per delta. A record that cannot be written (a full disk) is said once and dropped;
//! the run goes on.
//!
//! The agent may delete the record while the run goes on (`git clean -fdx` deletes all
//! of `.ralph/`). Before each flush the record checks that its file still has a name;
//! if not, it recreates the run's directory if need be and goes on in a new file at the
//! same place, so what the run does next is still recorded and `ralph watch` (which
//! follows the name) sees it.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::MetadataExt;
use std::time::Instant;

use ralph_core::run_event::RunEvent;
use ralph_core::store::RunDir;
use ralph_stream::AgentEvent;

use super::observer::Observer;
use crate::diagnostic::diagnostic;

pub(crate) struct Recorder<'a> {
    inner: &'a mut dyn Observer,
    file: Option<Record>,
    line: Vec<u8>,
}

/// The open record and the run it belongs to (to put it back if it is deleted).
struct Record {
    run_dir: RunDir,
    out: BufWriter<File>,
}

impl Record {
    /// Writes what is buffered, first moving to a new file if the record's was deleted.
    fn flush(&mut self) -> io::Result<()> {
        if self.out.get_ref().metadata()?.nlink() == 0 {
            self.reopen()?;
        }
        self.out.flush()
    }

    /// Goes on in a new file at the record's name, with what was not written yet.
    fn reopen(&mut self) -> io::Result<()> {
        let recreated = self.run_dir.ensure()?;
        let file = self.run_dir.open_run_events()?;
        let deleted = std::mem::replace(&mut self.out, BufWriter::new(file));
        // Not flushed into the deleted file: carried over.
        let (_, unwritten) = deleted.into_parts();
        if let Ok(bytes) = unwritten {
            self.out.write_all(&bytes)?;
        }
        let (what, path) = if recreated {
            ("the run directory", self.run_dir.path().to_path_buf())
        } else {
            ("the run's event record", self.run_dir.run_events())
        };
        diagnostic(format_args!(
            "warning: {what} {} was deleted while the run went on (git clean?); recreated it: \
             what it held before now is lost, the run goes on",
            path.display()
        ));
        Ok(())
    }
}

impl<'a> Recorder<'a> {
    /// Records into `file`, the run's record in `run_dir` (when there is one), and passes
    /// every event on to `inner`.
    pub(crate) fn new(inner: &'a mut dyn Observer, file: Option<(RunDir, File)>) -> Recorder<'a> {
        Recorder {
            inner,
            file: file.map(|(run_dir, file)| Record {
                run_dir,
                out: BufWriter::new(file),
            }),
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
            .out
            .write_all(&self.line)
            .and_then(|()| if streamed { Ok(()) } else { file.flush() });
        if let Err(e) = written {
            stops_here(&e);
            self.file = None;
        }
    }
}

/// Says that the record ends here, and why (once: the record is dropped after).
fn stops_here(e: &io::Error) {
    diagnostic(format_args!(
        "warning: the run's event record (run-events.jsonl) stops here: {e}"
    ));
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
            && let Err(e) = file.flush()
        {
            stops_here(&e);
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
