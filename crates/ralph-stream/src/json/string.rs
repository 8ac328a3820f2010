//! JSON string values: located without copying, decoded only on demand.

use std::borrow::Cow;
use std::ops::Range;

use memchr::memchr;

/// The raw bytes between the quotes of a JSON string, escapes still in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct JsonStr<'a> {
    raw: &'a [u8],
}

impl<'a> JsonStr<'a> {
    pub(crate) fn new(raw: &'a [u8]) -> Self {
        JsonStr { raw }
    }

    /// True when the string, once decoded, equals `s`. Keys and event types are plain
    /// ASCII in every agent we know, so the fast path compares bytes; an escaped key
    /// still compares correctly through the slow path.
    pub(crate) fn eq(self, s: &str) -> bool {
        if self.raw == s.as_bytes() {
            return true;
        }
        has_escape(self.raw) && unescape(self.raw) == s
    }

    /// The decoded bytes, for matching against names (keys, event types, enum-like
    /// values): the raw bytes themselves, at no cost, when there is no escape.
    pub(crate) fn name(self) -> Cow<'a, [u8]> {
        if !has_escape(self.raw) {
            return Cow::Borrowed(self.raw);
        }
        Cow::Owned(unescape(self.raw).into_bytes())
    }

    /// Decodes without a scratch buffer: borrowed when there is nothing to unescape.
    pub(crate) fn decode(self) -> Cow<'a, str> {
        if !has_escape(self.raw) {
            return match utf8(self.raw) {
                Some(s) => Cow::Borrowed(s),
                None => Cow::Owned(String::from_utf8_lossy(self.raw).into_owned()),
            };
        }
        Cow::Owned(unescape(self.raw))
    }

    /// Decodes into `scratch` only when needed, returning where the text lives.
    pub(crate) fn decode_into(self, scratch: &mut Scratch) -> Span<'a> {
        if !has_escape(self.raw)
            && let Some(s) = utf8(self.raw)
        {
            return Span::Line(s);
        }
        let start = scratch.buf.len();
        unescape_into(self.raw, &mut scratch.buf);
        Span::Scratch(start..scratch.buf.len())
    }
}

/// Whether a raw string holds an escape. Keys and types are a few bytes long, where a
/// plain loop answers before a vector search would be set up. The loop reads every
/// byte, without stopping at the first backslash, so that the compiler makes it a few
/// vector compares (`contains` calls the standard library's search, which costs about
/// as much as one of these names takes to read again).
fn has_escape(raw: &[u8]) -> bool {
    if raw.len() <= SHORT_NAME {
        raw.iter().fold(false, |found, &b| found | (b == b'\\'))
    } else {
        memchr(b'\\', raw).is_some()
    }
}

/// The longest string [`has_escape`] reads a byte at a time.
const SHORT_NAME: usize = 32;

/// Where a decoded string lives: in the line itself (nothing to unescape) or in the
/// parser's scratch buffer. Resolving spans only after all decoding is done lets one
/// reusable buffer hold several decoded values of the same line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Span<'a> {
    Line(&'a str),
    Scratch(Range<usize>),
}

impl<'a> Span<'a> {
    pub(crate) fn resolve<'s>(&self, scratch: &'s Scratch) -> &'s str
    where
        'a: 's,
    {
        match self {
            Span::Line(s) => s,
            Span::Scratch(range) => &scratch.buf[range.clone()],
        }
    }
}

/// A per-parser buffer for decoded strings, cleared per line but never shrunk, so long
/// escaped values (Claude tool output runs to hundreds of KB) do not cost an allocation
/// and fresh page faults on every line.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    buf: String,
}

impl Scratch {
    pub(crate) fn clear(&mut self) {
        self.buf.clear();
    }

    pub(crate) fn push_str(&mut self, s: &str) -> Range<usize> {
        let start = self.buf.len();
        self.buf.push_str(s);
        start..self.buf.len()
    }

    pub(crate) fn len(&self) -> usize {
        self.buf.len()
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.buf
    }
}

impl std::fmt::Write for Scratch {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.buf.push_str(s);
        Ok(())
    }
}

/// UTF-8 validation with SIMD: agent text is full of multi-byte characters, where the
/// standard library's validator falls off its ASCII fast path.
fn utf8(bytes: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(bytes).ok()
}

