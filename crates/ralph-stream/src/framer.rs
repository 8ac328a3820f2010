//! Byte framing: arbitrary chunks in, complete lines out.
//!
//! Lines end at the `\n` byte; one trailing `\r` is removed (a PTY turns every `\n` into
//! `\r\n`). Splitting on the byte before any decoding means a multi-byte UTF-8 character
//! cut between two reads is simply joined again: it never reaches a decoder in halves.
//! A line that lies whole inside one chunk is handed out as a slice of that chunk; only a
//! line that spans chunks is copied, once, into the carry buffer. A line longer than the
//! cap is never held: its bytes are counted and dropped until its newline arrives.
//!
//! For the decoder, a line can also be read where it starts in the chunk, before its
//! end is looked for ([`Piece::LineStart`]), and a line held over chunks can be indexed
//! as its bytes arrive (`json/index.rs`), so that no byte of it is read twice.

use memchr::memchr;

use crate::json::Fed;
use crate::json::LineIndex;
use crate::json::Tracker;

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
    /// A line held over chunks, whole now, with where its objects and arrays end: read
    /// as they arrived, which also found the line's end.
    Indexed(&'a [u8], &'a LineIndex),
}

/// What the callback of [`LineFramer::push_offering`] answers to a
/// [`Piece::LineStart`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Offer {
    /// It handled the line, whose newline is at this offset.
    Took(usize),
    /// The line is framed as usual.
    Frame,
    /// The line is framed as usual, but if it goes on past the chunk, its values are
    /// indexed while it is held: it comes whole as a [`Piece::Indexed`].
    Track,
}

#[derive(Debug)]
pub struct LineFramer {
    carry: Vec<u8>,
    /// Set while dropping an over-long line.
    skipping: Option<Skipped>,
    max_line: usize,
    /// Reads the held line's values as its bytes arrive, when it is tracked.
    tracker: Tracker,
    tracking: Tracking,
    /// Whether the callback asks for lines to be tracked (see [`Offer::Track`]).
    tracks: bool,
    /// About how long recent lines were (see [`LineFramer::seen_line`]).
    recent_line: usize,
}

/// Where the tracking of the held line stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tracking {
    /// The held line is not tracked (or nothing is held).
    Off,
    /// Each new chunk goes through the tracker until it finds the line's end.
    Reading,
    /// The line's value has ended: only its newline is still to come.
    Read,
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
            tracker: Tracker::default(),
            tracking: Tracking::Off,
            tracks: false,
            recent_line: 0,
        }
    }

    /// Feeds one chunk; calls `on_frame` for every line the chunk completes.
    pub fn push(&mut self, chunk: &[u8], mut on_frame: impl FnMut(Frame<'_>)) {
        self.push_offering(chunk, |piece| {
            match piece {
                Piece::Frame(frame) => on_frame(frame),
                Piece::Indexed(line, _) => on_frame(Frame::Line(line)),
                Piece::LineStart(_) => {}
            }
            Offer::Frame
        });
    }

    /// Like [`LineFramer::push`], but offers each line that starts inside `chunk` first
    /// as the rest of the chunk ([`Piece::LineStart`]): a callback that can tell where
    /// the line ends handles it and returns its length (the index of its newline), which
    /// saves looking for the newline; otherwise the line is framed as usual, and indexed
    /// if the callback asks for it (see [`Offer`]). The callback's answer to other
    /// pieces is ignored.
    pub(crate) fn push_offering(&mut self, chunk: &[u8], mut on: impl FnMut(Piece<'_>) -> Offer) {
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
            let Some((nl, indexed)) = self.line_end(rest) else {
                self.hold(rest);
                return;
            };
            self.carry.extend_from_slice(&rest[..nl]);
            rest = &rest[nl + 1..];
            let index = indexed.then(|| self.tracker.index());
            on(piece(&self.carry, self.max_line, index));
            self.seen_line(self.carry.len());
            self.carry.clear();
        }

        // Where the chunk's last line starts is not looked for first (a search backwards
        // from the end is slower than a forward read of the same bytes): it is offered
        // or tracked like the others.
        let mut start = 0;
        while start < rest.len() {
            let line = &rest[start..];
            // A line that starts nearer the chunk's end than recent lines were long will
            // most likely go on in the next chunk (pi's snapshots grow a delta a line):
            // it is tracked from its start rather than read here and again once whole.
            let offer = if self.tracks && line.len() < self.recent_line {
                Offer::Track
            } else {
                on(Piece::LineStart(line))
            };
            self.tracks |= offer == Offer::Track;
            if let Offer::Took(len) = offer {
                debug_assert_eq!(line.get(len), Some(&b'\n'));
                self.seen_line(len);
                start += len + 1;
                continue;
            }
            let end = match offer {
                // The tracker reads the line instead of a search for its newline.
                Offer::Track => {
                    self.tracker.restart();
                    self.tracking = Tracking::Reading;
                    self.line_end(line)
                }
                _ => memchr(b'\n', line).map(|nl| (nl, false)),
            };
            let Some((nl, indexed)) = end else {
                break;
            };
            let index = indexed.then(|| self.tracker.index());
            on(piece(&line[..nl], self.max_line, index));
            self.seen_line(nl);
            start += nl + 1;
        }
        self.hold(&rest[start..]);
    }

    /// Keeps the length of recent lines: the longest, fading by an eighth a line.
    fn seen_line(&mut self, len: usize) {
        self.recent_line = len.max(self.recent_line - self.recent_line / 8);
    }

    /// Where the line being read ends in `chunk` (the offset of its newline), if it
    /// does, and whether it comes with its index; the bytes before `chunk` are the
    /// held ones. A tracked line's bytes go through the tracker, which tells where its
    /// value ends: only the bytes after it are searched.
    fn line_end(&mut self, chunk: &[u8]) -> Option<(usize, bool)> {
        // The line's offset of the chunk's first byte.
        let held = self.carry.len();
        let from = match self.tracking {
            Tracking::Reading => match self.tracker.feed(chunk) {
                Fed::More => return None,
                Fed::Newline(at) => {
                    self.tracking = Tracking::Off;
                    // The held bytes have no newline: it is in this chunk.
                    return Some((at - held, true));
                }
                Fed::Ended(end) => {
                    self.tracking = Tracking::Read;
                    end.saturating_sub(held)
                }
                Fed::GaveUp => {
                    self.tracking = Tracking::Off;
                    0
                }
            },
            Tracking::Read | Tracking::Off => 0,
        };
        let nl = memchr(b'\n', &chunk[from..])? + from;
        // The line is whole: what comes next is not tracked until asked for.
        let indexed = std::mem::replace(&mut self.tracking, Tracking::Off) == Tracking::Read;
        Some((nl, indexed))
    }

    /// Ends the stream: a last line without a trailing newline is delivered now.
    pub fn finish(&mut self, mut on_frame: impl FnMut(Frame<'_>)) {
        self.tracking = Tracking::Off;
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
            self.tracking = Tracking::Off;
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

/// What a complete line (newline already removed) is handed over as: with its index,
/// if it has one and is not over the cap.
fn piece<'a>(line: &'a [u8], max_line: usize, index: Option<&'a LineIndex>) -> Piece<'a> {
    match (frame(line, max_line), index) {
        (Frame::Line(line), Some(index)) => Piece::Indexed(line, index),
        (frame, _) => Piece::Frame(frame),
    }
}

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
