//! Finding where a string or a skipped object or array ends, 64 bytes at a time.
//!
//! Most bytes of an agent stream are in values nobody reads (pi repeats the whole
//! message so far, twice, in every `message_update`) or in long text whose end must be
//! found before it is decoded. Text is full of escaped quotes (code, JSON inside JSON):
//! searching for the next quote and counting the backslashes before it pays a search's
//! set-up every few dozen bytes, and walking a skipped object key by key pays a loop per
//! key. Here, as in simdjson's first stage, each 64-byte block becomes bit masks (bit
//! `i` for byte `i`) of its quotes, backslashes, newlines and brackets; the escaped
//! bytes of the whole block come from carry arithmetic on the backslash mask, the bytes
//! inside strings from a prefix xor of the unescaped quotes, and a block is skipped
//! whole when it cannot close the value. Most blocks of long text lie inside one
//! string: those are passed looking at little but their quotes (`pass.rs`).
//!
//! Every answer is the one the byte-at-a-time reading gives (the tests compare them);
//! where the two could differ, on broken input, [`container_end`] says so and the
//! caller reads byte by byte.
//!
//! The masks come from AVX-512BW or AVX2 when the CPU has them (detected at run time),
//! else from SSE2 on x86_64 (part of its baseline), and from a plain loop on other
//! targets; the bit logic after them is shared.

use super::index::Fed;
use super::index::Tracker;
use super::index::track_by;
use super::pass::pass_in_string;
use super::pass::quiet_escaped_portable;
use super::pass::quiet_portable;
use super::pass::skip_quiet_by;

/// Bytes per block: one bit of a `u64` per byte.
pub(super) const BLOCK: usize = 64;

/// Where the bytes that matter are in one block: bit `i` is byte `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Masks {
    pub(super) quote: u64,
    pub(super) backslash: u64,
    pub(super) newline: u64,
    /// `{` and `[`.
    pub(super) open: u64,
    /// `}` and `]`.
    pub(super) close: u64,
}

/// The escaped bytes of a run of blocks, one block after the other.
///
/// A backslash escapes the byte after it unless it is escaped itself, so in a run of
/// backslashes every second one escapes, and the byte after the run is escaped when the
/// run is odd. The count is done for a whole mask by a subtraction whose borrow runs
/// through each run (simdjson's `json_escape_scanner`).
#[derive(Debug, Default)]
pub(super) struct Escapes {
    /// 1 when the last byte of the previous block was an escaping backslash.
    pub(super) next_is_escaped: u64,
}

/// Bits at odd positions.
const ODD_BITS: u64 = 0xAAAA_AAAA_AAAA_AAAA;

impl Escapes {
    /// The bytes of this block that a backslash escapes.
    #[inline(always)]
    pub(super) fn next(&mut self, backslash: u64) -> u64 {
        // No shortcut for blocks without backslashes: in agent text about half the
        // blocks have one (`\n`), and a branch that guesses wrong half the time costs
        // more than the arithmetic, which gives the right answer for them too.
        // A backslash escaped from the previous block starts no run.
        let potential_escape = backslash & !self.next_is_escaped;
        // Subtracting each run from the odd bits borrows through the run: an
        // even-aligned run becomes ones, an odd-aligned one zeros, and the byte after
        // the run flips. Xor with the odd bits then leaves, in every run, the bits of
        // the escaping backslashes and, after an odd run, the escaped byte.
        let maybe_escaped = potential_escape << 1;
        let codes = (maybe_escaped | ODD_BITS).wrapping_sub(potential_escape) ^ ODD_BITS;
        let escaped = codes ^ (backslash | self.next_is_escaped);
        let escape = codes & backslash;
        self.next_is_escaped = escape >> (BLOCK - 1);
        escaped
    }
}

/// Which bytes lie inside strings, block after block.
#[derive(Debug, Default)]
pub(super) struct Strings {
    pub(super) escapes: Escapes,
    /// All ones while the previous block ended inside a string.
    pub(super) in_string: u64,
}

