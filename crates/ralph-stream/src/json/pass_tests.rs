use proptest::prelude::*;

use super::*;

/// A quote a lone backslash escapes, and runs that look like one but end in a quote
/// that is not escaped, or escape one after an escaped backslash.
pub(crate) const ESCAPED_QUOTES: &[&[u8]] = &[b"\\\"", b"\\\\\"", b"\\\\\\\""];

/// Bytes around the ones the quiet tests look at: quotes, backslashes, newlines and
/// what the quiet test mistakes for them, among plain text, sparse in some windows
/// (so that the tests let some through) and dense in others.
pub(crate) fn window_bytes(len: usize) -> impl Strategy<Value = Vec<u8>> {
    (1..2000u32).prop_flat_map(move |plain| {
        let piece = prop_oneof![
            plain => Just(b"a".to_vec()),
            2 => prop::sample::select(ESCAPED_QUOTES)
                .prop_map(<[u8]>::to_vec),
            2 => prop::sample::select(&b"\\\""[..]).prop_map(|b| vec![b]),
            1 => prop::sample::select(&b"\n*\x02"[..]).prop_map(|b| vec![b]),
            1 => any::<u8>().prop_map(|b| vec![b]),
        ];
        prop::collection::vec(piece, len).prop_map(move |pieces| {
            let mut bytes = pieces.concat();
            bytes.truncate(len);
            bytes
        })
    })
}

/// Whether the quote at `at` is escaped, by the run of backslashes before it; `None`
/// when the run reaches back to the start of `bytes`, where the bytes do not tell.
fn escaped(bytes: &[u8], at: usize) -> Option<bool> {
    let run = bytes[..at]
        .iter()
        .rev()
        .take_while(|&&b| b == b'\\')
        .count();
    (run < at).then_some(run % 2 == 1)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn quiet_passes_no_quote_nor_newline(bytes in window_bytes(2 * BLOCK)) {
        let pair: &[[u8; BLOCK]; 2] = bytes.as_chunks::<BLOCK>().0.try_into().unwrap();
        let quiet = quiet_portable(pair);
        if bytes.iter().any(|&b| matches!(b, b'"' | b'\n')) {
            prop_assert!(!quiet);
        }
        if !bytes.iter().any(|&b| matches!(b, b'"' | b'\n' | b'*' | 0x02)) {
            prop_assert!(quiet);
        }
    }

    #[test]
    fn quiet_escaped_passes_only_escaped_quotes(bytes in window_bytes(3 * BLOCK)) {
        let window: &[[u8; BLOCK]; 3] = bytes.as_chunks::<BLOCK>().0.try_into().unwrap();
        let quiet = quiet_escaped_portable(window);
        let tested = BLOCK..3 * BLOCK;
        let stop = tested.clone().any(|at| {
            bytes[at] == b'\n' || bytes[at] == b'"' && escaped(&bytes, at) != Some(true)
        });
        if stop {
            prop_assert!(!quiet);
        }
        // A quote after a lone backslash passes; anything the quiet test lets through
        // does too.
        let alone = |at: usize| bytes[at - 1] == b'\\' && bytes[at - 2] != b'\\';
        let plain = tested.clone().all(|at| match bytes[at] {
            b'"' => alone(at),
            b'\n' | b'*' | 0x02 => false,
            _ => true,
        });
        if plain {
            prop_assert!(quiet);
        }
    }
}
