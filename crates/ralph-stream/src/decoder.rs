//! The stream decoder: framing plus the right parser, fed chunk by chunk.

use crate::claude::ClaudeParser;
use crate::detect::format_of_type;
use crate::event::AgentEvent;
use crate::format::StreamFormat;
use crate::framer::DEFAULT_MAX_LINE_BYTES;
use crate::framer::Frame;
use crate::framer::LineFramer;
use crate::json::Cursor;
use crate::parser::Emit;
use crate::pi::PiParser;
use crate::text::TextParser;

/// How many lines auto-detection may hold before giving up. Every agent we know
/// announces itself in its first line or two; the rest is slack for noise such as npm
/// messages printed before the first event.
pub const DETECT_MAX_LINES: usize = 64;

/// Turns the bytes an agent writes into [`AgentEvent`]s.
///
/// Feed it chunks of any size as they arrive; call [`StreamDecoder::finish`] at end of
/// stream so a last line without a newline is not lost.
#[derive(Debug)]
pub struct StreamDecoder {
    framer: LineFramer,
    parser: Parser,
    lines: u64,
}

#[derive(Debug)]
enum Parser {
    /// Waiting for an event that tells which agent this is; lines are held meanwhile.
    Detecting(Vec<Vec<u8>>),
    /// Auto-detection gave up: not a stream of any agent ralph knows.
    Unrecognised,
    Pi(PiParser),
    Claude(ClaudeParser),
    Text(TextParser),
    /// A known format whose parser is not written yet: its events are reported as
    /// unknown rather than misread.
    Unparsed(StreamFormat),
}

impl Parser {
    fn for_format(format: StreamFormat) -> Parser {
        match format {
            StreamFormat::Pi => Parser::Pi(PiParser::default()),
            StreamFormat::Claude => Parser::Claude(ClaudeParser::default()),
            StreamFormat::Text => Parser::Text(TextParser::default()),
            StreamFormat::Codex
            | StreamFormat::Gemini
            | StreamFormat::Opencode
            | StreamFormat::Copilot => Parser::Unparsed(format),
        }
    }
}

impl StreamDecoder {
    /// A decoder for a known format, or `None` to recognise it from the first events.
    pub fn new(format: Option<StreamFormat>) -> Self {
        StreamDecoder::with_max_line(format, DEFAULT_MAX_LINE_BYTES)
    }

    /// Like [`StreamDecoder::new`], skipping lines longer than `max_line` bytes.
    pub fn with_max_line(format: Option<StreamFormat>, max_line: usize) -> Self {
        StreamDecoder {
            framer: LineFramer::new(max_line),
            parser: format.map_or(Parser::Detecting(Vec::new()), Parser::for_format),
            lines: 0,
        }
    }

    /// The format being parsed, once known.
    pub fn format(&self) -> Option<StreamFormat> {
        match &self.parser {
            Parser::Detecting(_) | Parser::Unrecognised => None,
            Parser::Pi(_) => Some(StreamFormat::Pi),
            Parser::Claude(_) => Some(StreamFormat::Claude),
            Parser::Text(_) => Some(StreamFormat::Text),
            Parser::Unparsed(format) => Some(*format),
        }
    }

    /// Lines seen so far (over-long ones included).
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Feeds one chunk of the stream; `on_event` sees every event it completes.
    pub fn feed(&mut self, chunk: &[u8], mut on_event: impl FnMut(&AgentEvent<'_>)) {
        let (parser, lines) = (&mut self.parser, &mut self.lines);
        self.framer.push(chunk, |frame| {
            *lines += 1;
            parser.frame(frame, &mut on_event);
        });
    }

    /// Ends the stream: delivers a last unterminated line and whatever the parser held.
    pub fn finish(&mut self, mut on_event: impl FnMut(&AgentEvent<'_>)) {
        let (parser, lines) = (&mut self.parser, &mut self.lines);
        self.framer.finish(|frame| {
            *lines += 1;
            parser.frame(frame, &mut on_event);
        });
        if let Parser::Detecting(held) = parser {
            let held = std::mem::take(held);
            *parser = Parser::Unrecognised;
            for line in held {
                parser.line(&line, &mut on_event);
            }
        }
        match parser {
            Parser::Claude(p) => p.finish(&mut on_event),
            Parser::Text(p) => p.finish(&mut on_event),
            Parser::Pi(_) | Parser::Detecting(_) | Parser::Unrecognised | Parser::Unparsed(_) => {}
        }
    }
}

impl Parser {
    fn frame(&mut self, frame: Frame<'_>, emit: &mut Emit<'_>) {
        match frame {
            Frame::Line(line) => self.line(line, emit),
            Frame::Oversize(len) => emit(&AgentEvent::OversizeLine { len }),
        }
    }

    fn line(&mut self, line: &[u8], emit: &mut Emit<'_>) {
        if let Parser::Detecting(held) = self {
            let Some(format) = detect_line(line) else {
                if !line.iter().all(u8::is_ascii_whitespace) {
                    held.push(line.to_vec());
                }
                if held.len() >= DETECT_MAX_LINES {
                    let held = std::mem::take(held);
                    *self = Parser::Unrecognised;
                    for line in held {
                        self.line(&line, emit);
                    }
                }
                return;
            };
            let held = std::mem::take(held);
            *self = Parser::for_format(format);
            for line in held {
                self.line(&line, emit);
            }
        }
        match self {
            Parser::Text(p) => p.parse_line(line, emit),
            _ if line.iter().all(u8::is_ascii_whitespace) => {}
            Parser::Pi(p) => p.parse_line(line, emit),
            Parser::Claude(p) => p.parse_line(line, emit),
            Parser::Unrecognised | Parser::Unparsed(_) => unparsed_line(line, emit),
            Parser::Detecting(_) => {}
        }
    }
}

/// The format a line announces, if it is a JSON object whose type tells.
fn detect_line(line: &[u8]) -> Option<StreamFormat> {
    let mut cursor = Cursor::new(line);
    let mut object = cursor.enter_object().ok()??;
    while let Some(key) = cursor.next_key(&mut object).ok()? {
        if key.eq("type") {
            return format_of_type(cursor.read_str().ok()??.raw());
        }
        cursor.skip().ok()?;
    }
    None
}

/// A line nobody can parse: JSON of an unknown kind is an unknown event, the rest is
/// not JSON.
fn unparsed_line(line: &[u8], emit: &mut Emit<'_>) {
    let mut cursor = Cursor::new(line);
    let typed = match cursor.enter_object() {
        Ok(Some(mut object)) => loop {
            match cursor.next_key(&mut object) {
                Ok(Some(key)) if key.eq("type") => match cursor.read_str() {
                    Ok(Some(ty)) => break Some(ty.decode().into_owned()),
                    _ => break Some(String::new()),
                },
                Ok(Some(_)) => {
                    if cursor.skip().is_err() {
                        break None;
                    }
                }
                Ok(None) => break Some(String::new()),
                Err(_) => break None,
            }
        },
        _ => None,
    };
    match typed {
        Some(ty) => emit(&AgentEvent::Unknown {
            event_type: ty.into(),
        }),
        None => emit(&AgentEvent::NonJson {
            line: String::from_utf8_lossy(line),
        }),
    }
}
