use proptest::prelude::*;

use super::*;

/// A string's end as the cursor found it before blocks: the first newline (on a line of
/// unknown end) or the first quote after an even run of backslashes.
fn scalar_string_end(bytes: &[u8], one_line: bool) -> Option<usize> {
    for (at, &b) in bytes.iter().enumerate() {
        match b {
            b'\n' if one_line => return None,
            b'"' => {
                let backslashes = bytes[..at]
                    .iter()
                    .rev()
                    .take_while(|&&b| b == b'\\')
                    .count();
                if backslashes % 2 == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

/// A container's end as the cursor found it before blocks (the offset after its closing
/// bracket), and whether it met, before that end or its error, a byte the blocks leave
/// to the byte-at-a-time reading: a backslash outside strings or, on a line of unknown
/// end, a newline.
fn scalar_container_end(bytes: &[u8], one_line: bool) -> (Option<usize>, bool) {
    let mut depth = 0usize;
    let mut irregular = false;
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'"' => {
                let Some(end) = scalar_string_end(&bytes[at + 1..], one_line) else {
                    let contents = &bytes[at + 1..];
                    return (None, irregular || one_line && contents.contains(&b'\n'));
                };
                at += end + 2;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'\n' if one_line => return (None, true),
            b'\\' => irregular = true,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return (Some(at + 1), irregular);
                }
            }
            _ => {}
        }
        at += 1;
    }
    (None, irregular)
}

/// One way of making the masks, with the scanners built on it.
struct Scanner {
    name: &'static str,
    string_end: fn(&[u8], bool) -> Option<usize>,
    container_end: fn(&[u8], bool) -> Container,
}

/// Every scanner this machine can run: the portable masks, the target's baseline, the
/// run-time choice and each x86_64 extension the CPU has.
fn scanners() -> Vec<Scanner> {
    let mut all = vec![
        Scanner {
            name: "portable",
            string_end: |b, l| string_end_by(b, l, classify_portable, skip_quiet_portable),
            container_end: |b, l| {
                container_end_by(b, l, classify_portable, skip_quiet_portable, prefix_xor)
            },
        },
        Scanner {
            name: "baseline",
            string_end: |b, l| string_end_by(b, l, classify, skip_quiet),
            container_end: |b, l| container_end_by(b, l, classify, skip_quiet, prefix_xor),
        },
        Scanner {
            name: "dispatched",
            string_end,
            container_end,
        },
    ];
    #[cfg(target_arch = "x86_64")]
    {
        let sets = X86Sets::detect();
        if sets.avx2 {
            all.push(Scanner {
                name: "avx2",
                // SAFETY: the CPU has the `avx2` set, checked above.
                string_end: |b, l| unsafe { avx2::string_end_by(b, l) },
                // SAFETY: as above.
                container_end: |b, l| unsafe { avx2::container_end_by(b, l) },
            });
        }
        if sets.avx512 {
            all.push(Scanner {
                name: "avx512",
                // SAFETY: the CPU has the `avx512` set, checked above.
                string_end: |b, l| unsafe { avx512::string_end_by(b, l) },
                // SAFETY: as above.
                container_end: |b, l| unsafe { avx512::container_end_by(b, l) },
            });
        }
    }
    all
}

fn assert_same_string_end(bytes: &[u8]) {
    for one_line in [false, true] {
        let want = scalar_string_end(bytes, one_line);
        for scanner in scanners() {
            assert_eq!(
                (scanner.string_end)(bytes, one_line),
                want,
                "{}, one_line {one_line}, input {:?}",
                scanner.name,
                String::from_utf8_lossy(bytes)
            );
        }
    }
}

/// The blocks find the bytewise end, or leave a value to the bytewise reading only when
/// it has a byte that needs it.
fn assert_same_container_end(bytes: &[u8]) {
    for one_line in [false, true] {
        let (want, irregular) = scalar_container_end(bytes, one_line);
        for scanner in scanners() {
            let got = (scanner.container_end)(bytes, one_line);
            let context = format!(
                "{}, one_line {one_line}, input {:?}",
                scanner.name,
                String::from_utf8_lossy(bytes)
            );
            match got {
                Container::End(end) => assert_eq!(Some(end), want, "{context}"),
                Container::Unterminated => assert_eq!(None, want, "{context}"),
                Container::Irregular => assert!(irregular, "needlessly irregular: {context}"),
            }
        }
    }
}

/// Bytes that matter to the scanners, often, and any other byte now and then.
pub(crate) fn adversarial_bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        5 => Just(b'\\'),
        3 => Just(b'"'),
        1 => Just(b'\n'),
        4 => Just(b'a'),
        2 => prop::sample::select(&b"{}[]"[..]),
        1 => prop::sample::select(&b",: "[..]),
        1 => Just(0xFFu8),
        2 => any::<u8>(),
    ];
    prop::collection::vec(byte, 0..max)
}