fn unescape(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len());
    unescape_into(raw, &mut out);
    out
}

/// Appends the decoded form of `raw` to `out`. Never fails: invalid UTF-8 and broken
/// escapes become U+FFFD, a lone surrogate becomes U+FFFD, an unknown escape keeps its
/// character.
///
/// The raw string is validated once; escapes are ASCII, so the runs between them are
/// then valid `str` slices and are copied without checking each again (tool output is
/// full of `\n`: per-run validation would dominate).
fn unescape_into(raw: &[u8], out: &mut String) {
    out.reserve(raw.len());
    let text = match utf8(raw) {
        Some(text) => text,
        None => return unescape_lossy_into(raw, out),
    };
    let mut i = 0;
    while i < text.len() {
        let next = memchr(b'\\', &text.as_bytes()[i..]).map_or(text.len(), |off| i + off);
        out.push_str(&text[i..next]);
        if next >= text.len() {
            break;
        }
        i = decode_escape(raw, next, out);
    }
}

/// The same for a string that is not valid UTF-8: each run is decoded lossily.
fn unescape_lossy_into(raw: &[u8], out: &mut String) {
    let mut i = 0;
    while i < raw.len() {
        let next = memchr(b'\\', &raw[i..]).map_or(raw.len(), |off| i + off);
        out.push_str(&String::from_utf8_lossy(&raw[i..next]));
        if next >= raw.len() {
            break;
        }
        i = decode_escape(raw, next, out);
    }
}

/// Decodes the escape whose backslash is at `at`; returns the index after it.
fn decode_escape(raw: &[u8], at: usize, out: &mut String) -> usize {
    let Some(&esc) = raw.get(at + 1) else {
        out.push(char::REPLACEMENT_CHARACTER);
        return raw.len();
    };
    let after = at + 2;
    match esc {
        b'n' => out.push('\n'),
        b't' => out.push('\t'),
        b'r' => out.push('\r'),
        b'b' => out.push('\u{8}'),
        b'f' => out.push('\u{c}'),
        b'"' => out.push('"'),
        b'\\' => out.push('\\'),
        b'/' => out.push('/'),
        b'u' => return decode_unicode_escape(raw, after, out),
        other if other.is_ascii() => {
            // Not valid JSON; keep what was written rather than lose it.
            out.push('\\');
            out.push(char::from(other));
        }
        // A backslash before a multi-byte character: keep the backslash and let the
        // character be copied as part of the next run.
        _ => {
            out.push('\\');
            return at + 1;
        }
    }
    after
}

/// Decodes the `XXXX` of a `\uXXXX` escape starting at `i`, joining a surrogate pair when
/// one follows. Returns the index after what was consumed.
fn decode_unicode_escape(raw: &[u8], i: usize, out: &mut String) -> usize {
    let Some(first) = hex4(raw, i) else {
        out.push(char::REPLACEMENT_CHARACTER);
        return i;
    };
    let after = i + 4;
    match first {
        0xD800..=0xDBFF => {
            if raw.get(after) == Some(&b'\\')
                && raw.get(after + 1) == Some(&b'u')
                && let Some(second @ 0xDC00..=0xDFFF) = hex4(raw, after + 2)
            {
                let cp =
                    0x10000 + ((u32::from(first) - 0xD800) << 10) + (u32::from(second) - 0xDC00);
                out.push(char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER));
                return after + 6;
            }
            // A high surrogate without its pair: JavaScript cut the string inside a
            // character. Keep the event, lose only the broken character.
            out.push(char::REPLACEMENT_CHARACTER);
            after
        }
        0xDC00..=0xDFFF => {
            out.push(char::REPLACEMENT_CHARACTER);
            after
        }
        cp => {
            out.push(char::from_u32(u32::from(cp)).unwrap_or(char::REPLACEMENT_CHARACTER));
            after
        }
    }
}

fn hex4(raw: &[u8], i: usize) -> Option<u16> {
    let digits = raw.get(i..i + 4)?;
    let mut value: u16 = 0;
    for &d in digits {
        let nibble = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return None,
        };
        value = (value << 4) | u16::from(nibble);
    }
    Some(value)
}

#[cfg(test)]
#[path = "string_tests.rs"]
mod tests;
