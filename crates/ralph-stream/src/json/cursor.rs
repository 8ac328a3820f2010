//! The cursor: walks one JSON value at a time, skipping what nobody asked for.

use super::index::LineIndex;
use super::scan;
use super::scan::Container;
use super::string::JsonStr;

/// The line is not JSON, or not the JSON we expected at this point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Malformed;

/// What reading a value gives: the value, or [`Malformed`].
pub(crate) type Result<T = ()> = std::result::Result<T, Malformed>;

/// Reads JSON values in document order from a byte slice.
///
/// Every `read_*` method consumes exactly one value. The typed readers are lenient: a
/// value of another type is skipped and reads as `None`, so a field of the wrong type
/// is treated as absent instead of failing the whole event.
#[derive(Clone, Debug)]
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// The bytes run past the end of the line being read (the rest of a chunk): a raw
    /// newline ends the line, and so is not whitespace, nor allowed inside a string.
    one_line: bool,
    /// Where the line's objects and arrays end, when they were found as it arrived.
    index: Option<&'a LineIndex>,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Cursor {
            bytes,
            pos: 0,
            one_line: false,
            index: None,
        }
    }

    /// A cursor on a whole line whose values' ends are in `index`.
    pub(crate) fn indexed(bytes: &'a [u8], index: Option<&'a LineIndex>) -> Self {
        Cursor {
            index,
            ..Cursor::new(bytes)
        }
    }

    /// A cursor on a line whose end is not known yet: it reads no further than the
    /// first raw newline.
    pub(crate) fn on_line_start(bytes: &'a [u8]) -> Self {
        Cursor {
            bytes,
            pos: 0,
            one_line: true,
            index: None,
        }
    }

    /// How far the cursor has read.
    pub(crate) fn position(&self) -> usize {
        self.pos
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if matches!(b, b' ' | b'\t' | b'\r') || (b == b'\n' && !self.one_line) {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// The next non-whitespace byte, without consuming it.
    #[inline]
    pub(crate) fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.bytes.get(self.pos).copied()
    }

    #[inline]
    fn expect(&mut self, byte: u8) -> Result<()> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(Malformed)
        }
    }

    /// Enters an object. Returns `None` (after skipping the value) when the next value is
    /// not an object.
    pub(crate) fn enter_object(&mut self) -> Result<Option<Object>> {
        if self.peek() == Some(b'{') {
            self.pos += 1;
            Ok(Some(Object { first: true }))
        } else {
            self.skip()?;
            Ok(None)
        }
    }

    /// The next key of the object being walked, or `None` at its closing brace. The
    /// caller must consume the key's value (read or skip) before asking again.
    pub(crate) fn next_key(&mut self, object: &mut Object) -> Result<Option<JsonStr<'a>>> {
        match self.peek() {
            Some(b'}') => {
                self.pos += 1;
                return Ok(None);
            }
            Some(b',') if !object.first => self.pos += 1,
            Some(b'"') if object.first => {}
            _ => return Err(Malformed),
        }
        object.first = false;
        if self.peek() != Some(b'"') {
            return Err(Malformed);
        }
        let key = self.scan_string()?;
        self.expect(b':')?;
        Ok(Some(key))
    }

    /// Walks the fields of an object value: `field` gets each key (to compare through
    /// [`JsonStr::name`]) with the cursor on its value, which it must consume. Any other
    /// value is skipped; returns whether it was an object. Fields are handed over in
    /// document order, so a handler that assigns lets the last duplicate key win, as
    /// JSON parsers do.
    pub(crate) fn object(
        &mut self,
        mut field: impl FnMut(&mut Self, JsonStr<'a>) -> Result<()>,
    ) -> Result<bool> {
        let Some(mut object) = self.enter_object()? else {
            return Ok(false);
        };
        while let Some(key) = self.next_key(&mut object)? {
            field(self, key)?;
        }
        Ok(true)
    }

    /// Walks the elements of an array value with the cursor on each, which `element`
    /// must consume. Any other value is skipped.
    pub(crate) fn array(&mut self, mut element: impl FnMut(&mut Self) -> Result<()>) -> Result<()> {
        let Some(mut array) = self.enter_array()? else {
            return Ok(());
        };
        while self.next_element(&mut array)? {
            element(self)?;
        }
        Ok(())
    }

    /// Enters an array. Returns `None` (after skipping the value) when the next value is
    /// not an array.
    pub(crate) fn enter_array(&mut self) -> Result<Option<Array>> {
        if self.peek() == Some(b'[') {
            self.pos += 1;
            Ok(Some(Array { first: true }))
        } else {
            self.skip()?;
            Ok(None)
        }
    }

    /// Moves to the next element of the array; `false` at its closing bracket.
    pub(crate) fn next_element(&mut self, array: &mut Array) -> Result<bool> {
        match self.peek() {
            Some(b']') => {
                self.pos += 1;
                Ok(false)
            }
            Some(b',') if !array.first => {
                self.pos += 1;
                Ok(true)
            }
            Some(_) if array.first => {
                array.first = false;
                Ok(true)
            }
            _ => Err(Malformed),
        }
    }

    /// Reads a string value; other types are skipped and read as `None`.
    pub(crate) fn read_str(&mut self) -> Result<Option<JsonStr<'a>>> {
        if self.peek() == Some(b'"') {
            self.scan_string().map(Some)
        } else {
            self.skip().map(|()| None)
        }
    }

    /// Reads a number as `f64`; other types read as `None`.
    pub(crate) fn read_f64(&mut self) -> Result<Option<f64>> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => {
                let token = self.scan_scalar();
                Ok(std::str::from_utf8(token)
                    .ok()
                    .and_then(|s| s.parse::<f64>().ok())
                    .filter(|v| v.is_finite()))
            }
            _ => self.skip().map(|()| None),
        }
    }

    /// Reads a non-negative integer; a float with no fractional part counts, anything
    /// else reads as `None`.
    pub(crate) fn read_u64(&mut self) -> Result<Option<u64>> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => {
                let token = self.scan_scalar();
                let text = std::str::from_utf8(token).ok();
                Ok(text.and_then(|s| {
                    s.parse::<u64>().ok().or_else(|| {
                        let v = s.parse::<f64>().ok()?;
                        // Exact integral values only; `as` saturates, and the range check
                        // keeps it from doing so.
                        (v >= 0.0 && v.fract() == 0.0 && v < 1.8e19).then_some(v as u64)
                    })
                }))
            }
            _ => self.skip().map(|()| None),
        }
    }

    /// Reads `true`/`false`; other types read as `None`.
    pub(crate) fn read_bool(&mut self) -> Result<Option<bool>> {
        match self.peek() {
            Some(b't' | b'f') => {
                let token = self.scan_scalar();
                Ok(match token {
                    b"true" => Some(true),
                    b"false" => Some(false),
                    _ => None,
                })
            }
            _ => self.skip().map(|()| None),
        }
    }

    /// Skips one value of any type and returns its raw bytes.
    pub(crate) fn read_raw(&mut self) -> Result<&'a [u8]> {
        self.skip_ws();
        let start = self.pos;
        self.skip()?;
        Ok(&self.bytes[start..self.pos])
    }

    /// Skips one value of any type.
    pub(crate) fn skip(&mut self) -> Result<()> {
        match self.peek() {
            Some(b'"') => self.scan_string().map(|_| ()),
            Some(b'{' | b'[') => self.skip_container(),
            Some(b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => {
                self.scan_scalar();
                Ok(())
            }
            _ => Err(Malformed),
        }
    }

    /// Consumes a string starting at the current quote and returns its raw contents.
    ///
    /// The string ends at the first quote not escaped by a backslash; in a line whose
    /// end is not known, a raw newline before it means the line broke off inside the
    /// string.
    fn scan_string(&mut self) -> Result<JsonStr<'a>> {
        let start = self.pos + 1;
        // Keys and enum-like values are short: eight bytes at a time find their end
        // before a block of them would be classified.
        let head = &self.bytes[start..self.bytes.len().min(start + SHORT_STRING)];
        if let Some(offset) = first_special(head)
            && head[offset] == b'"'
        {
            self.pos = start + offset + 1;
            return Ok(JsonStr::new(&head[..offset]));
        }
        let quote =
            start + scan::string_end(&self.bytes[start..], self.one_line).ok_or(Malformed)?;
        self.pos = quote + 1;
        Ok(JsonStr::new(&self.bytes[start..quote]))
    }

    /// Consumes a number or literal token.
    fn scan_scalar(&mut self) -> &'a [u8] {
        let start = self.pos;
        while let Some(&b) = self.bytes.get(self.pos) {
            if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' | b':') {
                break;
            }
            self.pos += 1;
        }
        &self.bytes[start..self.pos]
    }

    /// Skips an object or array, strings included, by bracket depth. Lenient about which
    /// kind of bracket closes which: the goal is to find the end, not to validate.
    fn skip_container(&mut self) -> Result<()> {
        if let Some(end) = self.index.and_then(|index| index.end_of(self.pos)) {
            self.pos = end;
            return Ok(());
        }
        match scan::container_end(&self.bytes[self.pos..], self.one_line) {
            Container::End(len) => {
                self.pos += len;
                Ok(())
            }
            Container::Unterminated => Err(Malformed),
            Container::Irregular => self.skip_container_bytewise(),
        }
    }

    /// [`Cursor::skip_container`] a byte at a time: the reading that defines what a
    /// broken value (a raw newline in it, a backslash outside its strings) reads as.
    fn skip_container_bytewise(&mut self) -> Result<()> {
        let mut depth = 0usize;
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b'"' => {
                    self.scan_string()?;
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'\n' if self.one_line => return Err(Malformed),
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos += 1;
                        return Ok(());
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        Err(Malformed)
    }
}

