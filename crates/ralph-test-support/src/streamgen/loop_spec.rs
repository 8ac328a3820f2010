//! The shape shared by the Codex, Gemini CLI, OpenCode and Copilot generators.

use super::PROMISE;
use super::text::Rng;

/// The shape of a generated Codex, Gemini CLI, OpenCode or Copilot stream: `turns` model
/// responses of `text_bytes` (streamed in `deltas` pieces where the agent streams), each
/// but the last followed by a shell command with `tool_output_bytes` of output.
#[derive(Clone, Debug)]
pub struct LoopSpec {
    pub turns: usize,
    pub text_bytes: usize,
    pub deltas: usize,
    pub tool_output_bytes: usize,
    pub unicode: bool,
    pub seed: u64,
}

impl LoopSpec {
    /// About 100 MB of tool output (twice that where the agent repeats it).
    pub fn large() -> Self {
        LoopSpec {
            turns: 400,
            text_bytes: 3000,
            deltas: 60,
            tool_output_bytes: 250_000,
            unicode: true,
            seed: 7,
        }
    }

    /// About 3 MB.
    pub fn medium() -> Self {
        LoopSpec {
            turns: 30,
            text_bytes: 1500,
            deltas: 30,
            tool_output_bytes: 50_000,
            unicode: true,
            seed: 7,
        }
    }
}

/// The next response's text; the last one ends with the promise.
pub(super) fn response_text(rng: &mut Rng, spec: &LoopSpec, last: bool) -> String {
    let mut text = rng.text(spec.text_bytes, spec.unicode);
    if last {
        text.push_str("\n\n");
        text.push_str(PROMISE);
    }
    text
}
