//! Byte framing: arbitrary chunks in, complete lines out.
//!
//! Lines end at the `\n` byte; one trailing `\r` is removed (a PTY turns every `\n` into
//! `\r\n`). Splitting on the byte before any decoding means a multi-byte UTF-8 character
//! cut between two reads is simply joined again: it never reaches a decoder in halves.
//! A line that lies whole inside one chunk is handed out as a slice of that chunk; only a
//! line that spans chunks is copied, once, into the carry buffer. A line longer than the
//! cap is never held: its bytes are counted and dropped until its newline arrives.

use memchr::memchr;

/// The default longest line kept in memory. pi's snapshot lines reach hundreds of KB and
/// a tool output repeated in one line can reach tens of MB; beyond this a line is not an
/// event anybody can use, and holding it would let one line exhaust memory.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// One framed unit of the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A complete line without its `\n` (and without one trailing `\r`).
    Line(&'a [u8]),
    /// A line longer than the cap: skipped, with its length in bytes.
    Oversize(u64),
}

/// Splits a byte stream into lines; see the module documentation.
/// What [`LineFramer::push_offering`] hands its callback.
#[derive(Debug)]
pub(crate) enum Piece<'a> {
    /// The rest of the chunk, from the start of a line whose end is not looked for yet
    /// (the chunk may end before it does).
    LineStart(&'a [u8]),
    /// A line (or an over-long one), as [`LineFramer::push`] gives it.
    Frame(Frame<'a>),
}

#[derive(Debug)]
pub struct LineFramer {
    carry: Vec<u8>,
    /// Set while dropping an over-long line.
    skipping: Option<Skipped>,
    max_line: usize,
}

/// Progress through an over-long line.
#[derive(Debug, Clone, Copy)]
struct Skipped {
    bytes: u64,
    /// Whether the last byte dropped was `\r` (not part of the line if `\n` follows).
    ends_with_cr: bool,
}

impl Skipped {
    fn add(&mut self, bytes: &[u8]) {
        self.bytes += bytes.len() as u64;
        if let Some(&last) = bytes.last() {
            self.ends_with_cr = last == b'\r';
        }
    }

    fn line_len(self) -> u64 {
        self.bytes - u64::from(self.ends_with_cr)
    }
}

impl Default for LineFramer {
    fn default() -> Self {
        LineFramer::new(DEFAULT_MAX_LINE_BYTES)
    }
}

impl LineFramer {
    /// A framer that skips lines longer than `max_line` bytes.
    pub fn new(max_line: usize) -> Self {
        LineFramer {
            carry: Vec::new(),
            skipping: None,
            max_line,
        }
    }

    /// Feeds one chunk; calls `on_frame` for every line the chunk completes.
    pub fn push(&mut self, chunk: &[u8], mut on_frame: impl FnMut(Frame<'_>)) {
        self.push_offering(chunk, |piece| {
            if let Piece::Frame(frame) = piece {
                on_frame(frame);
            }
            None
        });
    }

    /// Like [`LineFramer::push`], but offers each line that starts inside `chunk` first
    /// as the rest of the chunk ([`Piece::LineStart`]): a callback that can tell where
    /// the line ends handles it and returns its length (the index of its newline), which
    /// saves looking for the newline; `None` has the line framed as usual.
    pub(crate) fn push_offering(
        &mut self,
        chunk: &[u8],
        mut on: impl FnMut(Piece<'_>) -> Option<usize>,
    ) {
        let mut rest = chunk;

        if let Some(mut skipped) = self.skipping {
            let Some(nl) = memchr(b'\n', rest) else {
                skipped.add(rest);
                self.skipping = Some(skipped);
                return;
            };
            skipped.add(&rest[..nl]);
            self.skipping = None;
            on(Piece::Frame(Frame::Oversize(skipped.line_len())));
            rest = &rest[nl + 1..];
        } else if !self.carry.is_empty() {
            let Some(nl) = memchr(b'\n', rest) else {
                self.hold(rest);
                return;
            };
            self.carry.extend_from_slice(&rest[..nl]);
            rest = &rest[nl + 1..];
            on(Piece::Frame(frame(&self.carry, self.max_line)));
            self.carry.clear();
        }

        // The chunk's last line, which goes on in the next chunk, is offered too: read
        // forward it costs what finding the chunk's last newline first would (a search
        // backwards from the end, slower than a forward read of the same bytes), and
        // then the search below runs over bytes the reader has just brought into cache.
        let mut start = 0;
        while start < rest.len() {
            let line = &rest[start..];
            if let Some(len) = on(Piece::LineStart(line)) {
                debug_assert_eq!(line.get(len), Some(&b'\n'));
                start += len + 1;
                continue;
            }
            let Some(nl) = memchr(b'\n', line) else {
                break;
            };
            on(Piece::Frame(frame(&line[..nl], self.max_line)));
            start += nl + 1;
        }
        self.hold(&rest[start..]);
    }

    /// Ends the stream: a last line without a trailing newline is delivered now.
    pub fn finish(&mut self, mut on_frame: impl FnMut(Frame<'_>)) {
        if let Some(skipped) = self.skipping.take() {
            on_frame(Frame::Oversize(skipped.line_len()));
        } else if !self.carry.is_empty() {
            on_frame(frame(&self.carry, self.max_line));
            self.carry.clear();
        }
    }

    /// Bytes of an incomplete line currently held.
    /// The longest line handed over whole.
    pub(crate) fn max_line(&self) -> usize {
        self.max_line
    }

    pub fn pending(&self) -> usize {
        self.carry.len()
    }

    /// Keeps the start of an unfinished line, or switches to skipping it once it is over
    /// the cap. The `+ 1` leaves room for a `\r` that the newline will strip; the carry
    /// therefore never exceeds the cap by more than one byte.
    fn hold(&mut self, tail: &[u8]) {
        if tail.is_empty() {
            return;
        }
        if self.carry.len() + tail.len() > self.max_line + 1 {
            let mut skipped = Skipped {
                bytes: self.carry.len() as u64,
                ends_with_cr: false,
            };
            skipped.add(tail);
            self.skipping = Some(skipped);
            self.carry.clear();
            // Give back the memory an over-long line made us take.
            self.carry.shrink_to(RETAINED_CARRY);
        } else {
            self.carry.extend_from_slice(tail);
        }
    }
}

/// Capacity kept after dropping an over-long line.
const RETAINED_CARRY: usize = 1024 * 1024;

/// The frame for a complete line (newline already removed).
fn frame(line: &[u8], max_line: usize) -> Frame<'_> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.len() > max_line {
        Frame::Oversize(line.len() as u64)
    } else {
        Frame::Line(line)
    }
}

#[cfg(test)]
#[path = "framer_tests.rs"]
mod tests;