impl Strings {
    /// The bytes of the next block (with these `masks`) that lie inside a string, its
    /// opening quote included and its closing one not, counting only the quotes in
    /// `counted`.
    #[inline(always)]
    pub(super) fn inside(
        &mut self,
        masks: &Masks,
        counted: u64,
        prefix_xor: impl Fn(u64) -> u64,
    ) -> u64 {
        let quotes = masks.quote & !self.escapes.next(masks.backslash) & counted;
        let inside = prefix_xor(quotes) ^ self.in_string;
        // The top bit, spread: whether the next block starts inside a string.
        self.in_string = ((inside as i64) >> (BLOCK - 1)) as u64;
        inside
    }
}

/// Each bit xor-ed with all the bits below it: with a bit per unescaped quote, the
/// bytes from an opening quote up to (not including) its closing one.
#[inline(always)]
fn prefix_xor(mut bits: u64) -> u64 {
    let mut shift = 1;
    while shift < BLOCK {
        bits ^= bits << shift;
        shift *= 2;
    }
    bits
}

/// The last, partial block of some bytes, padded with zeros, which match no mask.
#[inline(always)]
pub(super) fn padded(rest: &[u8]) -> [u8; BLOCK] {
    let mut block = [0u8; BLOCK];
    block[..rest.len()].copy_from_slice(rest);
    block
}

/// Which of the x86_64 instruction sets the scanners are compiled for (`avx2`,
/// `avx512` in `scan_x86.rs`) this CPU runs: each with POPCNT, BMI1 and PCLMULQDQ,
/// which their functions enable too. The detection is cached by the standard library:
/// a load and a test.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(super) struct X86Sets {
    pub(super) avx2: bool,
    /// AVX-512BW (and so AVX-512F).
    pub(super) avx512: bool,
}

#[cfg(target_arch = "x86_64")]
impl X86Sets {
    #[inline(always)]
    pub(super) fn detect() -> X86Sets {
        let bits = std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("pclmulqdq");
        X86Sets {
            avx2: bits && std::is_x86_feature_detected!("avx2"),
            avx512: bits && std::is_x86_feature_detected!("avx512bw"),
        }
    }
}

/// Runs a `…_by` scanner with the widest masks this CPU has.
macro_rules! dispatch {
    ($scan:ident($($arg:expr),*; $($baseline:expr),*)) => {{
        #[cfg(target_arch = "x86_64")]
        {
            let sets = X86Sets::detect();
            if sets.avx512 {
                // SAFETY: the CPU has the `avx512` set (`X86Sets`).
                return unsafe { avx512::$scan($($arg),*) };
            }
            if sets.avx2 {
                // SAFETY: the CPU has the `avx2` set (`X86Sets`).
                return unsafe { avx2::$scan($($arg),*) };
            }
        }
        $scan($($arg),*, $($baseline),*)
    }};
}

/// Feeds the next bytes of a held line to `tracker` (see `index.rs`).
pub(super) fn track(tracker: &mut Tracker, bytes: &[u8]) -> Fed {
    dispatch!(track_by(tracker, bytes; classify, skip_quiet, prefix_xor))
}

/// The offset in `bytes` (a string's contents, after its opening quote) of the quote
/// that ends the string. `None` when the string does not end in `bytes`, or when
/// `one_line` and a raw newline comes first (the line ended inside the string).
pub(super) fn string_end(bytes: &[u8], one_line: bool) -> Option<usize> {
    dispatch!(string_end_by(bytes, one_line; classify, skip_quiet))
}

