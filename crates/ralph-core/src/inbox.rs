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
//!   from it. An inbox shorter than that offset (truncated, or damaged saved state) or
//!   replaced by another file is read again from its start and the reader says so
//!   ([`InboxRestart`]): seeing an event twice beats never seeing the promise.
//!
//! Each line names who wrote it (`sender`, the writer's `RALPH_AGENT_RUN` token), so the
//! loop can tell the iteration's agent from anyone else who emits while it runs.
//!
//! The inbox is the agent's channel only: ralph never writes its own records here (its
//! history is a separate file), so nothing ralph writes is ever read back as if an
//! agent had emitted it.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use ralph_stream::{Frame, LineFramer};
use serde::{Deserialize, Serialize};

use crate::event::{Event, InvalidLine, MAX_INBOX_LINE_BYTES, Sent, encode_line, parse_line};
use crate::fsafe::{self, Links, MAX_INBOX_SLICE_BYTES};

/// Bytes read per `read` call.
const READ_CHUNK: usize = 64 * 1024;

/// Appends `event` (stamped `ts_ms`, written by `sender`: its `RALPH_AGENT_RUN` token) to
/// the inbox at `path`, creating the file if needed.
pub fn append(path: &Path, event: &Event, ts_ms: u64, sender: Option<&str>) -> io::Result<()> {
    // Never through a link, and never into a FIFO (see `crate::fsafe`).
    fsafe::append_line(path, encode_line(event, ts_ms, sender).as_bytes())
}

/// One line of the inbox, in file order.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum InboxLine {
    Event {
        event: Event,
        /// The writer's `RALPH_AGENT_RUN` token (see `crate::event`), when the line
        /// names one.
        #[serde(skip_serializing_if = "Option::is_none")]
        sender: Option<String>,
    },
    Invalid {
        error: InvalidLine,
        excerpt: String,
    },
}

/// Whether an inbox line sent by `sender` is the agent's, the agent being the process
/// started with the token `agent_run` (`None`: no agent started). A line without a
/// sender never is (a person's, or one from before ralph recorded senders).
pub fn from_agent(sender: Option<&str>, agent_run: Option<&str>) -> bool {
    sender.is_some() && sender == agent_run
}

impl InboxLine {
    /// Who sent the line, when it is an event that names its sender.
    pub fn sender(&self) -> Option<&str> {
        match self {
            InboxLine::Event { sender, .. } => sender.as_deref(),
            InboxLine::Invalid { .. } => None,
        }
    }

    /// Whether this line is an event the agent started with `agent_run` sent.
    pub fn is_event_from(&self, agent_run: Option<&str>) -> bool {
        matches!(self, InboxLine::Event { sender, .. } if from_agent(sender.as_deref(), agent_run))
    }
}

/// How much of an invalid line is kept to show the user.
const EXCERPT_CHARS: usize = 120;

/// Reads an inbox from a byte offset onwards, a complete line at a time.
#[derive(Debug)]
pub struct InboxReader {
    path: PathBuf,
    /// The open inbox and its identity (device, inode), to notice a replaced file.
    file: Option<(File, (u64, u64))>,
    /// Bytes read so far (including an incomplete last line held by the framer).
    read_to: u64,
    framer: LineFramer,
    buf: Vec<u8>,
    /// Why reading last started over from the top of the file, until taken.
    restarted: Option<InboxRestart>,
    /// Bytes left unread by the last read because of [`MAX_INBOX_SLICE_BYTES`].
    deferred: u64,
}

/// The inbox was not the file the reader was reading: events past the saved offset
/// would never be seen, so the reader started over at the top of the new content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum InboxRestart {
    /// The file is shorter than the offset reached (truncated, or damaged saved state).
    Shrunk { offset: u64, len: u64 },
    /// Another file now has the inbox's name (deleted and created again, or moved).
    Replaced,
}

