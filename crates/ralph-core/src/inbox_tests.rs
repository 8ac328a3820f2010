use super::*;
use std::fs::{self, OpenOptions};
use std::io::Write;

fn event(topic: &str, text: &str) -> InboxLine {
    InboxLine::Event {
        event: Event::with_text(topic, text),
        sender: None,
    }
}

#[test]
fn reads_only_complete_lines_and_picks_up_the_rest_later() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox.jsonl");
    let mut reader = InboxReader::new(&path, 0);
    assert_eq!(reader.read().unwrap(), vec![]);

    fs::write(
        &path,
        "{\"topic\":\"a\",\"payload\":\"1\"}\n{\"topic\":\"b\",\"pay",
    )
    .unwrap();
    assert_eq!(reader.read().unwrap(), vec![event("a", "1")]);
    let after_a = reader.offset();
    assert_eq!(after_a, 28);

    let mut f = OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(b"load\":\"2\"}\r\n").unwrap();
    assert_eq!(reader.read().unwrap(), vec![event("b", "2")]);
    assert_eq!(reader.offset(), fs::metadata(&path).unwrap().len());

    // A second reader resuming from a saved offset sees exactly the rest.
    let mut resumed = InboxReader::new(&path, after_a);
    assert_eq!(resumed.read().unwrap(), vec![event("b", "2")]);
}

#[test]
fn invalid_lines_are_reported_in_order_with_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox.jsonl");
    fs::write(
        &path,
        "not json\n\n{\"topic\":\"ok\"}\n{\"topic\":\"bad topic\"}\n",
    )
    .unwrap();
    let lines = InboxReader::new(&path, 0).read().unwrap();
    let kinds: Vec<_> = lines
        .iter()
        .map(|l| match l {
            InboxLine::Event { event, .. } => format!("event {}", event.topic),
            InboxLine::Invalid { excerpt, .. } => format!("invalid {excerpt}"),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            "invalid not json",
            "event ok",
            "invalid {\"topic\":\"bad topic\"}"
        ]
    );
}

#[test]
fn an_over_long_line_is_reported_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox.jsonl");
    let long = "x".repeat(MAX_INBOX_LINE_BYTES + 10);
    fs::write(&path, format!("{long}\n{{\"topic\":\"after\"}}\n")).unwrap();
    assert_eq!(
        InboxReader::new(&path, 0).read().unwrap(),
        vec![
            InboxLine::Invalid {
                error: InvalidLine::TooLong {
                    len: long.len() as u64
                },
                excerpt: String::new()
            },
            InboxLine::Event {
                event: Event::new("after"),
                sender: None,
            }
        ]
    );
}

#[test]
fn append_writes_whole_lines_and_heals_a_torn_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox.jsonl");
    append(&path, &Event::with_text("a", "x"), 1, None).unwrap();
    // A writer died in the middle of a line.
    let mut f = OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(b"{\"topic\":\"torn").unwrap();
    append(&path, &Event::new("b"), 2, None).unwrap();
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "{\"topic\":\"a\",\"payload\":\"x\",\"ts\":1}\n{\"topic\":\"torn\n{\"topic\":\"b\",\"ts\":2}\n"
    );
    let lines = InboxReader::new(&path, 0).read().unwrap();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[2],
        InboxLine::Event {
            event: Event::new("b"),
            sender: None,
        }
    );
}

#[test]
fn concurrent_appends_never_interleave() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox.jsonl");
    let payload = "p".repeat(10_000);
    std::thread::scope(|s| {
        for t in 0..4 {
            let (path, payload) = (&path, &payload);
            s.spawn(move || {
                for i in 0..50 {
                    let topic = format!("t{t}.e{i}");
                    append(path, &Event::with_text(topic, payload.as_str()), 0, None).unwrap();
                }
            });
        }
    });
    let lines = InboxReader::new(&path, 0).read().unwrap();
    let valid = lines
        .iter()
        .filter(|l| matches!(l, InboxLine::Event { .. }))
        .count();
    assert_eq!((lines.len(), valid), (200, 200));
}

#[test]
fn a_saved_offset_past_the_end_reads_the_inbox_again_from_the_start() {
    // Damaged state or a truncated inbox: without the check every later event,
    // LOOP_COMPLETE included, would stay invisible.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox.jsonl");
    fs::write(&path, "{\"topic\":\"LOOP_COMPLETE\"}\n").unwrap();
    let mut reader = InboxReader::new(&path, 5000);
    assert_eq!(
        reader.read().unwrap(),
        vec![InboxLine::Event {
            event: Event::new("LOOP_COMPLETE"),
            sender: None,
        }]
    );
    assert_eq!(
        reader.take_restart(),
        Some(InboxRestart::Shrunk {
            offset: 5000,
            len: 26
        })
    );
    assert_eq!(reader.take_restart(), None, "said once");
    assert_eq!(reader.read().unwrap(), vec![]);
}

