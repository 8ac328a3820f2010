//! Reads a growing JSON-lines file as it is written (`ralph watch` on
//! `run-events.jsonl`): only whole lines are handed on; a line still being written waits
//! in the framer until its newline comes. The writer is never waited for or locked.
//!
//! The file is the agent's to write into too. A line longer than any run event can be
//! ([`MAX_RECORD_LINE_BYTES`]) is not held but counted and skipped, so that junk without
//! a newline (a gigabyte of zeros) cannot take the watcher's memory.

use std::fs::File;
use std::io::{self, Read};

use ralph_core::run_event::MAX_RECORD_LINE_BYTES;
use ralph_stream::{Frame, LineFramer};

/// How much is read at once: a watcher catching up on a long record draws between
/// chunks instead of reading it all first.
pub(crate) const CHUNK: usize = 1 << 20;

pub(crate) struct Follower {
    file: File,
    framer: LineFramer,
    chunk: Vec<u8>,
}

impl Follower {
    pub(crate) fn new(file: File) -> Follower {
        Follower::with_max_line(file, MAX_RECORD_LINE_BYTES)
    }

    /// A follower that skips lines longer than `max_line` bytes.
    pub(crate) fn with_max_line(file: File, max_line: usize) -> Follower {
        Follower {
            file,
            framer: LineFramer::new(max_line),
            chunk: vec![0; CHUNK],
        }
    }

    /// Reads up to [`CHUNK`] new bytes and hands on each line they complete (without its
    /// newline; blank ones left out), or the length of one too long to hold. Returns how
    /// many bytes were read (0 at the current end).
    pub(crate) fn read(&mut self, mut on_frame: impl FnMut(Frame<'_>)) -> io::Result<usize> {
        let read = loop {
            match self.file.read(&mut self.chunk) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        self.framer.push(&self.chunk[..read], |frame| match frame {
            Frame::Line([]) => {}
            frame => on_frame(frame),
        });
        Ok(read)
    }
}
