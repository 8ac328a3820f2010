//! A run's event inbox on disk: agents append to it (`ralph emit`), the loop reads it.
//!
//! Promises:
//! - **Appending** writes one complete line with one `write` on an `O_APPEND` descriptor,
//!   so concurrent emitters never interleave and a reader never sees half of a line
//!   that was written whole. If the file does not end with a newline (a writer died
//!   mid-line), the new line starts with one, so a torn line can only ever spoil itself.
//! - **Reading** continues from a byte offset and hands out only complete lines; a line
//!   still being written stays in the file for the next read. CRLF line ends, blank
//!   lines and over-long lines are tolerated; a line that is not an event is reported,
//!   in order with the events, never skipped silently. The offset a reader has reached
//!   ([`InboxReader::offset`]) always sits at a line start, so a later run can resume
//!   from it.
//!
//! The inbox is the agent's channel only: ralph never writes its own records here (its
//! history is a separate file), so nothing ralph writes is ever read back as if an
//! agent had emitted it.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use ralph_stream::{Frame, LineFramer};
use serde::Serialize;

use crate::event::{Event, InvalidLine, MAX_INBOX_LINE_BYTES, encode_line, parse_line};

/// Bytes read per `read` call.
const READ_CHUNK: usize = 64 * 1024;

/// Appends `event` (stamped `ts_ms`) to the inbox at `path`, creating the file if needed.
pub fn append(path: &Path, event: &Event, ts_ms: u64) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)?;
    let line = encode_line(event, ts_ms);
    let len = file.metadata()?.len();
    let mut last = [0u8; 1];
    let torn = len > 0 && file.read_at(&mut last, len - 1)? == 1 && last[0] != b'\n';
    let mut bytes = Vec::with_capacity(line.len() + 1);
    if torn {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(line.as_bytes());
    // One write: on a regular file opened with O_APPEND it lands whole at the end. A
    // short write only happens when the disk is full; write_all then finishes the line.
    file.write_all(&bytes)
}

/// One line of the inbox, in file order.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InboxLine {
    Event { event: Event },
    Invalid { error: InvalidLine, excerpt: String },
}

/// How much of an invalid line is kept to show the user.
const EXCERPT_CHARS: usize = 120;

/// Reads an inbox from a byte offset onwards, a complete line at a time.
#[derive(Debug)]
pub struct InboxReader {
    path: PathBuf,
    file: Option<File>,
    /// Bytes read so far (including an incomplete last line held by the framer).
    read_to: u64,
    framer: LineFramer,
    buf: Vec<u8>,
}

impl InboxReader {
    /// A reader of `path` starting at `offset` (a line start). The file need not exist
    /// yet.
    pub fn new(path: impl Into<PathBuf>, offset: u64) -> InboxReader {
        InboxReader {
            path: path.into(),
            file: None,
            read_to: offset,
            framer: LineFramer::new(MAX_INBOX_LINE_BYTES),
            buf: vec![0; READ_CHUNK],
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The offset of the first line not handed out yet.
    pub fn offset(&self) -> u64 {
        self.read_to - self.framer.pending() as u64
    }

    /// Every complete line appended since the last call.
    pub fn read(&mut self) -> io::Result<Vec<InboxLine>> {
        let mut lines = Vec::new();
        if self.file.is_none() {
            match File::open(&self.path) {
                Ok(mut file) => {
                    file.seek(SeekFrom::Start(self.read_to))?;
                    self.file = Some(file);
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(lines),
                Err(e) => return Err(e),
            }
        }
        let Some(file) = self.file.as_mut() else {
            return Ok(lines);
        };
        loop {
            let n = match file.read(&mut self.buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.read_to += n as u64;
            self.framer.push(&self.buf[..n], |frame| match frame {
                Frame::Line(line) => match parse_line(line) {
                    None => {}
                    Some(Ok(event)) => lines.push(InboxLine::Event { event }),
                    Some(Err(error)) => lines.push(InboxLine::Invalid {
                        error,
                        excerpt: excerpt(line),
                    }),
                },
                Frame::Oversize(len) => lines.push(InboxLine::Invalid {
                    error: InvalidLine::TooLong { len },
                    excerpt: String::new(),
                }),
            });
        }
        Ok(lines)
    }
}

fn excerpt(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let mut out: String = text.chars().take(EXCERPT_CHARS).collect();
    if text.chars().nth(EXCERPT_CHARS).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
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
}
