//! The masks of a block on x86_64: SSE2 (every CPU of the target), AVX2 and AVX-512BW
//! (detected at run time), and the prefix xor as one carry-less multiplication. The
//! scanners are compiled once per instruction set here, so the intrinsics inline into
//! them.

/// The prefix xor in one carry-less multiplication (by all ones).
pub(super) mod clmul {
    use std::arch::x86_64::_mm_clmulepi64_si128;
    use std::arch::x86_64::_mm_cvtsi64_si128;
    use std::arch::x86_64::_mm_cvtsi128_si64;
    use std::arch::x86_64::_mm_set1_epi8;

    /// [`super::super::prefix_xor`]: multiplying without carries by all ones xors each bit
    /// into every bit above it.
    #[target_feature(enable = "pclmulqdq")]
    #[inline]
    pub(in super::super) fn prefix_xor(bits: u64) -> u64 {
        let product = _mm_clmulepi64_si128(_mm_cvtsi64_si128(bits as i64), _mm_set1_epi8(-1), 0);
        _mm_cvtsi128_si64(product) as u64
    }
}

/// The body of `classify` for an instruction set whose compares give a byte mask through
/// `movemask`: one register of `$lanes` bytes at a time, each compared with the five
/// patterns, the brackets after folding case (`{[` and `}]` differ in one bit). Expanded
/// in each `#[target_feature]` function itself, so the intrinsics are inlined there.
/// The caller provides the `unsafe` context for SSE2, where the whole body needs it.
macro_rules! lane_masks {
    ($block:expr, $lanes:expr, $set1:ident, $load:ident, $reg:ty, $or:ident, $cmpeq:ident,
     $movemask:ident, $bits:ty) => {{
        let pattern = |byte: u8| $set1(byte as i8);
        let (quote, backslash, newline) = (pattern(b'"'), pattern(b'\\'), pattern(b'\n'));
        let (case, open, close) = (pattern(BRACKET_CASE), pattern(b'{'), pattern(b'}'));
        let mut masks = Masks::default();
        for (i, lanes) in $block.as_chunks::<$lanes>().0.iter().enumerate() {
            // SAFETY: `lanes` is an array of exactly the bytes the unaligned load reads.
            #[allow(unused_unsafe)]
            let v = unsafe { $load(lanes.as_ptr().cast::<$reg>()) };
            let folded = $or(v, case);
            let bits = |v, pattern| {
                // movemask sets one bit per byte in the low bits: the cast keeps them all
                // and drops the sign.
                let lanes = $movemask($cmpeq(v, pattern)) as $bits;
                u64::from(lanes) << (i * $lanes)
            };
            masks.quote |= bits(v, quote);
            masks.backslash |= bits(v, backslash);
            masks.newline |= bits(v, newline);
            masks.open |= bits(folded, open);
            masks.close |= bits(folded, close);
        }
        masks
    }};
}

/// The body of `quiet` for an instruction set whose compares give a byte mask through
/// `movemask`: each register of the two blocks folded and compared once, the results
/// or-ed together and tested once. Expanded where `lane_masks!` is, for the same reason.
macro_rules! quiet_lanes {
    ($pair:expr, $lanes:expr, $set1:ident, $load:ident, $reg:ty, $or:ident, $cmpeq:ident,
     $movemask:ident) => {{
        let (fold, target) = ($set1(QUIET_FOLD as i8), $set1(QUIET_MATCH as i8));
        let mut found = $set1(0);
        for lanes in $pair.as_flattened().as_chunks::<$lanes>().0 {
            // SAFETY: `lanes` is an array of exactly the bytes the unaligned load reads.
            #[allow(unused_unsafe)]
            let v = unsafe { $load(lanes.as_ptr().cast::<$reg>()) };
            found = $or(found, $cmpeq($or(v, fold), target));
        }
        $movemask(found) == 0
    }};
}