/// Long text with few quotes (so that whole blocks lie inside strings, and runs of
/// them are passed two at a time) and runs of backslashes, some longer than a block.
pub(crate) fn sparse_bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        30 => Just(vec![b'a']),
        2 => (BLOCK..6 * BLOCK).prop_map(|n| vec![b'a'; n]),
        4 => (1..4usize).prop_map(|n| vec![b'\\'; n]),
        1 => (60..140usize).prop_map(|n| vec![b'\\'; n]),
        1 => Just(vec![b'"']),
        1 => prop::sample::select(&b"{}[]\n"[..]).prop_map(|b| vec![b]),
        // What the quiet test mistakes for a quote or a newline.
        1 => prop::sample::select(&b"*\x02"[..]).prop_map(|b| vec![b]),
        2 => prop::sample::select(crate::json::pass::tests::ESCAPED_QUOTES)
            .prop_map(|s| s.to_vec()),
    ];
    prop::collection::vec(piece, 0..max).prop_map(|pieces| pieces.concat())
}

/// Valid JSON of any shape, with strings full of what has to be escaped.
pub(crate) fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let text = prop::collection::vec(
        prop_oneof![
            Just('"'),
            Just('\\'),
            Just('\n'),
            Just('{'),
            Just(']'),
            Just('é'),
            any::<char>()
        ],
        0..90,
    )
    .prop_map(|chars| serde_json::Value::String(chars.into_iter().collect()));
    let leaf = prop_oneof![
        text,
        any::<i64>().prop_map(serde_json::Value::from),
        any::<bool>().prop_map(serde_json::Value::from),
        Just(serde_json::Value::Null),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
            prop::collection::btree_map(".*", inner, 0..6)
                .prop_map(|map| serde_json::Value::Object(map.into_iter().collect())),
        ]
    })
}

#[test]
fn backslash_runs_across_block_edges() {
    for filler in 0..(2 * BLOCK + 2) {
        for run in 0..6 {
            for tail in [&b"\""[..], b"x\"", b"\n\"", b""] {
                let mut bytes = vec![b'x'; filler];
                bytes.extend(std::iter::repeat_n(b'\\', run));
                bytes.push(b'"');
                bytes.extend_from_slice(tail);
                assert_same_string_end(&bytes);
                let mut container = b"[\"".to_vec();
                container.extend_from_slice(&bytes);
                container.extend_from_slice(b"]\"]");
                assert_same_container_end(&container);
            }
        }
    }
}

#[test]
fn long_backslash_runs_before_a_quote_at_every_offset() {
    for filler in 0..(2 * BLOCK + 2) {
        for run in [BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK + 1] {
            let mut bytes = vec![b'x'; filler];
            bytes.extend(std::iter::repeat_n(b'\\', run));
            bytes.extend_from_slice(b"\"x\"]");
            assert_same_string_end(&bytes);
            let mut container = b"[\"".to_vec();
            container.extend_from_slice(&bytes);
            assert_same_container_end(&container);
        }
    }
}

