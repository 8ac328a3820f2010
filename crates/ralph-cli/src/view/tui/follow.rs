//! Reads a growing JSON-lines file as it is written (`ralph watch` on
//! `run-events.jsonl`): only whole lines are handed on; a line still being written waits
//! in a buffer until its newline comes. The writer is never waited for or locked.

use std::fs::File;
use std::io::{self, Read};

/// How much is read at once: a watcher catching up on a long record draws between
/// chunks instead of reading it all first.
pub(crate) const CHUNK: usize = 1 << 20;

pub(crate) struct Follower {
    file: File,
    buffer: Vec<u8>,
    /// Bytes of `buffer` that hold the start of a line not yet ended.
    pending: usize,
}

impl Follower {
    pub(crate) fn new(file: File) -> Follower {
        Follower {
            file,
            buffer: Vec::new(),
            pending: 0,
        }
    }

    /// Reads up to [`CHUNK`] new bytes and hands on each line they complete (without its
    /// newline). Returns how many bytes were read (0 at the current end).
    pub(crate) fn read(&mut self, mut on_line: impl FnMut(&[u8])) -> io::Result<usize> {
        self.buffer.truncate(self.pending);
        self.buffer.resize(self.pending + CHUNK, 0);
        let read = loop {
            match self.file.read(&mut self.buffer[self.pending..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.buffer.truncate(self.pending);
                    return Err(e);
                }
            }
        };
        self.buffer.truncate(self.pending + read);
        let mut start = 0;
        // Only the new bytes can hold a newline: the pending ones were looked at before.
        let mut from = self.pending;
        while let Some(offset) = self.buffer[from..].iter().position(|&b| b == b'\n') {
            let end = from + offset;
            if end > start {
                on_line(&self.buffer[start..end]);
            }
            start = end + 1;
            from = start;
        }
        self.buffer.drain(..start);
        self.pending = self.buffer.len();
        Ok(read)
    }
}
