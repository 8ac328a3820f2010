//! Where the objects and arrays of a line end, found while the line arrives in pieces.
//!
//! A line longer than one read (pi repeats the whole message so far, twice, in each
//! `message_update`, hundreds of KB; Copilot repeats a tool's output) is held until its
//! newline comes and only then parsed. Finding that newline reads every byte once, and
//! the parser, skipping the snapshots it has no use for, read them all again. Instead,
//! while the line is held, each new piece goes through the block scan of `scan.rs`
//! once, as it arrives: it records where each object and array near the top ends, and
//! sees the newline or the end of the line's object, so nothing else has to search for
//! them. Once the line is whole, the parser skips each recorded value in one step
//! ([`LineIndex::end_of`]).
//!
//! A recorded end is the one the scanner would find from that value's start: the scan
//! from the line's start is in the same state there (outside any string, nothing
//! escaped), and from then on both read the same bytes the same way. What `scan.rs`
//! reads byte by byte instead (a backslash outside any string) ends the index; the
//! parser then scans as it would without one.

use super::pass::pass_in_string;
use super::scan::BLOCK;
use super::scan::Masks;
use super::scan::Strings;
use super::scan::padded;

/// Values nested deeper than this (the line's object is at depth 0) are not recorded:
/// the parser finds their ends by scanning, if it ever skips one. The values agents
/// repeat sit at depth 1 to 3.
const MAX_DEPTH: u32 = 8;

/// Most values recorded for one line. A line with more has no index: its values are
/// scanned when skipped, as without one, and the index's memory stays bounded.
const MAX_ENTRIES: usize = 4096;

/// The recorded values of one line: `(start, end)` offsets in the line, the end just
/// past the closing bracket (0 while not closed), in the order the values start.
#[derive(Debug, Default)]
pub(crate) struct LineIndex {
    entries: Vec<(usize, usize)>,
}

impl LineIndex {
    /// Where the object or array that starts at `start` ends (just past its closing
    /// bracket), if it is recorded.
    pub(crate) fn end_of(&self, start: usize) -> Option<usize> {
        let found = self
            .entries
            .binary_search_by_key(&start, |&(s, _)| s)
            .ok()?;
        let end = self.entries[found].1;
        (end != 0).then_some(end)
    }
}

/// Asserts that every end recorded in `index` is the one the scanner finds in `line`.
#[cfg(test)]
pub(crate) fn assert_index_agrees(line: &[u8], index: &LineIndex) {
    for &(start, end) in &index.entries {
        if end != 0 {
            assert_eq!(
                super::scan::container_end(&line[start..], false),
                super::scan::Container::End(end - start),
                "the value at {start} of {:?}",
                String::from_utf8_lossy(line)
            );
        }
    }
}

/// What feeding the tracker some bytes of the line told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fed {
    /// Nothing yet: the line goes on.
    More,
    /// The line's first value (its object) ends just before this offset in the line; no
    /// newline came before it.
    Ended(usize),
    /// A raw newline at this offset in the line ends it before its value does.
    Newline(usize),
    /// The scan cannot stand in for the parser's on this line (see the module
    /// documentation), or recorded too many values: no index.
    GaveUp,
}

/// Reads a held line piece by piece and records its values' ends.
#[derive(Debug)]
pub(crate) struct Tracker {
    strings: Strings,
    /// Brackets open so far.
    depth: u32,
    /// The line offset of the next whole block's first byte.
    offset: usize,
    /// The bytes of a block not yet whole.
    pending: [u8; BLOCK],
    pending_len: usize,
    /// The entries of the recorded values still open, innermost last.
    open: Vec<usize>,
    index: LineIndex,
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker {
            strings: Strings::default(),
            depth: 0,
            offset: 0,
            pending: [0; BLOCK],
            pending_len: 0,
            open: Vec::new(),
            index: LineIndex::default(),
        }
    }
}

impl Tracker {
    /// Starts a new line, keeping the memory of the last one.
    pub(crate) fn restart(&mut self) {
        let (mut open, mut index) = (
            std::mem::take(&mut self.open),
            std::mem::take(&mut self.index),
        );
        open.clear();
        index.entries.clear();
        *self = Tracker {
            open,
            index,
            ..Tracker::default()
        };
    }

    /// Reads the next bytes of the line. After anything but [`Fed::More`], the line is
    /// read: feed it no more until [`Tracker::restart`].
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Fed {
        super::scan::track(self, bytes)
    }

    /// The values recorded so far.
    pub(crate) fn index(&self) -> &LineIndex {
        &self.index
    }

