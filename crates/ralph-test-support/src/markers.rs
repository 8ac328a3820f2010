//! Markers a test writes into the agent's prompt to steer the mock: `[[scenario:NAME]]` picks a
//! scenario, and the knobs `[[deltas:N]]`, `[[fail:N]]`, `[[bytes:N]]`, `[[delay_ms:N]]` tune
//! the built-in scenarios (`delay_ms` and `deltas` also act as defaults for scripted turns).

const OPEN: &str = "[[";
const CLOSE: &str = "]]";
const SCENARIO_KEY: &str = "scenario";

/// Knob values found in the prompts; newer prompts override older ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Knobs {
    /// `[[deltas:N]]`: text deltas (the `long` scenario's length, a default for other turns).
    pub deltas: Option<usize>,
    /// `[[fail:N]]`: failing attempts before `flaky` recovers.
    pub fail: Option<u32>,
    /// `[[bytes:N]]`: size of the file `bigwrite` writes.
    pub bytes: Option<usize>,
    /// `[[delay_ms:N]]`: pause between SSE events.
    pub delay_ms: Option<u64>,
}

impl Knobs {
    /// Reads the knobs of `prompts`, oldest first, so that newer values win.
    pub fn from_prompts<'a>(prompts: impl IntoIterator<Item = &'a str>) -> Self {
        let mut knobs = Self::default();
        for prompt in prompts {
            for (key, value) in markers(prompt) {
                match key {
                    "deltas" => knobs.deltas = value.parse().ok().or(knobs.deltas),
                    "fail" => knobs.fail = value.parse().ok().or(knobs.fail),
                    "bytes" => knobs.bytes = value.parse().ok().or(knobs.bytes),
                    "delay_ms" => knobs.delay_ms = value.parse().ok().or(knobs.delay_ms),
                    _ => {}
                }
            }
        }
        knobs
    }
}

/// The last `[[scenario:NAME]]` marker in `text`, if any.
pub(crate) fn scenario_marker(text: &str) -> Option<&str> {
    markers(text)
        .filter(|(key, _)| *key == SCENARIO_KEY)
        .map(|(_, value)| value)
        .last()
}

/// Every `[[key:value]]` in `text`, in order.
fn markers(text: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut rest = text;
    std::iter::from_fn(move || {
        loop {
            let start = rest.find(OPEN)? + OPEN.len();
            let after_open = &rest[start..];
            let end = after_open.find(CLOSE)?;
            let inner = &after_open[..end];
            rest = &after_open[end + CLOSE.len()..];
            let valid = |(key, value): &(&str, &str)| {
                is_word(key) && !value.is_empty() && !value.contains(char::is_whitespace)
            };
            if let Some(marker) = inner.split_once(':').filter(valid) {
                return Some(marker);
            }
        }
    })
}

fn is_word(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
