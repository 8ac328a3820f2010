//! A turn made concrete for one request: templates filled in, generic tool calls mapped onto the
//! offered tools, text cut into deltas, usage computed. The wire renderers only translate this.

use serde_json::Value;

use crate::conversation::Conversation;
use crate::tools::concrete_call;
use crate::turn::{Stop, Turn};
use crate::usage::{CHARS_PER_TOOL_CALL, Usage};

/// Characters per text or thinking delta when the turn does not give `deltas`.
pub const DEFAULT_DELTA_CHARS: usize = 12;
/// Characters of tool-call arguments per delta when the turn does not give `arg_chunk_chars`.
pub const DEFAULT_ARG_CHUNK_CHARS: usize = 16;

const LAST_TOOL_RESULT: &str = "{{last_tool_result}}";
const CWD: &str = "{{cwd}}";

/// How an answer ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopReason {
    EndTurn,
    ToolUse,
    Length,
}

/// One content block of an answer, with its deltas.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Block {
    Thinking {
        text: String,
        chunks: Vec<String>,
    },
    Text {
        text: String,
        chunks: Vec<String>,
    },
    ToolCall {
        name: String,
        input: Value,
        /// `input` as JSON text, the string the argument deltas cut up.
        arguments: String,
        chunks: Vec<String>,
    },
}

/// A complete answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reply {
    /// The request's sequence number; every id in the answer is derived from it.
    pub seq: u64,
    pub model: String,
    pub blocks: Vec<Block>,
    pub stop: StopReason,
    pub usage: Usage,
}

impl Reply {
    /// Makes `turn` (turn number `turn_index` of its scenario) concrete for `conversation`.
    pub(crate) fn build(
        turn: &Turn,
        turn_index: usize,
        default_deltas: Option<usize>,
        seq: u64,
        conversation: &Conversation,
    ) -> Self {
        let last_tool_result = conversation
            .last_tool_result
            .as_deref()
            .unwrap_or_default()
            .trim();
        let cwd = conversation.cwd.as_deref().unwrap_or(".");
        let fill = |text: &str| {
            text.replace(LAST_TOOL_RESULT, last_tool_result)
                .replace(CWD, cwd)
        };
        let deltas = turn.deltas.or(default_deltas);
        let mut blocks = Vec::new();
        if let Some(thinking) = turn.thinking.as_deref().map(fill).filter(|t| !t.is_empty()) {
            blocks.push(Block::Thinking {
                chunks: split_chars(&thinking, deltas, DEFAULT_DELTA_CHARS),
                text: thinking,
            });
        }
        if let Some(text) = turn.text.as_deref().map(fill).filter(|t| !t.is_empty()) {
            blocks.push(Block::Text {
                chunks: split_chars(&text, deltas, DEFAULT_DELTA_CHARS),
                text,
            });
        }
        let calls = turn.all_calls();
        for call in &calls {
            let (name, input) =
                concrete_call(call, &conversation.tools, conversation.cwd.as_deref());
            let input = fill_strings(input, &fill);
            let arguments = input.to_string();
            let chunk_chars = turn.arg_chunk_chars.unwrap_or(DEFAULT_ARG_CHUNK_CHARS);
            blocks.push(Block::ToolCall {
                chunks: split_chars(&arguments, None, chunk_chars),
                name,
                input,
                arguments,
            });
        }
        let stop = match (calls.is_empty(), turn.stop) {
            (false, _) => StopReason::ToolUse,
            (true, Some(Stop::Length)) => StopReason::Length,
            (true, Some(Stop::End) | None) => StopReason::EndTurn,
        };
        let output_chars: u64 = blocks.iter().map(output_chars).sum();
        let usage = Usage::deterministic(turn_index, output_chars);
        let usage = match &turn.usage {
            Some(overrides) => usage.with_overrides(overrides),
            None => usage,
        };
        Self {
            seq,
            model: conversation.model.clone(),
            blocks,
            stop,
            usage,
        }
    }

    /// The concatenated text blocks.
    pub(crate) fn text(&self) -> String {
        self.blocks
            .iter()
            .filter_map(|block| match block {
                Block::Text { text, .. } => Some(text.as_str()),
                Block::Thinking { .. } | Block::ToolCall { .. } => None,
            })
            .collect()
    }
}

fn output_chars(block: &Block) -> u64 {
    match block {
        Block::Thinking { text, .. } | Block::Text { text, .. } => text.chars().count() as u64,
        Block::ToolCall { arguments, .. } => arguments.chars().count() as u64 + CHARS_PER_TOOL_CALL,
    }
}

/// Every string inside `value` passed through `fill`.
fn fill_strings(value: Value, fill: &impl Fn(&str) -> String) -> Value {
    match value {
        Value::String(text) => Value::String(fill(&text)),
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| fill_strings(v, fill)).collect())
        }
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, v)| (key, fill_strings(v, fill)))
                .collect(),
        ),
        other @ (Value::Null | Value::Bool(_) | Value::Number(_)) => other,
    }
}

/// Cuts `text` at character boundaries: into exactly `pieces` near-equal parts when given (at
/// most one per character), else into parts of `chunk_chars` characters.
pub(crate) fn split_chars(text: &str, pieces: Option<usize>, chunk_chars: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    match pieces {
        Some(pieces) => {
            let pieces = pieces.clamp(1, chars.len());
            (0..pieces)
                .map(|i| {
                    let start = i * chars.len() / pieces;
                    let end = (i + 1) * chars.len() / pieces;
                    chars[start..end].iter().collect()
                })
                .collect()
        }
        None => chars
            .chunks(chunk_chars.max(1))
            .map(|chunk| chunk.iter().collect())
            .collect(),
    }
}
