//! Each iteration's transcript under `.ralph/runs/<id>/iterations/<n>/` (the layout is
//! in `ralph_core::store`'s `transcript` module): the prompt and the command line are
//! written as the agent starts, its raw stdout is compressed as it arrives, its stderr
//! tail after it ends.
//!
//! The raw stream goes through a bounded channel to a thread of its own that runs the
//! zstd encoder and does all the writing (`worker.rs`), so the loop's thread only copies
//! bytes: `ralph run` keeps up with the agent as before, and memory stays at the
//! channel's bound plus the encoder's window. The thread and its zstd context last the
//! whole run ([`Transcripts`]): a thread and a context made afresh for every iteration
//! cost more of ralph's own time per iteration (a stack to map, a megabyte of tables to
//! zero, the page faults of both) than the rest of the transcript together. A transcript
//! that cannot be written costs a warning, never the run.

mod command;
mod ledger;
mod worker;

use std::io;
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use ralph_agent::SpawnSpec;
use ralph_core::config::TranscriptsConfig;
use ralph_core::store::RunDir;
use ralph_stream::StreamFormat;

use worker::{Files, Job, warn};

/// Bytes gathered before a hand-over to the compressing thread: few hand-overs, and
/// little memory.
const BATCH_BYTES: usize = 256 * 1024;

/// Jobs in flight (batches, mostly): at most this many wait for the compressing thread
/// before the agent's output waits (as it would in a full pipe).
const BATCHES_IN_FLIGHT: usize = 8;

/// The run's transcripts: the compressing thread, started with the first one.
#[derive(Default)]
pub(crate) struct Transcripts {
    worker: Option<Worker>,
}

/// The compressing thread's end of the run.
struct Worker {
    jobs: SyncSender<Job>,
    /// Batches the compressor is done with, to fill again: a fresh buffer each time
    /// would cost its page faults again and again. Lent to each iteration's transcript.
    spent: Option<Receiver<Vec<u8>>>,
}

impl Transcripts {
    /// The compressing thread, started if there is none yet (or the last one died).
    fn worker(&mut self) -> io::Result<&mut Worker> {
        let worker = match self.worker.take() {
            Some(worker) => worker,
            None => {
                let (jobs, receiver) = sync_channel::<Job>(BATCHES_IN_FLIGHT);
                let (give_back, spent) = sync_channel::<Vec<u8>>(BATCHES_IN_FLIGHT);
                // Not joined: `wait` is how the run waits for it, and it ends when the
                // run drops its sender.
                std::thread::Builder::new()
                    .name("ralph-transcript".to_owned())
                    .spawn(move || worker::serve(&receiver, &give_back))?;
                Worker {
                    jobs,
                    spent: Some(spent),
                }
            }
        };
        Ok(self.worker.insert(worker))
    }

    /// Starts iteration `who.iteration`'s transcript: the prompt, the command line and
    /// the raw stream's file are written while the agent starts. A disabled (or
    /// unwritable) transcript takes the bytes and keeps nothing.
    pub(crate) fn start(
        &mut self,
        run_dir: &RunDir,
        config: TranscriptsConfig,
        who: &Who<'_>,
        prompt: &str,
        spec: &SpawnSpec,
    ) -> Transcript {
        let mut transcript = Transcript {
            iteration: who.iteration,
            batch: Vec::new(),
            jobs: None,
            spent: None,
            started: false,
        };
        if !config.enabled {
            return transcript;
        }
        let record = command::command_record(who, prompt, spec);
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
            attempt: who.attempt,
            prompt: prompt.to_owned(),
            command,
        };
        let worker = match self.worker() {
            Ok(worker) => worker,
            Err(e) => {
                warn(who.iteration, &e);
                return transcript;
            }
        };
        let max_bytes = u64::from(config.max_bytes_per_run);
        if worker.jobs.send(Job::Start { files, max_bytes }).is_err() {
            self.worker = None;
            warn(who.iteration, &thread_gone());
            return transcript;
        }
        transcript.jobs = Some(worker.jobs.clone());
        transcript.spent = worker.spent.take();
        transcript.started = true;
        transcript.batch = transcript.fresh_batch();
        transcript
    }

    /// Waits until everything handed to the compressing thread is on disk: before a
    /// hook or a gate runs (it may read a transcript), and at the run's end.
    pub(crate) fn wait(&self) {
        let Some(worker) = &self.worker else {
            return;
        };
        let (done, flushed) = sync_channel(1);
        // Either fails only when the thread is gone; the next start says so.
        if worker.jobs.send(Job::Flush(done)).is_ok() {
            let _ = flushed.recv();
        }
    }
}

/// At the run's end every transcript is on disk before ralph goes on (to exit, or to
/// `ralph inspect`).
impl Drop for Transcripts {
    fn drop(&mut self) {
        self.wait();
    }
}

/// Who the iteration is, for the command file.
pub(crate) struct Who<'a> {
    /// The workspace, which the recorded paths are relative to.
    pub(crate) workspace: &'a Path,
    pub(crate) iteration: u32,
    /// Which attempt at it (from 1): after the first, the one before ended on a limit,
    /// and its transcript is set aside before this one's is written.
    pub(crate) attempt: u32,
    pub(crate) hat: &'a str,
    pub(crate) backend: &'a str,
    /// The format the run decodes its stdout as (a custom backend's `output_format`).
    pub(crate) output_format: StreamFormat,
}

/// One iteration's transcript while its agent runs.
pub(crate) struct Transcript {
    iteration: u32,
    batch: Vec<u8>,
    /// `None` when nothing (more) is kept: disabled, or the thread is gone.
    jobs: Option<SyncSender<Job>>,
    spent: Option<Receiver<Vec<u8>>>,
    /// The thread was told to start it.
    started: bool,
}

impl Transcript {
    /// Takes a chunk of the agent's stdout as it arrived.
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        if self.jobs.is_none() {
            return;
        }
        self.batch.extend_from_slice(bytes);
        if self.batch.len() >= BATCH_BYTES {
            self.hand_over();
        }
    }

    /// A batch to fill: one the compressor is done with, else a new one.
    fn fresh_batch(&self) -> Vec<u8> {
        match self.spent.as_ref().map(Receiver::try_recv) {
            Some(Ok(spent)) => spent,
            _ => Vec::with_capacity(BATCH_BYTES),
        }
    }

    fn hand_over(&mut self) {
        let next = self.fresh_batch();
        let batch = std::mem::replace(&mut self.batch, next);
        if batch.is_empty() {
            return;
        }
        // A send fails only when the thread is gone: `finish` says so.
        if let Some(jobs) = &self.jobs
            && jobs.send(Job::Batch(batch)).is_err()
        {
            self.jobs = None;
        }
    }

    /// Ends the raw stream; the thread writes the rest (the stderr tail, when there is
    /// one) and keeps the run's cap, while the loop goes on.
    pub(crate) fn finish(mut self, transcripts: &mut Transcripts, stderr_tail: &str) {
        if !self.started {
            return;
        }
        self.hand_over();
        let end = Job::End {
            stderr_tail: stderr_tail.to_owned(),
        };
        let ended = self.jobs.take().is_some_and(|jobs| jobs.send(end).is_ok());
        match &mut transcripts.worker {
            Some(worker) if ended => worker.spent = self.spent.take(),
            // The thread died (it panicked): the next iteration starts another.
            _ => {
                transcripts.worker = None;
                warn(self.iteration, &thread_gone());
            }
        }
    }
}

fn thread_gone() -> io::Error {
    io::Error::other("the transcript thread stopped")
}

#[cfg(test)]
mod tests;
