//! Each iteration's transcript under `.ralph/runs/<id>/iterations/<n>/` (the layout is
//! in `ralph_core::store`'s `transcript` module): the prompt and the command line are
//! written before the agent starts, its raw stdout is compressed as it arrives, its
//! stderr tail when it ends.
//!
//! The raw stream goes through a bounded channel to a thread of its own that runs the
//! zstd encoder, so the loop's thread only copies bytes: `ralph run` keeps up with the
//! agent as before, and memory stays at the channel's bound plus the encoder's window.
//! A transcript that cannot be written costs a warning, never the run.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use ralph_agent::{SpawnSpec, StdinSource};
use ralph_core::config::TranscriptsConfig;
use ralph_core::store::{COMMAND_FILE, PROMPT_FILE, RunDir, STDERR_FILE, STDOUT_FILE};
use serde::Serialize;

use crate::diagnostic::diagnostic;

/// The zstd level: the fastest of the default range, which already shrinks a
/// snapshot-shaped stream (each event repeats the message so far) many times over.
const ZSTD_LEVEL: i32 = 1;

/// Bytes gathered before a hand-over to the compressing thread: few hand-overs, and
/// little memory.
const BATCH_BYTES: usize = 256 * 1024;

/// Batches in flight: at most this many wait for the compressor before the agent's
/// output waits (as it would in a full pipe).
const BATCHES_IN_FLIGHT: usize = 8;

/// What the command file holds: enough to run the agent again, without secrets (the
/// environment's names only; the prompt is `prompt.md`), and without this machine's
/// paths: `.ralph/` is restored on other machines and at other paths (a CI artifact, a
/// volume), where the workspace's absolute path and where the agent was installed mean
/// nothing.
#[derive(Serialize)]
struct CommandRecord<'a> {
    /// Relative to the workspace when inside it, else the program's file name (as found
    /// on `PATH`).
    program: String,
    /// The arguments, the prompt replaced by [`PROMPT_ARG`].
    args: Vec<String>,
    /// Whether the prompt went to the agent's stdin.
    prompt_on_stdin: bool,
    /// Relative to the workspace (`.` for the workspace itself).
    cwd: Option<String>,
    /// The variables ralph set for the agent (names only).
    env_set: Vec<String>,
    /// The variables the agent inherited from ralph's environment (names only).
    env_inherited: Vec<String>,
    pty: bool,
    iteration: u32,
    hat: &'a str,
    backend: &'a str,
}

/// Stands for the prompt in the recorded arguments.
const PROMPT_ARG: &str = "@prompt.md";

/// How the compressing thread ended.
struct Written {
    /// Compressed bytes on disk.
    compressed: u64,
    /// Raw bytes that reached the file (all, unless the cap cut the stream).
    raw: u64,
    /// The stream outgrew the run's cap and its end was not kept.
    cut: bool,
}

/// One iteration's transcript while its agent runs.
pub(crate) struct Transcript {
    iteration: u32,
    batch: Vec<u8>,
    sender: Option<SyncSender<Vec<u8>>>,
    /// Batches the compressor is done with, to fill again: a fresh buffer each time
    /// would cost its page faults again and again.
    spent: Option<Receiver<Vec<u8>>>,
    worker: Option<JoinHandle<io::Result<Written>>>,
    max_bytes: u64,
}

/// Who the iteration is, for the command file.
pub(crate) struct Who<'a> {
    /// The workspace, which the recorded paths are relative to.
    pub(crate) workspace: &'a Path,
    pub(crate) iteration: u32,
    pub(crate) hat: &'a str,
    pub(crate) backend: &'a str,
}

impl Transcript {
    /// Writes the prompt and the command line, and starts the raw stream's file; a
    /// disabled (or unwritable) transcript takes the bytes and keeps nothing.
    pub(crate) fn start(
        run_dir: &RunDir,
        config: TranscriptsConfig,
        who: &Who<'_>,
        prompt: &str,
        spec: &SpawnSpec,
    ) -> Transcript {
        let mut transcript = Transcript {
            iteration: who.iteration,
            batch: Vec::new(),
            sender: None,
            spent: None,
            worker: None,
            max_bytes: u64::from(config.max_bytes_per_run),
        };
        if !config.enabled {
            return transcript;
        }
        let record = command_record(who, prompt, spec);
        let command = match serde_json::to_vec_pretty(&record) {
            Ok(command) => command,
            Err(e) => {
                warn(who.iteration, &io::Error::other(e));
                return transcript;
            }
        };
        let files = Files {
            run_dir: run_dir.clone(),
            iteration: who.iteration,
            prompt: prompt.to_owned(),
            command,
        };
        let (sender, receiver) = sync_channel::<Vec<u8>>(BATCHES_IN_FLIGHT);
        let (give_back, spent) = sync_channel::<Vec<u8>>(BATCHES_IN_FLIGHT);
        let max_bytes = transcript.max_bytes;
        // The files are created on the thread too: creating a file can take longer than
        // starting the agent (hundreds of microseconds on a full ext4), and here it
        // overlaps the agent's start instead of delaying it. Batches wait in the channel.
        let worker = std::thread::Builder::new()
            .name("ralph-transcript".to_owned())
            .spawn(move || {
                let file = files.create()?;
                compress(file, max_bytes, receiver.into_iter(), &give_back)
            });
        match worker {
            Ok(worker) => {
                transcript.sender = Some(sender);
                transcript.spent = Some(spent);
                transcript.worker = Some(worker);
                transcript.batch = Vec::with_capacity(BATCH_BYTES);
            }
            Err(e) => warn(who.iteration, &e),
        }
        transcript
    }