/// Reads an object value through [`Cursor::object`], matching each key, decoded, against
/// byte-string patterns; every other key's value is skipped:
///
/// `fields!(c, { b"role" => m.role = c.read_str()?, b"usage" => m.usage = read_usage(c)? })`
macro_rules! fields {
    ($c:ident, { $($name:pat $(if $guard:expr)? => $read:expr),* $(,)? }) => {
        $c.object(|$c, key| {
            match &*key.name() {
                $($name $(if $guard)? => $read,)*
                _ => $c.skip()?,
            }
            Ok(())
        })
    };
}
pub(crate) use fields;

/// How many bytes of a string are looked at a word at a time before a vector search.
const SHORT_STRING: usize = 32;

/// The offset of the first quote, backslash or newline in `bytes`, found eight bytes
/// at a time (a byte is one of them when its xor with it is zero: the classic
/// zero-byte test, exact for the lowest match) and byte by byte for the rest.
fn first_special(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let (words, rest) = bytes.as_chunks::<8>();
    for (i, word) in words.iter().enumerate() {
        let v = u64::from_le_bytes(*word);
        let found = zero(v ^ (ONES * u64::from(b'"')))
            | zero(v ^ (ONES * u64::from(b'\\')))
            | zero(v ^ (ONES * u64::from(b'\n')));
        if found != 0 {
            return Some(i * 8 + found.trailing_zeros() as usize / 8);
        }
    }
    let offset = rest
        .iter()
        .position(|b| matches!(b, b'"' | b'\\' | b'\n'))?;
    Some(words.len() * 8 + offset)
}

/// State of an object being walked with [`Cursor::next_key`].
#[derive(Debug)]
pub(crate) struct Object {
    first: bool,
}

/// State of an array being walked with [`Cursor::next_element`].
#[derive(Debug)]
pub(crate) struct Array {
    first: bool,
}

#[cfg(test)]
#[path = "cursor_tests.rs"]
mod tests;