#[test]
fn values_end_at_every_offset_of_three_blocks() {
    for at in 0..(3 * BLOCK + 1) {
        let mut bytes = vec![b'y'; at];
        bytes.push(b'"');
        assert_eq!(string_end(&bytes, true), Some(at));
        bytes.pop();
        assert_eq!(string_end(&bytes, true), None, "unterminated, {at} bytes");
        let mut container = b"{\"k\":[".to_vec();
        container.resize(at.max(container.len()), b' ');
        container.extend_from_slice(b"]}");
        let len = container.len();
        assert_eq!(container_end(&container, true), Container::End(len));
        assert_same_container_end(&container);
        assert_eq!(
            container_end(&container[..len - 1], true),
            Container::Unterminated
        );
    }
}

#[test]
fn brackets_inside_strings_are_not_counted() {
    let deep = br#"{"a":"}}]]","b":["[{\"","x\\"],"c":{"d":"\\\"}"}}"#;
    assert_eq!(container_end(deep, true), Container::End(deep.len()));
    assert_same_container_end(deep);
}

#[test]
fn newlines_end_a_line_only_when_its_end_is_unknown() {
    assert_eq!(string_end(b"ab\ncd\"", true), None);
    assert_eq!(string_end(b"ab\ncd\"", false), Some(5));
    // An escaped newline is still a raw newline: the line broke there.
    assert_eq!(string_end(b"ab\\\ncd\"", true), None);
    assert_eq!(container_end(b"[1,\n2]", true), Container::Irregular);
    assert_eq!(container_end(b"[1,\n2]", false), Container::End(6));
    assert_eq!(container_end(b"[\"\n\"]", false), Container::End(5));
}

