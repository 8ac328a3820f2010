//! A gate's or hook's log with a ceiling: its start and its end, whatever it prints.
//!
//! A gate runs after every iteration that claims what it guards; one that prints 20 MB
//! and fails, with an agent that claims completion every time, wrote 20 MB a log per
//! iteration, without end. What a person reads in such a log is its start (what ran,
//! the first error of a build) and its end (the failing tests, the summary), so the log
//! keeps the first [`HEAD_BYTES`] and the last [`TAIL_BYTES`] and, between them, says
//! how much was left out. The tail is held in memory until the command ends
//! ([`CappedLog::finish`]); a log that stays under the ceiling is written as it comes.

use std::collections::VecDeque;
use std::io::{self, Write};

/// What a log keeps of the start of the output.
pub(crate) const HEAD_BYTES: usize = 2 << 20;
/// What a log keeps of the end of the output.
pub(crate) const TAIL_BYTES: usize = 6 << 20;

/// Writes to `out` up to [`HEAD_BYTES`], then holds the last [`TAIL_BYTES`] until
/// [`CappedLog::finish`].
pub(crate) struct CappedLog<W: Write> {
    out: W,
    head: usize,
    tail: VecDeque<u8>,
    /// Bytes that went by the tail (neither kept at the start nor at the end).
    left_out: u64,
    head_bytes: usize,
    tail_bytes: usize,
}

impl<W: Write> CappedLog<W> {
    pub(crate) fn new(out: W) -> CappedLog<W> {
        CappedLog::with_limits(out, HEAD_BYTES, TAIL_BYTES)
    }

    fn with_limits(out: W, head_bytes: usize, tail_bytes: usize) -> CappedLog<W> {
        CappedLog {
            out,
            head: 0,
            tail: VecDeque::new(),
            left_out: 0,
            head_bytes,
            tail_bytes,
        }
    }

    /// Writes what the tail holds, after a line saying how much was left out before it,
    /// and returns the writer.
    pub(crate) fn finish(mut self) -> io::Result<W> {
        if self.left_out > 0 {
            write!(
                self.out,
                "\n[ralph: {} bytes of output left out here; the log keeps the first {} and \
                 the last {}]\n",
                self.left_out, self.head_bytes, self.tail_bytes
            )?;
        }
        let (front, back) = self.tail.as_slices();
        self.out.write_all(front)?;
        self.out.write_all(back)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> Write for CappedLog<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let to_head = buf.len().min(self.head_bytes - self.head);
        self.out.write_all(&buf[..to_head])?;
        self.head += to_head;
        let rest = &buf[to_head..];
        if !rest.is_empty() {
            // Only the last `tail_bytes` of what comes can stay.
            let kept = &rest[rest.len().saturating_sub(self.tail_bytes)..];
            self.left_out += (rest.len() - kept.len()) as u64;
            let over = (self.tail.len() + kept.len()).saturating_sub(self.tail_bytes);
            self.tail.drain(..over);
            self.left_out += over as u64;
            self.tail.extend(kept);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
#[path = "capped_log_tests.rs"]
mod tests;
