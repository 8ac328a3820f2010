//! Passing long text: the blocks that lie inside one string, found without working out
//! each block's structure.
//!
//! Most bytes of an agent stream are text inside strings (a message, a tool's output,
//! pi's snapshots of both). Where [`super::scan`] skips a value or looks for a string's
//! end, it hands such runs of blocks to [`pass_in_string`], which looks at little more
//! than whether a block could end the string: a quote, or a newline on a line whose end
//! is not known. Two tests do that, each a few vector instructions for two blocks at a
//! time, so that the pass reads text about as fast as memchr reads for one byte:
//! - the quiet test, for text with no quote at all (see [`QUIET_FOLD`]);
//! - where it fails, the same test that lets through quotes escaped by a backslash that
//!   stands alone (`\"`, as code and quoted text are full of), looking at the two bytes
//!   before each quote.
//!
//! Only a block that both tests stop at has its escapes worked out in full.

use super::scan::BLOCK;
use super::scan::Escapes;
use super::scan::Masks;

/// Setting these bits maps both `"` and a newline onto [`QUIET_MATCH`] (they differ in
/// exactly these bits), so that one compare a register finds either. It maps only two
/// other bytes there, `*` and the control byte 0x02: a block with one of those is read
/// again in full, as a block with a quote is. Against two compares a register (quote,
/// newline), this passes long text half again as fast in cache, about as fast as
/// memchr looks for one byte.
pub(super) const QUIET_FOLD: u8 = b'"' ^ b'\n';

/// What a quote or a newline becomes with [`QUIET_FOLD`] set.
pub(super) const QUIET_MATCH: u8 = b'"' | QUIET_FOLD;

/// Moves past the whole blocks of `blocks`, from block `index` on, that lie inside a
/// string going on past them (most blocks of long text), and returns the index of the
/// first other one (a quote ends the string in it, or a newline where `newlines` end the
/// line) or of the end. `escapes` holds the escape carried into block `index`, and then
/// the one carried into the block returned.
///
/// Past the first block, `skip_quiet` moves over the blocks that the tests in the
/// module's documentation let through ([`skip_quiet_by`]); only at a block they stop at
/// are its escapes worked out, to tell whether a quote in it is escaped. The escape
/// carried into a block is the parity of the run of backslashes just before it, counted
/// back over the blocks passed, and on with the escape carried into the first of them
/// when the run is all of them (a reader fed in pieces no longer has the bytes before).
/// A run is counted at most twice: none reaches back over a block with a quote.
#[inline(always)]
pub(super) fn pass_in_string(
    blocks: &[[u8; BLOCK]],
    mut index: usize,
    newlines: u64,
    escapes: &mut Escapes,
    classify: impl Fn(&[u8; BLOCK]) -> Masks,
    skip_quiet: impl Fn(&[[u8; BLOCK]], usize) -> usize,
) -> usize {
    let start = index;
    let carried_in = escapes.next_is_escaped;
    let escape_into = |at: usize| escape_after(blocks[start..at].as_flattened(), carried_in);
    while let Some(block) = blocks.get(index) {
        let masks = classify(block);
        if masks.newline & newlines != 0 {
            break;
        }
        if masks.quote != 0 {
            let carry = escape_into(index);
            let escaped = Escapes {
                next_is_escaped: carry,
            }
            .next(masks.backslash);
            if masks.quote & !escaped != 0 {
                escapes.next_is_escaped = carry;
                return index;
            }
        }
        // The string goes on past a whole block: long text. (The tests start only
        // here: most strings end in their first block, where they would only add to
        // the reading above.)
        index = skip_quiet(blocks, index + 1);
    }
    if index > start {
        escapes.next_is_escaped = escape_into(index);
    }
    index
}

/// The escape `bytes` carry into the byte after them: 1 when an odd run of backslashes
/// ends them. When the run is all of them, an escape carried into their first byte
/// (`carried_in`) flips it: an escaped backslash starts no run.
#[inline(always)]
fn escape_after(bytes: &[u8], carried_in: u64) -> u64 {
    let run = bytes.iter().rev().take_while(|&&b| b == b'\\').count();
    if run == bytes.len() {
        (run as u64 + carried_in) & 1
    } else {
        (run & 1) as u64
    }
}

/// The index of the first block, from block `index` on (at least 1: the block before
/// it gives the bytes before its first), that the tests stop at, two blocks at a time:
/// `quiet` on a pair, and where it fails `quiet_escaped` on the pair with the block
/// before it. A block after the last whole pair is left to the caller.
#[inline(always)]
pub(super) fn skip_quiet_by(
    blocks: &[[u8; BLOCK]],
    mut index: usize,
    quiet: impl Fn(&[[u8; BLOCK]; 2]) -> bool,
    quiet_escaped: impl Fn(&[[u8; BLOCK]; 3]) -> bool,
) -> usize {
    debug_assert!(index >= 1, "the pass starts after a block");
    loop {
        let (pairs, _) = blocks[index..].as_chunks::<2>();
        index += 2 * pairs.iter().take_while(|pair| quiet(pair)).count();
        match blocks[index - 1..].first_chunk::<3>() {
            Some(window) if quiet_escaped(window) => index += 2,
            _ => return index,
        }
    }
}

/// Whether two blocks have no quote and no newline, a byte at a time: for targets
/// without a vector version, and as the reference the vector versions are tested
/// against. It may say no when they have neither (see [`QUIET_FOLD`]).
pub(super) fn quiet_portable(pair: &[[u8; BLOCK]; 2]) -> bool {
    pair.as_flattened()
        .iter()
        .all(|&b| b | QUIET_FOLD != QUIET_MATCH)
}

/// Whether the last two blocks of `window` have no newline, and no quote but those a
/// lone backslash escapes: the byte before the quote is a backslash and the one before
/// that is not (so the run of backslashes before the quote is one long, and escapes
/// it). The first block gives the bytes before the second's first. A byte at a time,
/// as [`quiet_portable`]; like it, it may say no where the vector test cannot tell.
pub(super) fn quiet_escaped_portable(window: &[[u8; BLOCK]; 3]) -> bool {
    let bytes = window.as_flattened();
    (BLOCK..3 * BLOCK).all(|at| {
        let escaped_alone = bytes[at] == b'"' && bytes[at - 1] == b'\\' && bytes[at - 2] != b'\\';
        bytes[at] | QUIET_FOLD != QUIET_MATCH || escaped_alone
    })
}

#[cfg(test)]
#[path = "pass_tests.rs"]
pub(super) mod tests;