    /// Takes a chunk of the agent's stdout as it arrived.
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        if self.sender.is_none() {
            return;
        }
        self.batch.extend_from_slice(bytes);
        if self.batch.len() >= BATCH_BYTES {
            self.hand_over();
        }
    }

    fn hand_over(&mut self) {
        let next = match self.spent.as_ref().map(Receiver::try_recv) {
            Some(Ok(spent)) => spent,
            _ => Vec::with_capacity(BATCH_BYTES),
        };
        let batch = std::mem::replace(&mut self.batch, next);
        if batch.is_empty() {
            return;
        }
        // A send fails only when the thread is gone (it failed): `finish` says why.
        if let Some(sender) = &self.sender
            && sender.send(batch).is_err()
        {
            self.sender = None;
        }
    }

    /// Ends the raw stream, writes the stderr tail (when there is one), and deletes the
    /// oldest raw streams while the run's exceed the cap.
    pub(crate) fn finish(mut self, run_dir: &RunDir, ledger: &mut Ledger, stderr_tail: &str) {
        if self.worker.is_none() {
            return;
        }
        self.hand_over();
        self.sender = None;
        let written = self.worker.take().map(|w| {
            w.join()
                .unwrap_or_else(|_| Err(io::Error::other("the transcript thread panicked")))
        });
        let kept = match written {
            Some(Ok(written)) => {
                if written.cut {
                    diagnostic(format_args!(
                        "warning: iteration {}'s output outgrew `transcripts.max_bytes_per_run` \
                         ({} bytes compressed); its transcript keeps the first {} bytes",
                        self.iteration, written.compressed, written.raw
                    ));
                }
                Some(written.compressed)
            }
            Some(Err(e)) => {
                warn(self.iteration, &e);
                None
            }
            None => None,
        };
        // Most agents write nothing there: no file is one file fewer to create each
        // iteration, and a missing `stderr.txt` reads as an empty stderr.
        if !stderr_tail.is_empty()
            && let Err(e) = write_file(run_dir, self.iteration, STDERR_FILE, stderr_tail.as_bytes())
        {
            warn(self.iteration, &e);
        }
        if let Some(compressed) = kept
            && let Err(e) = ledger.keep(run_dir, self.max_bytes, self.iteration, compressed)
        {
            warn(self.iteration, &e);
        }
    }
}

/// What the compressing thread writes before the raw stream: the prompt and the command.
struct Files {
    run_dir: RunDir,
    iteration: u32,
    prompt: String,
    command: Vec<u8>,
}

impl Files {
    /// Writes the prompt and the command files, and opens the raw stream's.
    fn create(self) -> io::Result<File> {
        write_file(
            &self.run_dir,
            self.iteration,
            PROMPT_FILE,
            self.prompt.as_bytes(),
        )?;
        write_file(&self.run_dir, self.iteration, COMMAND_FILE, &self.command)?;
        let (_, file) = self
            .run_dir
            .create_iteration_file(self.iteration, STDOUT_FILE)?;
        Ok(file)
    }
}

fn warn(iteration: u32, error: &io::Error) {
    diagnostic(format_args!(
        "warning: iteration {iteration}'s transcript is incomplete: {error}"
    ));
}

fn write_file(run_dir: &RunDir, iteration: u32, name: &str, bytes: &[u8]) -> io::Result<()> {
    let (_, mut file) = run_dir.create_iteration_file(iteration, name)?;
    file.write_all(bytes)
}