/// The body of `quiet_escaped` (see `json/pass.rs`), for every instruction set. Each
/// register of the window's last two blocks is loaded again one and two bytes earlier,
/// for a byte that is 1 where a lone backslash escapes a quote (by saturating
/// arithmetic: `1 - x` is 1 only where `x` is 0, `min(x, 1)` only where it is not).
/// Or-ed into the quiet test's distance, it leaves zero bytes only where the pass must
/// stop. The least bytes of all are tested once by `$no_zero` (whether a register has
/// no zero byte). Expanded where `lane_masks!` is, for the same reason.
macro_rules! quiet_escaped_lanes {
    ($window:expr, $lanes:expr, $set1:ident, $load:ident, $reg:ty, $or:ident, $xor:ident,
     $and:ident, $subs:ident, $min:ident, $no_zero:expr) => {{
        let (fold, target) = ($set1(QUIET_FOLD as i8), $set1(QUIET_MATCH as i8));
        let (one, quote, backslash) = ($set1(1), $set1(b'"' as i8), $set1(b'\\' as i8));
        let bytes = $window.as_flattened();
        let load = |from: usize| {
            let lanes: &[u8; $lanes] = bytes[from..from + $lanes].try_into().unwrap();
            // SAFETY: `lanes` is an array of exactly the bytes the unaligned load reads.
            #[allow(unused_unsafe)]
            unsafe {
                $load(lanes.as_ptr().cast::<$reg>())
            }
        };
        let mut least = $set1(-1);
        for at in (BLOCK..3 * BLOCK).step_by($lanes) {
            let (v, before, before_that) = (load(at), load(at - 1), load(at - 2));
            let is_zero = |x| $subs(one, x);
            let alone = $and(
                $and(
                    is_zero($xor(before, backslash)),
                    $min($xor(before_that, backslash), one),
                ),
                is_zero($xor(v, quote)),
            );
            least = $min(least, $or($xor($or(v, fold), target), alone));
        }
        $no_zero(least)
    }};
}

