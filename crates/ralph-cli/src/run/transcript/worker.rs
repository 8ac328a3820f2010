//! The compressing thread: one for the whole run, with one zstd context, writing each
//! iteration's files in turn while the loop goes on.
//!
//! The loop hands it a start, the batches of the raw stream and an end; everything after
//! the end (the last of the compression, the stderr tail, the cap) happens here, so an
//! iteration's end never waits on the disk: creating a file takes hundreds of
//! microseconds on a full ext4, several per iteration.

use std::fs::File;
use std::io::{self, Write};
use std::sync::mpsc::{Receiver, SyncSender};

use ralph_core::fsafe;
use ralph_core::store::{COMMAND_FILE, PROMPT_FILE, RunDir, STDERR_FILE, STDOUT_FILE};
use zstd::stream::raw::{Encoder, Operation};
use zstd::stream::zio::Writer;

use super::ledger::Ledger;
use crate::diagnostic::diagnostic;

/// The zstd level: the fastest of the default range, which already shrinks a
/// snapshot-shaped stream (each event repeats the message so far) many times over.
const ZSTD_LEVEL: i32 = 1;

/// What the loop hands the compressing thread, in order: a start, its batches, an end.
pub(super) enum Job {
    /// The next iteration's transcript: the files to write first and the run's cap.
    Start { files: Files, max_bytes: u64 },
    /// The next bytes of the raw stream.
    Batch(Vec<u8>),
    /// The raw stream ended; what the agent wrote to stderr last.
    End { stderr_tail: String },
    /// Answered once everything handed over before it is on disk.
    Flush(SyncSender<()>),
}

/// What the compressing thread writes before the raw stream: the prompt and the command.
pub(super) struct Files {
    pub(super) run_dir: RunDir,
    pub(super) iteration: u32,
    /// Which attempt at the iteration (see `Who::attempt`).
    pub(super) attempt: u32,
    pub(super) prompt: String,
    pub(super) command: Vec<u8>,
}

impl Files {
    /// Writes the prompt and the command files, and opens the raw stream's.
    fn create(&self) -> io::Result<File> {
        let dir = self.run_dir.create_iteration_dir(self.iteration)?;
        fsafe::create_file(&dir.join(PROMPT_FILE))?.write_all(self.prompt.as_bytes())?;
        fsafe::create_file(&dir.join(COMMAND_FILE))?.write_all(&self.command)?;
        fsafe::create_file(&dir.join(STDOUT_FILE))
    }
}

/// How one iteration's stream went.
struct Written {
    /// Compressed bytes on disk.
    compressed: u64,
    /// Raw bytes that reached the file (all, unless the cap cut the stream).
    raw: u64,
    /// The stream outgrew the run's cap and its end was not kept.
    cut: bool,
}

/// How a stream's jobs ended.
enum Ending {
    /// With its end.
    End { stderr_tail: String },
    /// With another job before its end (the loop dropped a transcript without ending
    /// it, or flushed): that job comes next.
    Interrupted(Job),
    /// The run dropped its sender.
    Closed,
}

/// The thread's body: one stream after the other, each told by a [`Job::Start`], with
/// one zstd context and one ledger for all of them. Ends when the run drops its sender.
pub(super) fn serve(jobs: &Receiver<Job>, give_back: &SyncSender<Vec<u8>>) {
    let mut context: Option<Encoder<'static>> = None;
    let mut ledger = Ledger::default();
    let mut next = jobs.recv().ok();
    while let Some(job) = next.take() {
        match job {
            Job::Start { files, max_bytes } => {
                if files.attempt > 1 {
                    set_aside(&files, &mut ledger);
                }
                let (written, ending) = stream(&files, max_bytes, jobs, give_back, &mut context);
                let stderr_tail = match ending {
                    Ending::End { stderr_tail } => stderr_tail,
                    Ending::Interrupted(job) => {
                        next = Some(job);
                        String::new()
                    }
                    Ending::Closed => String::new(),
                };
                settle(&files, max_bytes, written, &stderr_tail, &mut ledger);
            }
            Job::Flush(done) => {
                let _ = done.send(());
            }
            // A batch or an end without a start belongs to a stream whose start the
            // thread never saw: nothing to do with it.
            Job::Batch(_) | Job::End { .. } => {}
        }
        if next.is_none() {
            next = jobs.recv().ok();
        }
    }
}

