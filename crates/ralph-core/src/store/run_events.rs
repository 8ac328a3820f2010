//! Reading a run's event record (`run-events.jsonl`) back for what only it knows while an
//! iteration runs: the iteration's start. `history.jsonl` gets an iteration's record when
//! it ends; until then its hat, backend, the events it was given and when it started are
//! in its `iteration_started` line, written (and flushed within a tick) as it starts.
//!
//! The record holds every agent event, so it can be large: the last start is found by
//! reading backwards from the end (through the running iteration's events only), the
//! first by reading forwards (it comes after a few lines). Only the starts of lines are
//! compared; a line is read whole only when it is an `iteration_started` line, and then
//! within a bound, since `.ralph/` is untrusted.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::time::{Duration, SystemTime};

use serde::Deserialize;

use super::RunDir;
use crate::event::Event;
use crate::fsafe::{self, Links};

/// How an `iteration_started` line begins: the tag comes first in every run event
/// (`#[serde(tag = "type")]`), and ralph writes no spaces.
const START_PREFIX: &[u8] = br#"{"type":"iteration_started","#;
/// The most bytes of an `iteration_started` line read: its events' payloads are bounded
/// (64 KiB each), a hostile file is not.
const MAX_START_LINE_BYTES: u64 = 16 * 1024 * 1024;
/// How much of the record is read at a time, going backwards.
const BACKWARD_CHUNK_BYTES: u64 = 64 * 1024;

/// What an `iteration_started` line says of an iteration (its latest attempt, for the
/// last one).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct IterationStart {
    pub iteration: u32,
    pub hat: String,
    pub backend: String,
    /// The events the hat was given.
    pub events: Vec<Event>,
    /// Unix milliseconds.
    pub started_at_ms: u64,
    /// The run's time when it started, as `max_runtime` counts it (0 in a record written
    /// before ralph said it).
    #[serde(default)]
    pub elapsed_ms: u64,
}

/// What the record shows of the iteration a killed ralph was in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KilledIteration {
    /// When it started (its last attempt), Unix milliseconds.
    pub started_at_ms: u64,
    /// How long it ran: from its start to the record's last write (0 when the clock was
    /// set back since).
    pub ran: Duration,
    /// The run's time at that last write, as `max_runtime` counts it: its start's
    /// `elapsed_ms` plus `ran`.
    pub runtime_ms: u64,
}

impl RunDir {
    /// The last iteration start in the run's record: the running iteration's, while one
    /// runs. `None` without a record or a readable start line in it.
    pub fn last_iteration_start(&self) -> io::Result<Option<IterationStart>> {
        self.iteration_start(last_line_with_prefix)
    }

    /// The first iteration start in the run's record: when the run's first iteration
    /// started, before its history has a record.
    pub fn first_iteration_start(&self) -> io::Result<Option<IterationStart>> {
        self.iteration_start(first_line_with_prefix)
    }

    /// What the record shows of iteration `number`, the one a killed ralph was in: when it
    /// started, and how long it ran, to the record's last write (the file's modification
    /// time). Read before anything else writes to the record: an agent that was quiet
    /// until the kill ran longer than this, none ran shorter. `None` without a record, or
    /// when its last start is not of `number` (killed between iterations).
    pub fn killed_iteration(&self, number: u32) -> io::Result<Option<KilledIteration>> {
        let Some(start) = self.last_iteration_start()? else {
            return Ok(None);
        };
        if start.iteration != number {
            return Ok(None);
        }
        let file = fsafe::open_read(&self.run_events(), Links::Refuse)?;
        let written = file.metadata()?.modified()?;
        let ran_ms = ran_ms(start.started_at_ms, written);
        Ok(Some(KilledIteration {
            started_at_ms: start.started_at_ms,
            ran: Duration::from_millis(ran_ms),
            runtime_ms: start.elapsed_ms.saturating_add(ran_ms),
        }))
    }

    /// The iteration start at the line `find` finds in the record.
    fn iteration_start(
        &self,
        find: fn(&mut File, &[u8]) -> io::Result<Option<u64>>,
    ) -> io::Result<Option<IterationStart>> {
        let mut file = match fsafe::open_read(&self.run_events(), Links::Refuse) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        match find(&mut file, START_PREFIX)? {
            Some(at) => read_start(&mut file, at),
            None => Ok(None),
        }
    }
}

/// The milliseconds from `started_at_ms` (Unix milliseconds) to `written`; 0 when the
/// clock says it was written before the start (set back since).
fn ran_ms(started_at_ms: u64, written: SystemTime) -> u64 {
    super::unix_ms(written).saturating_sub(started_at_ms)
}

/// The start line at `at`, parsed; `None` when it is too long or not a start.
fn read_start(file: &mut File, at: u64) -> io::Result<Option<IterationStart>> {
    file.seek(SeekFrom::Start(at))?;
    let mut line = Vec::new();
    BufReader::new(file.take(MAX_START_LINE_BYTES)).read_until(b'\n', &mut line)?;
    Ok(serde_json::from_slice(&line).ok())
}

/// The offset of the last line of `file` that begins with `prefix`.
fn last_line_with_prefix(file: &mut File, prefix: &[u8]) -> io::Result<Option<u64>> {
    let mut end = file.seek(SeekFrom::End(0))?;
    // The first bytes after the chunk being read (the start of the later lines), so that
    // a line beginning at the chunk's last newline can be compared whole.
    let mut after: Vec<u8> = Vec::new();
    let mut buf = Vec::new();
    while end > 0 {
        let start = end.saturating_sub(BACKWARD_CHUNK_BYTES);
        let len = usize::try_from(end - start).expect("a chunk fits in memory");
        buf.clear();
        buf.resize(len, 0);
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut buf)?;
        buf.extend_from_slice(&after);
        // Each line start in the chunk, last first: after a newline, or the file's start.
        let newlines = buf[..len]
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| i + 1);
        let file_start = (start == 0).then_some(0);
        for at in newlines.chain(file_start) {
            if buf[at..].starts_with(prefix) {
                return Ok(Some(start + at as u64));
            }
        }
        buf.truncate(prefix.len().min(buf.len()));
        std::mem::swap(&mut after, &mut buf);
        end = start;
    }
    Ok(None)
}

/// The offset of the first line of `file` that begins with `prefix`.
fn first_line_with_prefix(file: &mut File, prefix: &[u8]) -> io::Result<Option<u64>> {
    file.seek(SeekFrom::Start(0))?;
    let mut reader = BufReader::new(file);
    let mut at = 0u64;
    let mut head = Vec::with_capacity(prefix.len());
    loop {
        head.clear();
        let took = (&mut reader)
            .take(prefix.len() as u64)
            .read_until(b'\n', &mut head)?;
        if took == 0 {
            return Ok(None);
        }
        if head == prefix {
            return Ok(Some(at));
        }
        at += took as u64;
        if head.last() != Some(&b'\n') {
            // The rest of the line, however long, without keeping it.
            at += reader.skip_until(b'\n')? as u64;
        }
    }
}

#[cfg(test)]
#[path = "run_events_tests.rs"]
mod tests;
