use proptest::prelude::*;

use super::*;
use crate::json::scan::Container;
use crate::json::scan::container_end;
use crate::json::scan::tests::adversarial_bytes;
use crate::json::scan::tests::json_value;
use crate::json::scan::tests::sparse_bytes;

/// Feeds `line` in pieces cut at `cuts`, then a newline, until the tracker has its
/// answer; returns it and the recorded `(start, end)` pairs. (The end of a value in a
/// block not yet whole is told when the block is, or when a newline comes.)
fn track(line: &[u8], cuts: &[usize]) -> (Fed, Vec<(usize, usize)>) {
    let mut tracker = Tracker::default();
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c.min(line.len())).collect();
    cuts.sort_unstable();
    cuts.push(line.len());
    let mut from = 0;
    let mut fed = Fed::More;
    for cut in cuts {
        fed = tracker.feed(&line[from..cut]);
        from = cut;
        if fed != Fed::More {
            break;
        }
    }
    if fed == Fed::More {
        fed = tracker.feed(b"\n");
    }
    (fed, tracker.index().entries.clone())
}

/// What the tracker found agrees with the scanner's reading of the same line.
fn assert_agrees(line: &[u8], cuts: &[usize]) {
    let (fed, entries) = track(line, cuts);
    let whole = track(line, &[]);
    assert_eq!((fed, &entries), (whole.0, &whole.1), "cut at {cuts:?}");
    let first_newline = memchr::memchr(b'\n', line);
    // The line as the framer hands it over: up to its first newline.
    let framed = &line[..first_newline.unwrap_or(line.len())];
    match fed {
        Fed::GaveUp => return,
        Fed::Newline(at) => assert_eq!(at, first_newline.unwrap_or(line.len())),
        Fed::Ended(end) => {
            assert!(first_newline.is_none_or(|nl| nl >= end));
            let (start, _) = entries[0];
            assert_eq!(
                container_end(&framed[start..], false),
                Container::End(end - start)
            );
        }
        Fed::More => panic!("a newline was fed"),
    }
    assert_index_agrees(framed, &LineIndex { entries });
}

#[test]
fn a_snapshot_line_is_indexed_however_it_is_cut() {
    let text = "line \\\"quoted\\\" {not a bracket} [nor this] \\\\ end ".repeat(6);
    let line = format!(
        r#"{{"type":"message_update","assistantMessageEvent":{{"type":"text_delta","delta":"x","partial":{{"content":[{{"type":"text","text":"{text}"}}],"usage":{{"cost":{{"total":1}}}}}}}},"message":{{"content":[{{"type":"text","text":"{text}"}}]}}}}"#
    );
    let bytes = line.as_bytes();
    for cut in 0..=bytes.len() {
        assert_agrees(bytes, &[cut]);
    }
    let (fed, entries) = track(bytes, &[100, 200]);
    assert_eq!(fed, Fed::Ended(bytes.len()));
    // The line, the event, its partial, its content, its block, usage, cost, the
    // message, its content and its block.
    assert_eq!(entries.len(), 10);
    let index = LineIndex { entries };
    let partial = line.find(r#"{"content""#).unwrap();
    assert_eq!(
        container_end(&bytes[partial..], false),
        Container::End(index.end_of(partial).unwrap() - partial)
    );
    assert_eq!(index.end_of(partial + 1), None);
}

#[test]
fn the_newline_ends_the_line_and_a_backslash_outside_strings_gives_up() {
    assert_eq!(track(b"{\"a\":[1,\n2]}", &[3]).0, Fed::Newline(8));
    assert_eq!(track(b"{\"a\":\"x\ny\"}", &[]).0, Fed::Newline(7));
    assert_eq!(track(b"{\"a\":\\[1]}", &[]).0, Fed::GaveUp);
    assert_eq!(track(b"]{}", &[]).0, Fed::GaveUp);
    assert_eq!(track(b"{\"a\":[1,2]", &[2]).0, Fed::Newline(10));
    // Trailing bytes after the value are not read.
    assert_eq!(track(b"{}\\ \n", &[]).0, Fed::Ended(2));
}

#[test]
fn a_run_of_backslashes_across_pieces_and_blocks_escapes_as_whole() {
    // Runs of every parity that start just before or on a block boundary, reach over
    // one, or fill whole blocks, then a quote that the run's parity escapes or not: cut
    // at every offset, the line reads as whole (the escape carried into a piece goes on
    // through a run that fills the blocks before the quote).
    for run in [1, 2, 63, 64, 65, 127, 128, 129] {
        for lead in [56, 57, 58, 62, 63] {
            let line = format!(
                "{{\"a\":\"{}{}\"z\"}}",
                "x".repeat(lead - 6),
                "\\".repeat(run)
            );
            for cut in 0..line.len() {
                assert_agrees(line.as_bytes(), &[cut]);
                assert_agrees(line.as_bytes(), &[cut, cut + 64]);
            }
        }
    }
}

#[test]
fn deep_values_are_not_recorded_and_too_many_values_give_up() {
    let deep = format!("{}{}", "[".repeat(20), "]".repeat(20));
    let (fed, entries) = track(deep.as_bytes(), &[7]);
    assert_eq!(fed, Fed::Ended(40));
    assert_eq!(entries.len(), MAX_DEPTH as usize + 1);
    assert_agrees(deep.as_bytes(), &[7]);
    let many = format!("[{}]", "[],".repeat(MAX_ENTRIES));
    assert_eq!(track(many.as_bytes(), &[]).0, Fed::GaveUp);
}

proptest! {
    #[test]
    fn recorded_ends_are_the_scanners(
        bytes in prop_oneof![adversarial_bytes(400), sparse_bytes(600)],
        cuts in prop::collection::vec(0..700usize, 0..4),
    ) {
        let mut line = b"{".to_vec();
        line.extend_from_slice(&bytes);
        assert_agrees(&line, &cuts);
    }

    #[test]
    fn valid_json_is_indexed_to_its_end(
        value in json_value(),
        cuts in prop::collection::vec(0..2000usize, 0..4),
        tail in adversarial_bytes(40),
    ) {
        let mut line = b"{\"v\":".to_vec();
        line.extend(serde_json::to_vec(&value).unwrap());
        line.push(b'}');
        let end = line.len();
        line.extend_from_slice(&tail);
        let (fed, _) = track(&line, &cuts);
        prop_assert_eq!(fed, Fed::Ended(end));
        assert_agrees(&line, &cuts);
    }
}
