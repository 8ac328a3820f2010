//! The transcripts' cap (`transcripts.max_bytes_per_run`): which raw streams of the run
//! are kept, and deleting the oldest once together they outgrow it.

use std::collections::VecDeque;
use std::io;

use ralph_core::store::{Attempt, RunDir, TranscriptId};

/// The run's kept raw streams and their sizes, oldest iteration first, so that keeping
/// the cap costs nothing per iteration: listing them from disk takes a `stat` for every
/// iteration so far, which over a long run adds up to a square. The disk is read once, at
/// the first iteration's end (a continued run has streams already); what the agent does
/// to the files afterwards is not followed, so the cap holds for what ralph writes.
#[derive(Default)]
pub(super) struct Ledger {
    /// `None` until read from disk.
    streams: Option<VecDeque<(TranscriptId, u64)>>,
    total: u64,
}

impl Ledger {
    /// Counts iteration `current`'s stream of `size` bytes, then deletes the oldest raw
    /// streams while together they exceed `max_bytes`; prompts, command lines and the
    /// run's events stay. The stream of `current` stays: the compressing thread already
    /// cut it at the cap.
    pub(super) fn keep(
        &mut self,
        run_dir: &RunDir,
        max_bytes: u64,
        current: u32,
        size: u64,
    ) -> io::Result<()> {
        let current = TranscriptId::latest(current);
        let streams = match &mut self.streams {
            Some(streams) => {
                // An attempt after a rate limit rewrote the iteration's file: the one
                // before could not be set aside.
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

    /// Iteration `iteration`'s stream was set aside as its `attempt`th, limited: its
    /// bytes still count, under its new name. It is the last stream counted, and stays
    /// in order: an iteration's limited attempts come before its latest.
    pub(super) fn set_aside(&mut self, iteration: u32, attempt: u32) {
        if let Some(stream) = self.streams.as_mut().and_then(VecDeque::back_mut)
            && stream.0 == TranscriptId::latest(iteration)
        {
            stream.0.attempt = Attempt::Limited(attempt);
        }
    }
}

#[cfg(test)]
#[path = "ledger_tests.rs"]
mod tests;
