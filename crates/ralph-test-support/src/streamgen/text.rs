//! What every generator writes with: deterministic pseudo-random text that mixes ASCII
//! with multi-byte UTF-8 and characters JSON must escape, cut into pieces on character
//! boundaries, and written as JSON string literals the way `JSON.stringify` does.

use std::fmt::Write as _;

const WORDS: [&str; 24] = [
    "the",
    "function",
    "returns",
    "a",
    "value",
    "and",
    "we",
    "update",
    "parser",
    "so",
    "each",
    "line",
    "is",
    "handled",
    "once",
    "while",
    "buffer",
    "keeps",
    "remainder",
    "run",
    "cargo",
    "test",
    "fix",
    "commit",
];
const UNICODE: [&str; 6] = [
    "héllo → 世界 🎉",
    "naïve café — “smart quotes”",
    "日本語テキスト",
    "emoji 🚀🔥✅",
    "Ωμέγα ≤ ∞",
    "a \"quoted\" path C:\\tmp\\x\tend",
];

/// xorshift64*: deterministic and dependency-free.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Text of about `bytes` bytes; ~8 % of the pieces are non-ASCII or need escaping.
    pub(super) fn text(&mut self, bytes: usize, unicode: bool) -> String {
        let mut out = String::new();
        while out.len() < bytes {
            if unicode && self.below(12) == 0 {
                out.push_str(UNICODE[self.below(UNICODE.len())]);
            } else {
                out.push_str(WORDS[self.below(WORDS.len())]);
            }
            out.push(if self.below(16) == 0 { '\n' } else { ' ' });
        }
        out
    }
}

/// Splits `text` into `n` pieces on character boundaries.
pub(super) fn pieces(text: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for i in 1..=n {
        let end = if i == n {
            text.len()
        } else {
            text.ceil_char_boundary(text.len() * i / n)
        }
        .max(start);
        out.push(&text[start..end]);
        start = end;
    }
    out
}

/// Appends `s` as a JSON string literal (quotes included), raw UTF-8 as
/// `JSON.stringify` writes it.
pub(super) fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    push_escaped(out, s);
    out.push('"');
}

pub(super) fn push_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
}

/// A JSON string literal of `s`.
pub(super) fn json(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_json_str(&mut out, s);
    out
}