    /// Reads one block at `self.offset`: `Some` when the line's reading is over.
    #[inline(always)]
    fn block(&mut self, masks: Masks, prefix_xor: impl Fn(u64) -> u64) -> Option<Fed> {
        let offset = self.offset;
        self.offset += BLOCK;
        let strings = &mut self.strings;
        // A raw newline ends the line, in a string or not: what follows is not its.
        let first_newline = masks.newline & masks.newline.wrapping_neg();
        let line = first_newline.wrapping_sub(1);
        let inside = strings.inside(&masks, line, prefix_xor);
        let outside = !inside & line;
        let (open, close) = (masks.open & outside, masks.close & outside);
        let irregular = masks.backslash & outside;
        let newline =
            (first_newline != 0).then(|| Fed::Newline(offset + line.count_ones() as usize));
        if irregular == 0 && self.depth > close.count_ones() + MAX_DEPTH {
            // Every bracket here is deeper than what is recorded, and none closes the
            // line's value.
            self.depth = self.depth + open.count_ones() - close.count_ones();
            return newline;
        }
        let mut brackets = open | close;
        while brackets != 0 {
            let bracket = brackets & brackets.wrapping_neg();
            brackets ^= bracket;
            if irregular & (bracket - 1) != 0 {
                return Some(Fed::GaveUp);
            }
            let at = offset + bracket.trailing_zeros() as usize;
            if open & bracket != 0 {
                if self.depth <= MAX_DEPTH {
                    if self.index.entries.len() == MAX_ENTRIES {
                        return Some(Fed::GaveUp);
                    }
                    self.open.push(self.index.entries.len());
                    self.index.entries.push((at, 0));
                }
                self.depth += 1;
                continue;
            }
            // A closing bracket before any opening one: not a value the parser reads.
            let Some(depth) = self.depth.checked_sub(1) else {
                return Some(Fed::GaveUp);
            };
            self.depth = depth;
            if depth <= MAX_DEPTH
                && let Some(entry) = self.open.pop()
            {
                self.index.entries[entry].1 = at + 1;
            }
            if depth == 0 {
                return Some(Fed::Ended(at + 1));
            }
        }
        if irregular != 0 {
            return Some(Fed::GaveUp);
        }
        newline
    }
}

/// [`Tracker::feed`] with the masks made by `classify`, the text passed by `skip_quiet`
/// and the prefix xor by `prefix_xor` (compiled per instruction set in `scan_x86.rs`).
#[inline(always)]
pub(super) fn track_by(
    tracker: &mut Tracker,
    mut bytes: &[u8],
    classify: impl Fn(&[u8; BLOCK]) -> Masks,
    skip_quiet: impl Fn(&[[u8; BLOCK]], usize) -> usize,
    prefix_xor: impl Fn(u64) -> u64,
) -> Fed {
    if tracker.pending_len > 0 {
        let take = (BLOCK - tracker.pending_len).min(bytes.len());
        let len = tracker.pending_len;
        tracker.pending[len..len + take].copy_from_slice(&bytes[..take]);
        tracker.pending_len += take;
        bytes = &bytes[take..];
        if tracker.pending_len == BLOCK {
            tracker.pending_len = 0;
            let block = tracker.pending;
            if let Some(fed) = tracker.block(classify(&block), &prefix_xor) {
                return fed;
            }
        }
    }
    if tracker.pending_len == 0 {
        let (blocks, rest) = bytes.as_chunks::<BLOCK>();
        let mut next = 0;
        while next < blocks.len() {
            if tracker.strings.in_string != 0 {
                // Most blocks of long text: any newline ends the line, in a string or not.
                let escapes = &mut tracker.strings.escapes;
                let passed =
                    pass_in_string(blocks, next, u64::MAX, escapes, &classify, &skip_quiet);
                tracker.offset += (passed - next) * BLOCK;
                next = passed;
                if next == blocks.len() {
                    break;
                }
            }
            if let Some(fed) = tracker.block(classify(&blocks[next]), &prefix_xor) {
                return fed;
            }
            next += 1;
        }
        tracker.pending[..rest.len()].copy_from_slice(rest);
        tracker.pending_len = rest.len();
    }
    // The bytes of a block not yet whole wait for the next piece, unless the line ends
    // among them: the caller must hear of the newline now. Read padded, they give what
    // they will give whole, up to the newline.
    let pending = &tracker.pending[..tracker.pending_len];
    if memchr::memchr(b'\n', pending).is_some() {
        let block = padded(pending);
        tracker.pending_len = 0;
        return tracker
            .block(classify(&block), &prefix_xor)
            .unwrap_or(Fed::More);
    }
    Fed::More
}

#[cfg(test)]
#[path = "index_tests.rs"]
mod tests;