/// The three block tests of an instruction set whose compares give a byte mask through
/// `movemask` (SSE2, AVX2): `classify`, `quiet` and `quiet_escaped`, with the
/// attributes given first, built from the bodies above and the set's intrinsics.
macro_rules! movemask_tests {
    ($(#[$attr:meta])*; lanes: $lanes:expr, bits: $bits:ty, reg: $reg:ty, $set1:ident,
     $load:ident, $or:ident, $xor:ident, $and:ident, $subs:ident, $min:ident,
     $cmpeq:ident, $movemask:ident) => {
        /// The masks of one block.
        $(#[$attr])*
        pub(in super::super) fn classify(block: &[u8; BLOCK]) -> Masks {
            // SAFETY (here and in the two tests below): the intrinsics need the
            // instruction set the function is compiled for (its `target_feature`, or the
            // target's baseline for SSE2); each load reads exactly the array it is given,
            // with no alignment required.
            #[allow(unused_unsafe)]
            unsafe {
                lane_masks!(block, $lanes, $set1, $load, $reg, $or, $cmpeq, $movemask, $bits)
            }
        }

        /// Whether two blocks have no quote and no newline (see `QUIET_FOLD`).
        $(#[$attr])*
        pub(in super::super) fn quiet(pair: &[[u8; BLOCK]; 2]) -> bool {
            // SAFETY: as in `classify`.
            #[allow(unused_unsafe)]
            unsafe {
                quiet_lanes!(pair, $lanes, $set1, $load, $reg, $or, $cmpeq, $movemask)
            }
        }

        /// Whether the window's last two blocks have no newline, and no quote but those
        /// a lone backslash escapes (see `json/pass.rs`).
        $(#[$attr])*
        pub(in super::super) fn quiet_escaped(window: &[[u8; BLOCK]; 3]) -> bool {
            // SAFETY: as in `classify`.
            #[allow(unused_unsafe)]
            unsafe {
                quiet_escaped_lanes!(
                    window, $lanes, $set1, $load, $reg, $or, $xor, $and, $subs, $min,
                    |least| $movemask($cmpeq(least, $set1(0))) == 0
                )
            }
        }
    };
}

/// [`crate::json::pass::skip_quiet_by`] with the quiet tests of the module it is
/// expanded in, as a closure written in the function that carries the target features.
macro_rules! skip_quiet {
    () => {
        |blocks: &[[u8; BLOCK]], index| {
            crate::json::pass::skip_quiet_by(
                blocks,
                index,
                |pair| quiet(pair),
                |window| quiet_escaped(window),
            )
        }
    };
}

/// The scanners compiled for one instruction set (`$features`): the generic scanners
/// with this module's `classify`, quiet tests and carry-less prefix XOR, inlined into
/// functions that carry the target features (a closure does not inherit them from
/// generic code).
macro_rules! entry_points {
    ($features:literal) => {
        /// [`super::super::string_end`] compiled for this instruction set.
        #[target_feature(enable = $features)]
        pub(in super::super) fn string_end_by(bytes: &[u8], one_line: bool) -> Option<usize> {
            super::super::string_end_by(bytes, one_line, |block| classify(block), skip_quiet!())
        }

        /// [`crate::json::index::track_by`] compiled for this instruction set.
        #[target_feature(enable = $features)]
        pub(in super::super) fn track_by(tracker: &mut Tracker, bytes: &[u8]) -> Fed {
            crate::json::index::track_by(
                tracker,
                bytes,
                |block| classify(block),
                skip_quiet!(),
                |bits| super::clmul::prefix_xor(bits),
            )
        }

        /// [`super::super::container_end`] compiled for this instruction set.
        #[target_feature(enable = $features)]
        pub(in super::super) fn container_end_by(bytes: &[u8], one_line: bool) -> Container {
            super::super::container_end_by(
                bytes,
                one_line,
                |block| classify(block),
                skip_quiet!(),
                |bits| super::clmul::prefix_xor(bits),
            )
        }
    };
}

/// SSE2: 16 bytes per compare, on every x86_64 CPU.
#[cfg(target_feature = "sse2")]
pub(super) mod sse2 {
    use std::arch::x86_64::__m128i;
    use std::arch::x86_64::_mm_and_si128;
    use std::arch::x86_64::_mm_cmpeq_epi8;
    use std::arch::x86_64::_mm_loadu_si128;
    use std::arch::x86_64::_mm_min_epu8;
    use std::arch::x86_64::_mm_movemask_epi8;
    use std::arch::x86_64::_mm_or_si128;
    use std::arch::x86_64::_mm_set1_epi8;
    use std::arch::x86_64::_mm_subs_epu8;
    use std::arch::x86_64::_mm_xor_si128;

    use super::super::BLOCK;
    use super::super::BRACKET_CASE;
    use super::super::Masks;
    use crate::json::pass::QUIET_FOLD;
    use crate::json::pass::QUIET_MATCH;

    /// Bytes per SSE2 register.
    const LANES: usize = 16;

    movemask_tests!(
        #[inline(always)];
        lanes: LANES, bits: u16, reg: __m128i, _mm_set1_epi8, _mm_loadu_si128, _mm_or_si128,
        _mm_xor_si128, _mm_and_si128, _mm_subs_epu8, _mm_min_epu8, _mm_cmpeq_epi8,
        _mm_movemask_epi8
    );
}

/// AVX2: 32 bytes per compare, on most x86_64 CPUs since 2013.
pub(super) mod avx2 {
    use std::arch::x86_64::__m256i;
    use std::arch::x86_64::_mm256_and_si256;
    use std::arch::x86_64::_mm256_cmpeq_epi8;
    use std::arch::x86_64::_mm256_loadu_si256;
    use std::arch::x86_64::_mm256_min_epu8;
    use std::arch::x86_64::_mm256_movemask_epi8;
    use std::arch::x86_64::_mm256_or_si256;
    use std::arch::x86_64::_mm256_set1_epi8;
    use std::arch::x86_64::_mm256_subs_epu8;
    use std::arch::x86_64::_mm256_xor_si256;

    use super::super::BLOCK;
    use super::super::BRACKET_CASE;
    use super::super::Container;
    use super::super::Masks;
    use crate::json::index::Fed;
    use crate::json::index::Tracker;
    use crate::json::pass::QUIET_FOLD;
    use crate::json::pass::QUIET_MATCH;

    /// Bytes per AVX2 register.
    const LANES: usize = 32;

    entry_points!("avx2,popcnt,bmi1,pclmulqdq");

    movemask_tests!(
        #[target_feature(enable = "avx2,popcnt,bmi1,pclmulqdq")]
        #[inline];
        lanes: LANES, bits: u32, reg: __m256i, _mm256_set1_epi8, _mm256_loadu_si256,
        _mm256_or_si256, _mm256_xor_si256, _mm256_and_si256, _mm256_subs_epu8,
        _mm256_min_epu8, _mm256_cmpeq_epi8, _mm256_movemask_epi8
    );
}

/// AVX-512BW: a whole block per compare, straight into a 64-bit mask.
pub(super) mod avx512 {
    use std::arch::x86_64::__m512i;
    use std::arch::x86_64::_mm512_and_si512;
    use std::arch::x86_64::_mm512_cmpeq_epi8_mask;
    use std::arch::x86_64::_mm512_loadu_si512;
    use std::arch::x86_64::_mm512_min_epu8;
    use std::arch::x86_64::_mm512_or_si512;
    use std::arch::x86_64::_mm512_set1_epi8;
    use std::arch::x86_64::_mm512_subs_epu8;
    use std::arch::x86_64::_mm512_test_epi8_mask;
    use std::arch::x86_64::_mm512_xor_si512;

    use super::super::BLOCK;
    use super::super::BRACKET_CASE;
    use super::super::Container;
    use super::super::Masks;
    use crate::json::index::Fed;
    use crate::json::index::Tracker;
    use crate::json::pass::QUIET_FOLD;
    use crate::json::pass::QUIET_MATCH;

    entry_points!("avx512f,avx512bw,popcnt,bmi1,pclmulqdq");

    /// Whether two blocks have no quote and no newline (see `QUIET_FOLD`). Each block
    /// folded is xor-ed with the match, so that a zero byte is a candidate, and the two
    /// are merged by their least bytes before one test: a compare into a mask register
    /// a block would be the loop's bottleneck (measured on AMD Zen 4, where the loop
    /// then runs at about 70% of the speed).
    #[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,pclmulqdq")]
    #[inline]
    pub(in super::super) fn quiet(pair: &[[u8; BLOCK]; 2]) -> bool {
        let (fold, target) = (
            _mm512_set1_epi8(QUIET_FOLD as i8),
            _mm512_set1_epi8(QUIET_MATCH as i8),
        );
        let distance = |block: &[u8; BLOCK]| {
            // SAFETY: `block` is a 64-byte array, exactly what the unaligned load reads.
            let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast::<__m512i>()) };
            _mm512_xor_si512(_mm512_or_si512(v, fold), target)
        };
        let least = _mm512_min_epu8(distance(&pair[0]), distance(&pair[1]));
        _mm512_test_epi8_mask(least, least) == u64::MAX
    }

    /// Whether the window's last two blocks have no newline, and no quote but those a
    /// lone backslash escapes (see `json/pass.rs`): with one test into a mask register
    /// for the two blocks, as in `quiet`.
    #[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,pclmulqdq")]
    #[inline]
    pub(in super::super) fn quiet_escaped(window: &[[u8; BLOCK]; 3]) -> bool {
        quiet_escaped_lanes!(
            window,
            BLOCK,
            _mm512_set1_epi8,
            _mm512_loadu_si512,
            __m512i,
            _mm512_or_si512,
            _mm512_xor_si512,
            _mm512_and_si512,
            _mm512_subs_epu8,
            _mm512_min_epu8,
            |least| _mm512_test_epi8_mask(least, least) == u64::MAX
        )
    }

    /// The masks of one block.
    #[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,pclmulqdq")]
    #[inline]
    pub(in super::super) fn classify(block: &[u8; BLOCK]) -> Masks {
        // SAFETY: `block` is a 64-byte array, exactly what the unaligned load reads.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast::<__m512i>()) };
        let bits = |v, byte: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(byte as i8));
        let folded = _mm512_or_si512(v, _mm512_set1_epi8(BRACKET_CASE as i8));
        Masks {
            quote: bits(v, b'"'),
            backslash: bits(v, b'\\'),
            newline: bits(v, b'\n'),
            open: bits(folded, b'{'),
            close: bits(folded, b'}'),
        }
    }
}
