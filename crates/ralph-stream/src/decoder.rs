//! The stream decoder: framing plus the right parser, fed chunk by chunk.

use crate::bounded;
use crate::claude::ClaudeParser;
use crate::codex::CodexParser;
use crate::copilot::CopilotParser;
use crate::event::AgentEvent;
use crate::format::StreamFormat;
use crate::framer::DEFAULT_MAX_LINE_BYTES;
use crate::framer::Frame;
use crate::framer::LineFramer;
use crate::framer::Offer;
use crate::framer::Piece;
use crate::gemini::GeminiParser;
use crate::json::LineIndex;
use crate::json::Walked;
use crate::json::walk;
use crate::opencode::OpencodeParser;
use crate::parser::Emit;
use crate::parser::Lines;
use crate::pi::PiParser;
use crate::pricing::Pricing;
use crate::sniff::detect_line;
use crate::text::TextParser;

/// How many lines auto-detection may hold before giving up. Every agent we know
/// announces itself in its first line or two; the rest is slack for noise such as npm
/// messages printed before the first event.
pub const DETECT_MAX_LINES: usize = 64;

/// The UTF-8 byte order mark some Windows tools write before the first line.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Turns the bytes an agent writes into [`AgentEvent`]s.
///
/// Feed it chunks of any size as they arrive; call [`StreamDecoder::finish`] at end of
/// stream so a last line without a newline is not lost.
#[derive(Debug)]
pub struct StreamDecoder {
    framer: LineFramer,
    parser: Parser,
    lines: u64,
    /// The prices given to [`StreamDecoder::with_pricing`], for the session's summary
    /// too (see [`StreamDecoder::pricing`]).
    pricing: Pricing,
}

#[derive(Debug)]
enum Parser {
    /// Waiting for an event that tells which agent this is; lines are held meanwhile,
    /// with the pricing the parser will get.
    Detecting(Vec<Vec<u8>>, Pricing),
    /// Auto-detection gave up: not a stream of any agent ralph knows.
    Unrecognised,
    Pi(PiParser),
    Claude(ClaudeParser),
    Codex(CodexParser),
    Gemini(GeminiParser),
    Opencode(OpencodeParser),
    Copilot(CopilotParser),
    Text(TextParser),
}

impl Parser {
    fn for_format(format: StreamFormat, pricing: Pricing) -> Parser {
        match format {
            StreamFormat::Pi => Parser::Pi(PiParser::default()),
            StreamFormat::Claude => Parser::Claude(ClaudeParser::default()),
            StreamFormat::Codex => Parser::Codex(CodexParser::new(pricing)),
            StreamFormat::Gemini => Parser::Gemini(GeminiParser::new(pricing)),
            StreamFormat::Opencode => Parser::Opencode(OpencodeParser::default()),
            StreamFormat::Copilot => Parser::Copilot(CopilotParser::default()),
            StreamFormat::Text => Parser::Text(TextParser::default()),
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
            parser: match format {
                Some(format) => Parser::for_format(format, Pricing::default()),
                None => Parser::Detecting(Vec::new(), Pricing::default()),
            },
            lines: 0,
            pricing: Pricing::default(),
        }
    }

    /// Prices the usage of agents that report tokens without a cost (Codex, Gemini CLI)
    /// with `pricing` instead of the built-in list prices, from the next turn on.
    pub fn with_pricing(mut self, pricing: Pricing) -> Self {
        self.pricing = pricing.clone();
        match &mut self.parser {
            Parser::Detecting(_, slot) => *slot = pricing,
            Parser::Codex(p) => p.set_pricing(pricing),
            Parser::Gemini(p) => p.set_pricing(pricing),
            // These agents report their own cost, or no tokens at all.
            Parser::Pi(_)
            | Parser::Claude(_)
            | Parser::Opencode(_)
            | Parser::Copilot(_)
            | Parser::Text(_)
            | Parser::Unrecognised => {}
        }
        self
    }

    /// The prices this decoder was given: what a [`SessionSummary`](crate::SessionSummary)
    /// of its stream estimates unpriced calls with
    /// ([`SessionSummary::with_pricing`](crate::SessionSummary::with_pricing)).
    pub fn pricing(&self) -> &Pricing {
        &self.pricing
    }

    /// The format being parsed, once known.
    pub fn format(&self) -> Option<StreamFormat> {
        match &self.parser {
            Parser::Detecting(..) | Parser::Unrecognised => None,
            Parser::Pi(_) => Some(StreamFormat::Pi),
            Parser::Claude(_) => Some(StreamFormat::Claude),
            Parser::Codex(_) => Some(StreamFormat::Codex),
            Parser::Gemini(_) => Some(StreamFormat::Gemini),
            Parser::Opencode(_) => Some(StreamFormat::Opencode),
            Parser::Copilot(_) => Some(StreamFormat::Copilot),
            Parser::Text(_) => Some(StreamFormat::Text),
        }
    }