#[test]
fn an_inbox_truncated_while_read_is_read_again_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox.jsonl");
    fs::write(&path, "{\"topic\":\"a\",\"payload\":\"1\"}\n").unwrap();
    let mut reader = InboxReader::new(&path, 0);
    assert_eq!(reader.read().unwrap(), vec![event("a", "1")]);
    // Truncated in place (same file), then a shorter event appended.
    fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    append(&path, &Event::new("b"), 1, None).unwrap();
    let got = reader.read().unwrap();
    assert_eq!(got.len(), 1);
    assert!(matches!(&got[0], InboxLine::Event { event, .. } if event.topic == "b"));
    assert!(matches!(
        reader.take_restart(),
        Some(InboxRestart::Shrunk { offset: 28, .. })
    ));
}

#[test]
fn a_replaced_inbox_is_read_from_the_start_even_when_it_is_longer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox.jsonl");
    fs::write(&path, "{\"topic\":\"a\",\"payload\":\"1\"}\n").unwrap();
    let mut reader = InboxReader::new(&path, 0);
    assert_eq!(reader.read().unwrap(), vec![event("a", "1")]);
    // Another file takes the name: longer than what was read, so only its identity
    // tells.
    let other = dir.path().join("new.jsonl");
    fs::write(
        &other,
        "{\"topic\":\"x\",\"payload\":\"1\"}\n{\"topic\":\"y\",\"payload\":\"2\"}\n",
    )
    .unwrap();
    fs::rename(&other, &path).unwrap();
    assert_eq!(
        reader.read().unwrap(),
        vec![event("x", "1"), event("y", "2")]
    );
    assert_eq!(reader.take_restart(), Some(InboxRestart::Replaced));
    assert_eq!(reader.offset(), fs::metadata(&path).unwrap().len());
}

#[test]
fn a_fifo_or_a_link_at_the_inbox_is_refused_at_once_by_reader_and_writer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox.jsonl");
    nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let mut reader = InboxReader::new(&path, 0);
    let e = reader.read().unwrap_err();
    assert!(e.to_string().contains("FIFO (named pipe)"), "{e}");
    let e = append(&path, &Event::with_text("a", "b"), 1, None).unwrap_err();
    assert!(e.to_string().contains("FIFO (named pipe)"), "{e}");
    std::fs::remove_file(&path).unwrap();
    let outside = dir.path().join("outside");
    std::fs::write(&outside, "").unwrap();
    std::os::unix::fs::symlink(&outside, &path).unwrap();
    assert!(
        reader
            .read()
            .unwrap_err()
            .to_string()
            .contains("symbolic link")
    );
    assert!(append(&path, &Event::with_text("a", "b"), 1, None).is_err());
    assert_eq!(std::fs::read(&outside).unwrap(), b"");
}

#[test]
fn one_read_takes_at_most_a_slice_and_the_next_read_takes_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox.jsonl");
    let line = encode_line(&Event::with_text("t", "x".repeat(1000)), 1, None);
    let per_slice = usize::try_from(MAX_INBOX_SLICE_BYTES).unwrap() / line.len();
    std::fs::write(&path, line.repeat(per_slice + 3)).unwrap();
    let mut reader = InboxReader::new(&path, 0);
    let first = reader.read().unwrap();
    assert_eq!(first.len(), per_slice);
    assert!(reader.deferred() > 0);
    let second = reader.read().unwrap();
    assert_eq!((second.len(), reader.deferred()), (3, 0));
}

#[test]
fn reading_through_takes_every_slice_up_to_its_limit_and_leaves_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox.jsonl");
    let line = encode_line(&Event::with_text("t", "x".repeat(1000)), 1, None);
    let per_slice = usize::try_from(MAX_INBOX_SLICE_BYTES).unwrap() / line.len();
    std::fs::write(&path, line.repeat(2 * per_slice + 3)).unwrap();
    // Up to three slices: all of it, at once.
    let mut reader = InboxReader::new(&path, 0);
    let all = reader.read_through(3 * MAX_INBOX_SLICE_BYTES).unwrap();
    assert_eq!((all.len(), reader.deferred()), (2 * per_slice + 3, 0));
    // Up to two: the rest is left for the next read.
    let mut reader = InboxReader::new(&path, 0);
    let two = reader.read_through(2 * MAX_INBOX_SLICE_BYTES).unwrap();
    let in_two = usize::try_from(2 * MAX_INBOX_SLICE_BYTES).unwrap() / line.len();
    assert_eq!(two.len(), in_two);
    assert!(reader.deferred() > 0);
    assert_eq!(reader.read().unwrap().len(), 2 * per_slice + 3 - in_two);
}
