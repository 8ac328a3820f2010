//! Every real capture, rewritten into JSON that any JSON parser reads as the same value,
//! gives the same summary and the same events: escapes in keys and strings, decoy
//! duplicate keys before the real ones (the last one wins), keys shuffled at every
//! depth, whitespace between tokens, other spellings of the same numbers and a byte
//! order mark before the first line.

mod support;

use proptest::prelude::*;
use ralph_stream::AgentEvent;
use serde_json::Map;
use serde_json::Value;
use support::events_in_chunks;
use support::fixtures;
use support::name_of;
use support::read;

/// Rewrites per agent: each rewrites every capture of the agent, a few seconds in all.
const CASES: u32 = 4;

/// Types from every agent, as decoys for `type`: a reader that keeps the first `type`
/// reads another event.
const DECOY_TYPES: [&str; 8] = [
    "agent_end",
    "message_end",
    "result",
    "turn.completed",
    "step_finish",
    "assistant.message",
    "error",
    "unknown_decoy",
];

/// A small deterministic generator (SplitMix64), so that a failing seed replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

/// Writes JSON values in a random but equivalent spelling.
struct Writer<'r> {
    rng: &'r mut Rng,
    out: String,
}

impl Writer<'_> {
    fn ws(&mut self) {
        const WS: [&str; 5] = ["", "", " ", "  ", "\t"];
        let ws = WS[self.rng.below(WS.len())];
        self.out.push_str(ws);
    }

    fn value(&mut self, value: &Value) {
        self.ws();
        match value {
            Value::Null => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => self.number(&n.to_string()),
            Value::String(s) => self.string(s, 8),
            Value::Array(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.value(item);
                }
                self.ws();
                self.out.push(']');
            }
            Value::Object(map) => self.object(map),
        }
        self.ws();
    }

    fn object(&mut self, map: &Map<String, Value>) {
        let mut entries: Vec<(&String, &Value)> = map.iter().collect();
        for i in (1..entries.len()).rev() {
            entries.swap(i, self.rng.below(i + 1));
        }
        self.out.push('{');
        let mut first = true;
        for (key, value) in entries {
            if self.rng.one_in(5) {
                let decoy = self.decoy(key);
                self.entry(key, &decoy, &mut first);
            }
            self.entry(key, value, &mut first);
        }
        self.ws();
        self.out.push('}');
    }

    fn entry(&mut self, key: &str, value: &Value, first: &mut bool) {
        if !*first {
            self.out.push(',');
        }
        *first = false;
        self.ws();
        self.string(key, 4);
        self.ws();
        self.out.push(':');
        self.value(value);
    }

    /// A value the real one, coming later, must replace.
    fn decoy(&mut self, key: &str) -> Value {
        if key == "type" {
            return Value::from(DECOY_TYPES[self.rng.below(DECOY_TYPES.len())]);
        }
        match self.rng.below(6) {
            0 => Value::from("decoy"),
            1 => Value::from(7),
            2 => serde_json::json!({"type": "text", "text": "decoy", "message": "decoy"}),
            3 => serde_json::json!(["decoy"]),
            4 => Value::Null,
            _ => Value::Bool(true),
        }
    }

    /// A string with one character in about `one_in` escaped.
    fn string(&mut self, s: &str, one_in: usize) {
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' | '\\' if self.rng.one_in(2) => {
                    self.out.push('\\');
                    self.out.push(c);
                }
                '\n' | '\t' | '\r' | '\u{8}' | '\u{c}' if self.rng.one_in(2) => {
                    self.out.push_str(match c {
                        '\n' => "\\n",
                        '\t' => "\\t",
                        '\r' => "\\r",
                        '\u{8}' => "\\b",
                        _ => "\\f",
                    });
                }
                '/' if self.rng.one_in(one_in) => self.out.push_str("\\/"),
                '"' | '\\' | '\u{0}'..='\u{1f}' => self.unicode(c),
                _ if self.rng.one_in(one_in) => self.unicode(c),
                _ => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    fn unicode(&mut self, c: char) {
        let mut units = [0u16; 2];
        for unit in c.encode_utf16(&mut units) {
            let hex = format!("{unit:04x}");
            self.out.push_str("\\u");
            if self.rng.one_in(2) {
                self.out.push_str(&hex.to_uppercase());
            } else {
                self.out.push_str(&hex);
            }
        }
    }

    /// The same number in another exact decimal spelling.
    fn number(&mut self, text: &str) {
        let (sign, unsigned) = match text.strip_prefix('-') {
            Some(rest) => ("-", rest),
            None => ("", text),
        };
        let (mantissa, exp) = match unsigned.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.parse::<i32>().unwrap()),
            None => (unsigned, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits = format!("{int}{frac}");
        let digits = digits.trim_start_matches('0');
        let exp = exp - frac.len() as i32;
        // Integers past 2^53 only read exactly as integers; zero has one spelling here.
        if digits.is_empty() || digits.len() > 15 {
            self.out.push_str(text);
            return;
        }
        let len = digits.len() as i32;
        let spelled = match self.rng.below(4) {
            0 => text.to_owned(),
            1 => format!("{sign}{digits}e{exp}"),
            2 => format!("{sign}0.{digits}E{:+}", exp + len),
            _ => format!("{sign}{}.{}e{}", &digits[..1], &digits[1..], exp + len - 1)
                .replace(".e", ".0e"),
        };
        self.out.push_str(&spelled);
    }
}