/// [`string_end`] with the masks made by `classify` and the text passed by `skip_quiet`.
///
/// The loops here call `classify` directly, never from a closure of their own: it
/// inlines only into code compiled with its target features, which such a closure would
/// not be even once this function is inlined into code that is.
#[inline(always)]
fn string_end_by(
    bytes: &[u8],
    one_line: bool,
    classify: impl Fn(&[u8; BLOCK]) -> Masks,
    skip_quiet: impl Fn(&[[u8; BLOCK]], usize) -> usize,
) -> Option<usize> {
    let newlines = if one_line { u64::MAX } else { 0 };
    let mut escapes = Escapes::default();
    let (blocks, rest) = bytes.as_chunks::<BLOCK>();
    let mut index = 0;
    loop {
        index = pass_in_string(
            blocks,
            index,
            newlines,
            &mut escapes,
            &classify,
            &skip_quiet,
        );
        let Some(block) = blocks.get(index) else {
            break;
        };
        if let Some(end) = first_string_end(bytes, index, classify(block), newlines, &mut escapes) {
            return end;
        }
        index += 1;
    }
    if rest.is_empty() {
        return None;
    }
    first_string_end(
        bytes,
        index,
        classify(&padded(rest)),
        newlines,
        &mut escapes,
    )
    .flatten()
}

/// In block `index` of `bytes`, with its `masks`: the string's end, if it is there
/// (`Some(None)` for a newline that breaks the line first).
#[inline(always)]
fn first_string_end(
    bytes: &[u8],
    index: usize,
    masks: Masks,
    newlines: u64,
    escapes: &mut Escapes,
) -> Option<Option<usize>> {
    let escaped = escapes.next(masks.backslash);
    let ends = (masks.quote & !escaped) | (masks.newline & newlines);
    (ends != 0).then(|| {
        let at = index * BLOCK + ends.trailing_zeros() as usize;
        (bytes[at] == b'"').then_some(at)
    })
}

/// How an object or array ends, as far as the blocks tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Container {
    /// Its closing bracket is the byte before this offset.
    End(usize),
    /// The bytes end first.
    Unterminated,
    /// Before its end there is a newline in a line whose end is not known, or a
    /// backslash outside any string. The lenient byte-at-a-time reading treats such a
    /// backslash as an ordinary byte, while the masks would take it for an escape: the
    /// caller reads these (broken) values byte by byte, so they read exactly as before.
    Irregular,
}

/// Where the object or array that starts `bytes` (with its `{` or `[`) ends, by
/// bracket depth outside strings. Lenient, as the byte-at-a-time reading: any closing
/// bracket closes any opening one.
pub(super) fn container_end(bytes: &[u8], one_line: bool) -> Container {
    dispatch!(container_end_by(bytes, one_line; classify, skip_quiet, prefix_xor))
}

/// [`container_end`] with the masks made by `classify`, the text passed by
/// `skip_quiet` and the prefix xor by `prefix_xor`.
#[inline(always)]
fn container_end_by(
    bytes: &[u8],
    one_line: bool,
    classify: impl Fn(&[u8; BLOCK]) -> Masks,
    skip_quiet: impl Fn(&[[u8; BLOCK]], usize) -> usize,
    prefix_xor: impl Fn(u64) -> u64,
) -> Container {
    let mut scan = Structure {
        newlines: if one_line { u64::MAX } else { 0 },
        ..Structure::default()
    };
    let (blocks, rest) = bytes.as_chunks::<BLOCK>();
    let mut index = 0;
    loop {
        if scan.strings.in_string != 0 {
            let escapes = &mut scan.strings.escapes;
            index = pass_in_string(
                blocks,
                index,
                scan.newlines,
                escapes,
                &classify,
                &skip_quiet,
            );
        }
        let Some(block) = blocks.get(index) else {
            break;
        };
        if let Some(found) = scan.block(classify(block), &prefix_xor, index * BLOCK) {
            return found;
        }
        index += 1;
    }
    if rest.is_empty() {
        return Container::Unterminated;
    }
    let offset = blocks.len() * BLOCK;
    scan.block(classify(&padded(rest)), &prefix_xor, offset)
        .unwrap_or(Container::Unterminated)
}

