use super::*;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Owned {
    Line(Vec<u8>),
    Oversize(u64),
}

fn frame_all(framer: &mut LineFramer, chunks: &[&[u8]]) -> Vec<Owned> {
    let mut out = Vec::new();
    let mut collect = |f: Frame<'_>| {
        out.push(match f {
            Frame::Line(l) => Owned::Line(l.to_vec()),
            Frame::Oversize(n) => Owned::Oversize(n),
        })
    };
    for chunk in chunks {
        framer.push(chunk, &mut collect);
    }
    framer.finish(&mut collect);
    out
}

#[test]
fn a_tracked_line_held_over_chunks_comes_whole_with_its_index() {
    let line = format!(r#"{{"a":{{"b":[1,2]}},"c":"{}"}}"#, "x".repeat(300));
    let stream = format!("{line}\n{line}\n");
    let mut framer = LineFramer::default();
    let (mut indexed, mut framed) = (Vec::new(), 0);
    for chunk in stream.as_bytes().chunks(100) {
        framer.push_offering(chunk, |piece| {
            match piece {
                Piece::LineStart(_) => return Offer::Track,
                Piece::Indexed(line, index) => indexed.push((line.to_vec(), index.end_of(5))),
                Piece::Frame(_) => framed += 1,
            }
            Offer::Frame
        });
    }
    // `{"b":[1,2]}` starts at 5 and ends at 16.
    let want = (line.into_bytes(), Some(16));
    assert_eq!((indexed, framed), (vec![want.clone(), want], 0));
}

fn lines(items: &[&str]) -> Vec<Owned> {
    items
        .iter()
        .map(|s| Owned::Line(s.as_bytes().to_vec()))
        .collect()
}

#[test]
fn splits_on_newline_and_strips_one_carriage_return() {
    let got = frame_all(&mut LineFramer::default(), &[b"a\nb\r\nc\r\r\n\nlast"]);
    assert_eq!(got, lines(&["a", "b", "c\r", "", "last"]));
}

#[test]
fn joins_lines_and_utf8_characters_split_across_chunks() {
    let text = "héllo → 世界 🎉\n2nd\r\n".as_bytes();
    for cut in 0..text.len() {
        let got = frame_all(&mut LineFramer::default(), &[&text[..cut], &text[cut..]]);
        assert_eq!(got, lines(&["héllo → 世界 🎉", "2nd"]), "cut at {cut}");
    }
}

#[test]
fn carriage_return_and_newline_in_different_chunks() {
    let got = frame_all(&mut LineFramer::default(), &[b"abc\r", b"\nxyz\r", b"\n"]);
    assert_eq!(got, lines(&["abc", "xyz"]));
}

#[test]
fn over_long_lines_are_skipped_with_their_length_and_the_stream_goes_on() {
    let mut framer = LineFramer::new(4);
    let got = frame_all(&mut framer, &[b"ok\n123456789\nfine\n"]);
    assert_eq!(
        got,
        vec![
            Owned::Line(b"ok".to_vec()),
            Owned::Oversize(9),
            Owned::Line(b"fine".to_vec())
        ]
    );
}

#[test]
fn over_long_lines_spanning_chunks_are_never_held_whole() {
    let mut framer = LineFramer::new(4);
    let mut out = Vec::new();
    for chunk in [&b"ab"[..], b"cdef", b"ghij", b"kl\r", b"\nok\n"] {
        framer.push(chunk, |f| {
            out.push(match f {
                Frame::Line(l) => Owned::Line(l.to_vec()),
                Frame::Oversize(n) => Owned::Oversize(n),
            })
        });
        assert!(framer.pending() <= 5, "held {} bytes", framer.pending());
    }
    assert_eq!(out, vec![Owned::Oversize(12), Owned::Line(b"ok".to_vec())]);
}

#[test]
fn a_line_exactly_at_the_cap_is_kept_even_with_a_carriage_return() {
    let got = frame_all(&mut LineFramer::new(4), &[b"abcd\r", b"\nabcd", b"\n"]);
    assert_eq!(got, lines(&["abcd", "abcd"]));
}

#[test]
fn over_long_last_line_without_newline_is_reported_at_finish() {
    let got = frame_all(&mut LineFramer::new(3), &[b"x\nabcdef"]);
    assert_eq!(got, vec![Owned::Line(b"x".to_vec()), Owned::Oversize(6)]);
}

#[test]
fn empty_input_yields_nothing() {
    assert_eq!(frame_all(&mut LineFramer::default(), &[b""]), vec![]);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn reference(input: &[u8], max: usize) -> Vec<Owned> {
        let mut out = Vec::new();
        let mut parts: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
        if parts.last().is_some_and(|p| p.is_empty()) {
            parts.pop();
        }
        for p in parts {
            let p = p.strip_suffix(b"\r").unwrap_or(p);
            if p.len() > max {
                out.push(Owned::Oversize(p.len() as u64));
            } else {
                out.push(Owned::Line(p.to_vec()));
            }
        }
        out
    }

    proptest! {
        #[test]
        fn any_chunking_gives_the_reference_lines(
            input in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'a'), Just(0xe4u8), any::<u8>()], 0..200),
            cuts in proptest::collection::vec(0usize..200, 0..8),
            max in 1usize..20,
        ) {
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(input.len())).collect();
            cuts.sort_unstable();
            let mut chunks = Vec::new();
            let mut prev = 0;
            for c in cuts {
                chunks.push(&input[prev..c]);
                prev = c;
            }
            chunks.push(&input[prev..]);
            let got = frame_all(&mut LineFramer::new(max), &chunks);
            prop_assert_eq!(got, reference(&input, max));
        }

        /// Lines offered for tracking come out the same, and a tracked line's index
        /// agrees with the scanner on it.
        #[test]
        fn tracked_lines_are_the_reference_lines(
            input in proptest::collection::vec(
                prop::sample::select(&b"\n\r\\\"{}[]a, "[..]), 0..600),
            cuts in proptest::collection::vec(0usize..600, 0..8),
            max in prop_oneof![Just(1usize << 20), 1usize..300],
        ) {
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(input.len())).collect();
            cuts.sort_unstable();
            cuts.push(input.len());
            let mut framer = LineFramer::new(max);
            let mut got = Vec::new();
            let mut prev = 0;
            for cut in cuts {
                framer.push_offering(&input[prev..cut], |piece| {
                    match piece {
                        Piece::LineStart(_) => return Offer::Track,
                        Piece::Frame(Frame::Line(l)) => got.push(Owned::Line(l.to_vec())),
                        Piece::Frame(Frame::Oversize(n)) => got.push(Owned::Oversize(n)),
                        Piece::Indexed(line, index) => {
                            crate::json::assert_index_agrees(line, index);
                            got.push(Owned::Line(line.to_vec()));
                        }
                    }
                    Offer::Frame
                });
                prev = cut;
            }
            framer.finish(|f| got.push(match f {
                Frame::Line(l) => Owned::Line(l.to_vec()),
                Frame::Oversize(n) => Owned::Oversize(n),
            }));
            prop_assert_eq!(got, reference(&input, max));
        }
    }
}