fn command_record<'a>(who: &Who<'a>, prompt: &str, spec: &SpawnSpec) -> CommandRecord<'a> {
    let text = |s: &OsString| s.to_string_lossy().into_owned();
    let set: Vec<String> = spec.env.iter().map(|(name, _)| text(name)).collect();
    let mut inherited: Vec<String> = std::env::vars_os()
        .map(|(name, _)| text(&name))
        .filter(|name| !set.contains(name))
        .collect();
    inherited.sort();
    let program = Path::new(&spec.program);
    let program = match program.strip_prefix(who.workspace) {
        Ok(inside) => inside.display().to_string(),
        Err(_) if program.is_absolute() => program
            .file_name()
            .map_or_else(|| text(&spec.program), |name| text(&name.to_owned())),
        Err(_) => text(&spec.program),
    };
    CommandRecord {
        program,
        args: spec
            .args
            .iter()
            .map(|a| {
                if a.as_os_str() == prompt {
                    PROMPT_ARG.to_owned()
                } else {
                    text(a)
                }
            })
            .collect(),
        prompt_on_stdin: matches!(spec.stdin, StdinSource::Bytes(_) | StdinSource::Live(_)),
        cwd: spec.cwd.as_ref().map(|p| relative_dir(p, who.workspace)),
        env_set: set,
        env_inherited: inherited,
        pty: spec.pty,
        iteration: who.iteration,
        hat: who.hat,
        backend: who.backend,
    }
}

/// `dir` relative to `workspace` (`.` for the workspace itself); a directory outside it
/// as it is.
fn relative_dir(dir: &Path, workspace: &Path) -> String {
    match dir.strip_prefix(workspace) {
        Ok(inside) if inside.as_os_str().is_empty() => ".".to_owned(),
        Ok(inside) => inside.display().to_string(),
        Err(_) => dir.display().to_string(),
    }
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

/// The compressing thread: every batch into one zstd frame, until the senders are gone
/// or the compressed size reaches `max_bytes` (the rest is then read and dropped, so the
/// agent never waits on a transcript that keeps nothing more). Each batch, emptied, goes
/// back through `give_back` to be filled again.
fn compress(
    file: File,
    max_bytes: u64,
    batches: impl Iterator<Item = Vec<u8>>,
    give_back: &SyncSender<Vec<u8>>,
) -> io::Result<Written> {
    let mut encoder = zstd::stream::write::Encoder::new(Counting { file, written: 0 }, ZSTD_LEVEL)?;
    let mut raw = 0u64;
    let mut cut = false;
    for mut batch in batches {
        if !cut {
            encoder.write_all(&batch)?;
            raw += batch.len() as u64;
            cut = encoder.get_ref().written >= max_bytes;
        }
        batch.clear();
        // Full (the loop has spare batches) or gone: the batch is simply dropped.
        let _ = give_back.try_send(batch);
    }
    let counting = encoder.finish()?;
    Ok(Written {
        compressed: counting.written,
        raw,
        cut,
    })
}

/// The run's kept raw streams and their sizes, oldest iteration first, so that keeping
/// the cap costs nothing per iteration: listing them from disk takes a `stat` for every
/// iteration so far, which over a long run adds up to a square. The disk is read once, at
/// the first iteration's end (a continued run has streams already); what the agent does
/// to the files afterwards is not followed, so the cap holds for what ralph writes.
#[derive(Default)]
pub(crate) struct Ledger {
    /// `None` until read from disk.
    streams: Option<VecDeque<(u32, u64)>>,
    total: u64,
}

impl Ledger {
    /// Counts iteration `current`'s stream of `size` bytes, then deletes the oldest raw
    /// streams while together they exceed `max_bytes`; prompts, command lines and the
    /// run's events stay. The stream of `current` stays: the compressing thread already
    /// cut it at the cap.
    pub(crate) fn keep(
        &mut self,
        run_dir: &RunDir,
        max_bytes: u64,
        current: u32,
        size: u64,
    ) -> io::Result<()> {
        let streams = match &mut self.streams {
            Some(streams) => {
                // A retried attempt (after a rate limit) rewrote the same iteration's file.
                if let Some(&(last, old)) = streams.back()
                    && last == current
                {
                    streams.pop_back();
                    self.total -= old;
                }
                streams.push_back((current, size));
                self.total += size;
                streams
            }
            None => {
                let streams: VecDeque<_> = run_dir.raw_streams()?.into();
                self.total = streams.iter().map(|(_, size)| size).sum();
                self.streams.insert(streams)
            }
        };
        while self.total > max_bytes {
            let Some(&(oldest, size)) = streams.front() else {
                break;
            };
            if oldest == current {
                break;
            }
            run_dir.remove_raw_stream(oldest)?;
            streams.pop_front();
            self.total -= size;
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