/// One iteration's stream: its first files, then every batch into one zstd frame,
/// until its end or until the compressed size reaches `max_bytes` (the rest is then read
/// and dropped, so the agent never waits on a transcript that keeps nothing more). Each
/// batch, emptied, goes back through `give_back` to be filled again.
fn stream(
    files: &Files,
    max_bytes: u64,
    jobs: &Receiver<Job>,
    give_back: &SyncSender<Vec<u8>>,
    context: &mut Option<Encoder<'static>>,
) -> (io::Result<Written>, Ending) {
    let mut writer = files.create().and_then(|file| {
        let encoder = match context.take() {
            // The context a finished frame leaves is reset, not made again: making it
            // maps and zeroes its tables anew.
            Some(mut encoder) => match encoder.reinit() {
                Ok(()) => encoder,
                Err(_) => Encoder::new(ZSTD_LEVEL)?,
            },
            None => Encoder::new(ZSTD_LEVEL)?,
        };
        Ok(Writer::new(Counting { file, written: 0 }, encoder))
    });
    let mut raw = 0u64;
    let mut cut = false;
    let mut ending = Ending::Closed;
    for job in jobs.iter() {
        match job {
            Job::Batch(mut batch) => {
                if let Ok(out) = &mut writer
                    && !cut
                {
                    match out.write_all(&batch) {
                        Ok(()) => {
                            raw += batch.len() as u64;
                            cut = out.writer().written >= max_bytes;
                        }
                        Err(e) => writer = Err(e),
                    }
                }
                batch.clear();
                // Full (the loop has spare batches) or gone: the batch is simply dropped.
                let _ = give_back.try_send(batch);
            }
            Job::End { stderr_tail } => {
                ending = Ending::End { stderr_tail };
                break;
            }
            job @ (Job::Start { .. } | Job::Flush(_)) => {
                ending = Ending::Interrupted(job);
                break;
            }
        }
    }
    let written = writer.and_then(|mut out| {
        out.finish()?;
        let (counting, encoder) = out.into_inner();
        *context = Some(encoder);
        Ok(Written {
            compressed: counting.written,
            raw,
            cut,
        })
    });
    (written, ending)
}

/// What follows a stream's end: the stderr tail (when there is one), the warnings, and
/// deleting the oldest raw streams while the run's exceed the cap.
fn settle(
    files: &Files,
    max_bytes: u64,
    written: io::Result<Written>,
    stderr_tail: &str,
    ledger: &mut Ledger,
) {
    let (run_dir, iteration) = (&files.run_dir, files.iteration);
    let kept = match written {
        Ok(written) => {
            if written.cut {
                diagnostic(format_args!(
                    "warning: iteration {iteration}'s output outgrew \
                     `transcripts.max_bytes_per_run` ({} bytes compressed); its transcript \
                     keeps the first {} bytes",
                    written.compressed, written.raw
                ));
            }
            Some(written.compressed)
        }
        Err(e) => {
            warn(iteration, &e);
            None
        }
    };
    // Most agents write nothing there: no file is one file fewer to create each
    // iteration, and a missing `stderr.txt` reads as an empty stderr.
    if !stderr_tail.is_empty()
        && let Err(e) = write_file(run_dir, iteration, STDERR_FILE, stderr_tail.as_bytes())
    {
        warn(iteration, &e);
    }
    if let Some(compressed) = kept
        && let Err(e) = ledger.keep(run_dir, max_bytes, iteration, compressed)
    {
        warn(iteration, &e);
    }
}

/// Moves the attempt before `files`' (which ended on a limit) out of the way of this one:
/// the iteration's directory becomes `<n>-limited-<k>`. Done here, in turn with the
/// streams, so it never moves a transcript still being written.
fn set_aside(files: &Files, ledger: &mut Ledger) {
    let (iteration, earlier) = (files.iteration, files.attempt - 1);
    match files.run_dir.set_aside_attempt(iteration, earlier) {
        Ok(true) => ledger.set_aside(iteration, earlier),
        // Not written (transcripts were off, or it failed with a warning).
        Ok(false) => {}
        Err(e) => diagnostic(format_args!(
            "warning: iteration {iteration}'s transcript of attempt {earlier}, which hit a \
             rate limit, could not be set aside ({e}); attempt {}'s replaces it",
            files.attempt
        )),
    }
}

/// Says that iteration `iteration`'s transcript lacks something, and why.
pub(super) fn warn(iteration: u32, error: &io::Error) {
    diagnostic(format_args!(
        "warning: iteration {iteration}'s transcript is incomplete: {error}"
    ));
}

/// Writes a file into the iteration's directory, which [`Files::create`] made.
fn write_file(run_dir: &RunDir, iteration: u32, name: &str, bytes: &[u8]) -> io::Result<()> {
    fsafe::create_file(&run_dir.iteration_dir(iteration).join(name))?.write_all(bytes)
}

/// Counts the bytes that reach the file.
struct Counting {
    file: File,
    written: u64,
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}