    /// Lines seen so far (over-long ones included).
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// True while the agent's turn ended in a failure it may still retry by itself and it
    /// has said nothing since: pi in RPC mode after a failed `agent_end`. If the agent
    /// stays silent, the run is over (pi waits for the next command instead of exiting).
    pub fn awaiting_retry(&self) -> bool {
        match &self.parser {
            Parser::Pi(pi) => pi.awaiting_retry(),
            _ => false,
        }
    }

    /// Feeds one chunk of the stream; `on_event` sees every event it completes.
    pub fn feed(&mut self, chunk: &[u8], mut on_event: impl FnMut(&AgentEvent<'_>)) {
        let mut on_event = |event: &AgentEvent<'_>| bounded::deliver(event, &mut on_event);
        let max_line = self.framer.max_line();
        let (parser, lines) = (&mut self.parser, &mut self.lines);
        self.framer.push_offering(chunk, |piece| match piece {
            // The first line may start with a byte order mark: it is framed.
            Piece::LineStart(bytes) if *lines > 0 => {
                let Some(parser) = parser.lines() else {
                    return Offer::Frame;
                };
                let offer = parser.line_start(bytes, max_line, &mut on_event);
                if let Offer::Took(_) = offer {
                    *lines += 1;
                }
                offer
            }
            Piece::LineStart(_) => Offer::Frame,
            Piece::Frame(frame) => {
                *lines += 1;
                parser.frame(frame, *lines == 1, &mut on_event);
                Offer::Frame
            }
            Piece::Indexed(line, index) => {
                *lines += 1;
                parser.line(line, Some(index), &mut on_event);
                Offer::Frame
            }
        });
    }

    /// Ends the stream: delivers a last unterminated line and whatever the parser held.
    pub fn finish(&mut self, mut on_event: impl FnMut(&AgentEvent<'_>)) {
        let mut on_event = |event: &AgentEvent<'_>| bounded::deliver(event, &mut on_event);
        let (parser, lines) = (&mut self.parser, &mut self.lines);
        self.framer.finish(|frame| {
            *lines += 1;
            parser.frame(frame, *lines == 1, &mut on_event);
        });
        if let Parser::Detecting(held, _) = parser {
            let held = std::mem::take(held);
            *parser = Parser::Unrecognised;
            for line in held {
                parser.line(&line, None, &mut on_event);
            }
        }
        if let Some(parser) = parser.lines() {
            parser.end(&mut on_event);
        }
    }
}

impl Parser {
    /// The parser of a known format: the one dispatch to every agent's parser.
    fn lines(&mut self) -> Option<&mut dyn Lines> {
        match self {
            Parser::Pi(p) => Some(p),
            Parser::Claude(p) => Some(p),
            Parser::Codex(p) => Some(p),
            Parser::Gemini(p) => Some(p),
            Parser::Opencode(p) => Some(p),
            Parser::Copilot(p) => Some(p),
            Parser::Text(p) => Some(p),
            Parser::Detecting(..) | Parser::Unrecognised => None,
        }
    }

    fn frame(&mut self, frame: Frame<'_>, first: bool, emit: &mut Emit<'_>) {
        match frame {
            // A byte order mark is not part of the first line's JSON.
            Frame::Line(line) if first => {
                self.line(line.strip_prefix(BOM).unwrap_or(line), None, emit);
            }
            Frame::Line(line) => self.line(line, None, emit),
            Frame::Oversize(len) => emit(&AgentEvent::OversizeLine { len }),
        }
    }

    /// A line; `index` has the ends of its objects and arrays, if they were found as it
    /// arrived (only ever for a known format: detection frames every line).
    fn line(&mut self, line: &[u8], index: Option<&LineIndex>, emit: &mut Emit<'_>) {
        if let Parser::Detecting(held, pricing) = self {
            let Some(format) = detect_line(line) else {
                if !line.iter().all(u8::is_ascii_whitespace) {
                    held.push(line.to_vec());
                }
                if held.len() >= DETECT_MAX_LINES {
                    let held = std::mem::take(held);
                    *self = Parser::Unrecognised;
                    for line in held {
                        self.line(&line, None, emit);
                    }
                }
                return;
            };
            let held = std::mem::take(held);
            *self = Parser::for_format(format, std::mem::take(pricing));
            for line in held {
                self.line(&line, None, emit);
            }
        }
        match self {
            Parser::Text(p) => p.line(line, None, emit),
            _ if line.iter().all(u8::is_ascii_whitespace) => {}
            Parser::Unrecognised => unparsed_line(line, emit),
            parser => {
                if let Some(parser) = parser.lines() {
                    parser.line(line, index, emit);
                }
            }
        }
    }
}

/// A line nobody can parse: JSON of an unknown kind is an unknown event, the rest is
/// not JSON.
fn unparsed_line(line: &[u8], emit: &mut Emit<'_>) {
    match walk(line, |_| (), |(), _, c, (): &mut ()| c.skip()).0 {
        Walked::Typed(ty, ()) => emit(&AgentEvent::Unknown {
            event_type: ty.decode(),
        }),
        Walked::Untyped => emit(&AgentEvent::Unknown {
            event_type: "".into(),
        }),
        Walked::NotJson => emit(&AgentEvent::NonJson {
            line: String::from_utf8_lossy(line),
        }),
    }
}