impl std::fmt::Display for InboxRestart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InboxRestart::Shrunk { offset, len } => write!(
                f,
                "the inbox is {len} bytes, shorter than the {offset} already read (truncated, \
                 or the saved state is damaged): reading it again from the start"
            ),
            InboxRestart::Replaced => f.write_str(
                "the inbox was replaced by another file: reading the new one from the start",
            ),
        }
    }
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
            restarted: None,
            deferred: 0,
        }
    }

    /// How many bytes the last [`read`](Self::read) left for the next one: it reads at
    /// most [`MAX_INBOX_SLICE_BYTES`] at a time, so a flooded inbox cannot stall the loop.
    pub fn deferred(&self) -> u64 {
        self.deferred
    }

    /// Why the last [`read`](Self::read) started over at the top of the inbox, once.
    pub fn take_restart(&mut self) -> Option<InboxRestart> {
        self.restarted.take()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The offset of the first line not handed out yet.
    pub fn offset(&self) -> u64 {
        self.read_to - self.framer.pending() as u64
    }

    /// Every complete line appended since the last call.
    ///
    /// A file shorter than what was already read, or another file at the inbox's path,
    /// is read from its start (see [`take_restart`](Self::take_restart)): losing every
    /// later event, the promise included, would be worse than seeing a few again.
    pub fn read(&mut self) -> io::Result<Vec<InboxLine>> {
        let mut lines = Vec::new();
        self.deferred = 0;
        // Opened again on every read: a link, a FIFO or a device put at the inbox's name
        // is refused (never followed, never blocked on), and another file noticed.
        let current = match fsafe::open_read(&self.path, Links::Refuse) {
            Ok(file) => {
                let meta = file.metadata()?;
                Some((file, (meta.dev(), meta.ino())))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        match (&self.file, current) {
            (_, None) => {}
            (None, Some(current)) => self.file = Some(current),
            (Some((_, identity)), Some(current)) => {
                if *identity != current.1 {
                    self.file = Some(current);
                    self.restart(InboxRestart::Replaced);
                }
            }
        }
        if self.file.is_none() {
            return Ok(lines);
        }
        let Some((file, _)) = self.file.as_mut() else {
            return Ok(lines);
        };
        let len = file.metadata()?.len();
        if len < self.read_to {
            let offset = self.read_to;
            self.restart(InboxRestart::Shrunk { offset, len });
        }
        let Some((file, _)) = self.file.as_mut() else {
            return Ok(lines);
        };
        file.seek(SeekFrom::Start(self.read_to))?;
        let end = self.read_to.saturating_add(MAX_INBOX_SLICE_BYTES);
        loop {
            let room = usize::try_from(end - self.read_to).unwrap_or(usize::MAX);
            if room == 0 {
                self.deferred = file.metadata()?.len().saturating_sub(self.read_to);
                break;
            }
            let want = room.min(self.buf.len());
            let n = match file.read(&mut self.buf[..want]) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.read_to += n as u64;
            self.framer.push(&self.buf[..n], |frame| match frame {
                Frame::Line(line) => match parse_line(line) {
                    None => {}
                    Some(Ok(Sent { event, sender })) => {
                        lines.push(InboxLine::Event { event, sender })
                    }
                    Some(Err(error)) => lines.push(InboxLine::Invalid {
                        error,
                        excerpt: excerpt(&String::from_utf8_lossy(line), EXCERPT_CHARS),
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

impl InboxReader {
    /// Reads slice after slice up to where the inbox ended at the first read, and at
    /// most `limit` bytes (whole slices): everything written before now, bounded, so a
    /// writer that goes on writing cannot keep the reader here. [`deferred`](Self::deferred)
    /// then says what is left. A restart seen on the way is kept for
    /// [`take_restart`](Self::take_restart).
    pub fn read_through(&mut self, limit: u64) -> io::Result<Vec<InboxLine>> {
        let mut lines = self.read()?;
        let end = self.offset().saturating_add(self.deferred);
        let mut slices_left = limit.div_ceil(MAX_INBOX_SLICE_BYTES).saturating_sub(1);
        while self.deferred > 0 && self.offset() < end && slices_left > 0 {
            slices_left -= 1;
            let restarted = self.restarted.take();
            lines.extend(self.read()?);
            // The first restart is the one to tell: a later one repeats it.
            self.restarted = restarted.or(self.restarted.take());
        }
        Ok(lines)
    }

    /// Forgets how far the reader got, and why.
    fn restart(&mut self, why: InboxRestart) {
        self.read_to = 0;
        self.framer = LineFramer::new(MAX_INBOX_LINE_BYTES);
        self.restarted = Some(why);
    }
}

/// The first `max_chars` characters of `text`, and `…` when there were more: enough of
/// a line to recognise it in a one-line message.
pub(crate) fn excerpt(text: &str, max_chars: usize) -> String {
    let mut out: String = text.chars().take(max_chars).collect();
    if text.chars().nth(max_chars).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
#[path = "inbox_tests.rs"]
mod tests;