/// The state of [`container_end`] between blocks.
#[derive(Debug, Default)]
struct Structure {
    /// All ones when newlines end the value (a line whose end is not known).
    newlines: u64,
    strings: Strings,
    /// Brackets open so far.
    depth: u32,
}

impl Structure {
    /// Reads one block (at `offset`) of the value: what it found, if it ends here.
    #[inline(always)]
    fn block(
        &mut self,
        masks: Masks,
        prefix_xor: impl Fn(u64) -> u64,
        offset: usize,
    ) -> Option<Container> {
        let inside = self.strings.inside(&masks, u64::MAX, prefix_xor);
        let open = masks.open & !inside;
        let close = masks.close & !inside;
        let irregular = (masks.backslash & !inside) | (masks.newline & self.newlines);
        if self.depth > close.count_ones() {
            // Too few closing brackets to get back out: the end is further on.
            self.depth = self.depth + open.count_ones() - close.count_ones();
            return (irregular != 0).then_some(Container::Irregular);
        }
        let mut brackets = open | close;
        while brackets != 0 {
            let bracket = brackets & brackets.wrapping_neg();
            brackets ^= bracket;
            if open & bracket != 0 {
                self.depth += 1;
                continue;
            }
            // Only a stray closing bracket before any opening one finds the depth at
            // zero; the value starts with an opening one.
            self.depth = match self.depth.checked_sub(1) {
                Some(depth) => depth,
                None => return Some(Container::Irregular),
            };
            if self.depth == 0 {
                if irregular & (bracket - 1) != 0 {
                    return Some(Container::Irregular);
                }
                return Some(Container::End(
                    offset + bracket.trailing_zeros() as usize + 1,
                ));
            }
        }
        (irregular != 0).then_some(Container::Irregular)
    }
}

/// The masks of one block with the widest instructions every CPU of the target has.
#[inline(always)]
fn classify(block: &[u8; BLOCK]) -> Masks {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        sse2::classify(block)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        classify_portable(block)
    }
}

/// The masks of one block, a byte at a time: for targets without a vector version, and
/// as the reference the vector versions are tested against.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn classify_portable(block: &[u8; BLOCK]) -> Masks {
    let mut masks = Masks::default();
    for (i, &b) in block.iter().enumerate() {
        masks.quote |= u64::from(b == b'"') << i;
        masks.backslash |= u64::from(b == b'\\') << i;
        masks.newline |= u64::from(b == b'\n') << i;
        masks.open |= u64::from(b | BRACKET_CASE == b'{') << i;
        masks.close |= u64::from(b | BRACKET_CASE == b'}') << i;
    }
    masks
}

/// Setting this bit maps `[` onto `{` and `]` onto `}` (and nothing else onto them):
/// one compare finds both kinds of bracket.
const BRACKET_CASE: u8 = 0x20;

/// The index of the first block from `index` on that the tests of [`super::pass`] stop
/// at, with the widest instructions every CPU of the target has.
#[inline(always)]
fn skip_quiet(blocks: &[[u8; BLOCK]], index: usize) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        skip_quiet_by(blocks, index, sse2::quiet, sse2::quiet_escaped)
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        skip_quiet_portable(blocks, index)
    }
}

/// [`skip_quiet`] a byte at a time: for targets without a vector version, and as the
/// reference the vector versions are tested against.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn skip_quiet_portable(blocks: &[[u8; BLOCK]], index: usize) -> usize {
    skip_quiet_by(blocks, index, quiet_portable, quiet_escaped_portable)
}

#[cfg(target_arch = "x86_64")]
#[path = "scan_x86.rs"]
mod x86;
#[cfg(all(test, target_arch = "x86_64"))]
use x86::clmul;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
use x86::sse2;
#[cfg(target_arch = "x86_64")]
use x86::{avx2, avx512};

#[cfg(test)]
#[path = "scan_tests.rs"]
pub(super) mod tests;