#[test]
fn backslashes_outside_strings_are_left_to_the_bytewise_reading() {
    // Bytewise, the quote opens a string that never ends; as masks, it is escaped.
    assert_eq!(container_end(br#"[\"]"#, false), Container::Irregular);
    assert_eq!(scalar_container_end(br#"[\"]"#, false), (None, true));
    // After the end, nothing is looked at.
    assert_eq!(container_end(br#"[1]\"#, false), Container::End(3));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1500))]

    #[test]
    fn block_string_scan_finds_the_scalar_end(prefix in 0..BLOCK, bytes in adversarial_bytes(300)) {
        let mut shifted = vec![b'-'; prefix];
        shifted.extend_from_slice(&bytes);
        assert_same_string_end(&bytes);
        assert_same_string_end(&shifted);
    }

    #[test]
    fn block_container_scan_finds_the_scalar_end(
        open in prop::sample::select(&b"{["[..]),
        prefix in 0..BLOCK,
        bytes in adversarial_bytes(400),
    ) {
        let mut container = vec![open];
        container.extend(std::iter::repeat_n(b' ', prefix));
        container.extend_from_slice(&bytes);
        assert_same_container_end(&container);
    }

    #[test]
    fn block_scans_pass_long_strings_as_the_scalar_reading_does(
        prefix in 0..BLOCK,
        bytes in sparse_bytes(700),
    ) {
        assert_same_string_end(&bytes);
        let mut container = b"[\"".to_vec();
        container.extend(std::iter::repeat_n(b'a', prefix));
        container.extend_from_slice(&bytes);
        assert_same_container_end(&container);
    }

    #[test]
    fn valid_json_ends_where_it_ends(value in json_value(), pad in 0..BLOCK, tail in adversarial_bytes(80)) {
        let mut bytes = vec![b'['; 1];
        bytes.extend(std::iter::repeat_n(b' ', pad));
        bytes.extend(serde_json::to_vec(&value).unwrap());
        bytes.push(b']');
        let end = bytes.len();
        bytes.extend_from_slice(&tail);
        for scanner in scanners() {
            for one_line in [false, true] {
                prop_assert_eq!((scanner.container_end)(&bytes, one_line), Container::End(end));
            }
        }
        assert_same_container_end(&bytes);
    }

    #[test]
    fn masks_match_the_portable_ones(bytes in prop::collection::vec(any::<u8>(), BLOCK)) {
        let block: &[u8; BLOCK] = bytes.as_slice().try_into().unwrap();
        let want = classify_portable(block);
        let bits = |set: &[u8]| {
            (0..BLOCK).fold(0u64, |mask, i| mask | u64::from(set.contains(&block[i])) << i)
        };
        prop_assert_eq!(
            want,
            Masks {
                quote: bits(b"\""),
                backslash: bits(b"\\"),
                newline: bits(b"\n"),
                open: bits(b"{["),
                close: bits(b"}]"),
            }
        );
        prop_assert_eq!(classify(block), want);
        #[cfg(target_arch = "x86_64")]
        {
            let sets = X86Sets::detect();
            if sets.avx2 {
                // SAFETY: the CPU has the `avx2` set, checked above.
                prop_assert_eq!(unsafe { avx2::classify(block) }, want);
            }
            if sets.avx512 {
                // SAFETY: the CPU has the `avx512` set, checked above.
                prop_assert_eq!(unsafe { avx512::classify(block) }, want);
            }
        }
    }

    #[test]
    fn quiet_tests_match_the_portable_ones(
        bytes in crate::json::pass::tests::window_bytes(3 * BLOCK)
    ) {
        let window: &[[u8; BLOCK]; 3] = bytes.as_chunks::<BLOCK>().0.try_into().unwrap();
        let pair: &[[u8; BLOCK]; 2] = window[1..].try_into().unwrap();
        let (quiet, escaped) = (quiet_portable(pair), quiet_escaped_portable(window));
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            prop_assert_eq!(sse2::quiet(pair), quiet);
            prop_assert_eq!(sse2::quiet_escaped(window), escaped);
        }
        #[cfg(target_arch = "x86_64")]
        {
            let sets = X86Sets::detect();
            if sets.avx2 {
                // SAFETY: the CPU has the `avx2` set, checked above.
                prop_assert_eq!(unsafe { avx2::quiet(pair) }, quiet);
                // SAFETY: as above.
                prop_assert_eq!(unsafe { avx2::quiet_escaped(window) }, escaped);
            }
            if sets.avx512 {
                // SAFETY: the CPU has the `avx512` set, checked above.
                prop_assert_eq!(unsafe { avx512::quiet(pair) }, quiet);
                // SAFETY: as above.
                prop_assert_eq!(unsafe { avx512::quiet_escaped(window) }, escaped);
            }
        }
    }

    #[test]
    fn escapes_match_a_byte_by_byte_count(bytes in adversarial_bytes(4 * BLOCK)) {
        let mut escaped_by_masks = Vec::new();
        let mut escapes = Escapes::default();
        let (blocks, rest) = bytes.as_chunks::<BLOCK>();
        let mut padded = [0u8; BLOCK];
        padded[..rest.len()].copy_from_slice(rest);
        for block in blocks.iter().chain([&padded]) {
            let escaped = escapes.next(classify_portable(block).backslash);
            escaped_by_masks.extend((0..BLOCK).map(|i| escaped >> i & 1 == 1));
        }
        let mut escaped_by_count = Vec::new();
        let mut after_escape = false;
        for &b in &bytes {
            escaped_by_count.push(after_escape);
            after_escape = b == b'\\' && !after_escape;
        }
        prop_assert_eq!(&escaped_by_masks[..bytes.len()], &escaped_by_count[..]);
    }

    #[test]
    fn prefix_xor_marks_the_bytes_from_each_odd_bit(bits in any::<u64>()) {
        let mut inside = false;
        let mut want = 0u64;
        for i in 0..BLOCK {
            inside ^= bits >> i & 1 == 1;
            want |= u64::from(inside) << i;
        }
        prop_assert_eq!(prefix_xor(bits), want);
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("pclmulqdq") {
            // SAFETY: the CPU has PCLMULQDQ, checked above.
            prop_assert_eq!(unsafe { clmul::prefix_xor(bits) }, want);
        }
    }
}