/// The capture with every JSON object line respelled; other lines stay as they are.
fn rewrite(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() * 2);
    if rng.one_in(2) {
        out.extend_from_slice("\u{feff}".as_bytes());
    }
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(value @ Value::Object(_)) if !line.contains(&b'\r') => {
                let mut writer = Writer {
                    rng,
                    out: String::new(),
                };
                writer.value(&value);
                out.extend_from_slice(writer.out.as_bytes());
            }
            _ => out.extend_from_slice(line),
        }
    }
    out
}

/// Events as JSON, numbers as floats: tool arguments are passed on as written, and
/// `1e2` and `100` are the same argument.
fn comparable(events: &[AgentEvent<'_>]) -> Vec<Value> {
    fn floats(value: Value) -> Value {
        match value {
            Value::Number(n) => Value::from(n.as_f64().unwrap()),
            Value::Array(items) => Value::Array(items.into_iter().map(floats).collect()),
            Value::Object(map) => {
                Value::Object(map.into_iter().map(|(k, v)| (k, floats(v))).collect())
            }
            other => other,
        }
    }
    events
        .iter()
        .map(|e| floats(serde_json::to_value(e).unwrap()))
        .collect()
}

fn same_reading(agent: &str, seed: u64) {
    let mut rng = Rng(seed);
    for path in fixtures(agent) {
        let name = name_of(&path);
        let bytes = read(&path);
        let rewritten = rewrite(&bytes, &mut rng);
        let (format, summary, _) = ralph_stream::summarize(&bytes, None);
        let (format2, summary2, _) = ralph_stream::summarize(&rewritten, None);
        assert_eq!(format2, format, "{name}: format (seed {seed})");
        assert_eq!(summary2, summary, "{name}: summary (seed {seed})");
        for given in [None, format] {
            let want = comparable(&events_in_chunks(given, [bytes.as_slice()]));
            let got = comparable(&events_in_chunks(given, [rewritten.as_slice()]));
            if got != want {
                let at = got.iter().zip(&want).position(|(g, w)| g != w);
                panic!(
                    "{name} (seed {seed}, format {given:?}): event {at:?} differs:\n{:#?}\nwant {:#?}",
                    at.map(|i| &got[i]),
                    at.map(|i| &want[i]),
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn pi_captures_read_the_same_however_spelled(seed in any::<u64>()) {
        same_reading("pi", seed);
    }

    #[test]
    fn claude_captures_read_the_same_however_spelled(seed in any::<u64>()) {
        same_reading("claude", seed);
    }

    #[test]
    fn codex_captures_read_the_same_however_spelled(seed in any::<u64>()) {
        same_reading("codex", seed);
    }

    #[test]
    fn gemini_captures_read_the_same_however_spelled(seed in any::<u64>()) {
        same_reading("gemini", seed);
    }

    #[test]
    fn opencode_captures_read_the_same_however_spelled(seed in any::<u64>()) {
        same_reading("opencode", seed);
    }

    #[test]
    fn copilot_captures_read_the_same_however_spelled(seed in any::<u64>()) {
        same_reading("copilot", seed);
    }
}
