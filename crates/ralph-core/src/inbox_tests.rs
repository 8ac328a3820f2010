use super::*;
use std::fs;

fn event(topic: &str, text: &str) -> InboxLine {
    InboxLine::Event {
        event: Event::with_text(topic, text),
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
            InboxLine::Event { event } => format!("event {}", event.topic),
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
                event: Event::new("after")
            }
        ]
    );
}

#[test]
fn append_writes_whole_lines_and_heals_a_torn_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("inbox.jsonl");
    append(&path, &Event::with_text("a", "x"), 1).unwrap();
    // A writer died in the middle of a line.
    let mut f = OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(b"{\"topic\":\"torn").unwrap();
    append(&path, &Event::new("b"), 2).unwrap();
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "{\"topic\":\"a\",\"payload\":\"x\",\"ts\":1}\n{\"topic\":\"torn\n{\"topic\":\"b\",\"ts\":2}\n"
    );
    let lines = InboxReader::new(&path, 0).read().unwrap();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[2],
        InboxLine::Event {
            event: Event::new("b")
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
                    append(path, &Event::with_text(topic, payload.as_str()), 0).unwrap();
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
