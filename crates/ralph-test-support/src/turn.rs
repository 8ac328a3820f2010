//! One scripted assistant turn: what the mock model answers to one request, before it is put
//! on a wire. A turn is generic: `shell`, `write` and `read` steps are mapped onto whatever
//! tools the client offers (see `tools.rs`), so one script drives pi, Claude Code and Codex.

use serde::{Deserialize, Serialize};

use crate::fault::Fault;

/// One assistant turn. Every field is optional; a turn with nothing in it answers `ok`.
///
/// Blocks are sent in this order: thinking, text, then the tool calls (`calls` first, then the
/// `shell`/`write`/`read`/`tool` shortcuts). Strings may contain `{{last_tool_result}}` (the
/// trimmed text of the newest tool result in the conversation) and `{{cwd}}` (the agent's
/// working directory, read from its system prompt).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// A thinking (reasoning) block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// A text block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Tool calls, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<Call>,
    /// Shortcut for one `shell` call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
    /// Shortcut for one `write` call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<WriteArgs>,
    /// Shortcut for one `read` call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<ReadArgs>,
    /// Shortcut for one verbatim tool call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolCall>,
    /// How the turn ends when it has no tool calls (`end`, the default, or `length`).
    /// A turn with tool calls always ends with the wire's tool-use stop reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Stop>,
    /// Split the text and the thinking into exactly this many deltas each (at character
    /// boundaries that ignore words and graphemes). Default: pieces of
    /// [`crate::DEFAULT_DELTA_CHARS`] characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deltas: Option<usize>,
    /// Characters of tool-call arguments per delta. Default: [`crate::DEFAULT_ARG_CHUNK_CHARS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arg_chunk_chars: Option<usize>,
    /// Pause between SSE events, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// Cut every SSE event into HTTP chunks of at most this many bytes, so events (and UTF-8
    /// characters) arrive split across reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_bytes: Option<usize>,
    /// Overrides of the deterministic token counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageOverride>,
    /// A fault to inject instead of (or in the middle of) this turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
}

impl Turn {
    /// A turn that only says `text`.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// A turn that only runs `command` through the client's shell tool.
    pub fn shell(command: impl Into<String>) -> Self {
        Self {
            shell: Some(command.into()),
            ..Self::default()
        }
    }

    /// Adds a thinking block.
    pub fn with_thinking(mut self, thinking: impl Into<String>) -> Self {
        self.thinking = Some(thinking.into());
        self
    }

    /// Adds a fault.
    pub fn with_fault(mut self, fault: Fault) -> Self {
        self.fault = Some(fault);
        self
    }

    /// All tool calls in the order they are sent: `calls`, then the shortcuts.
    pub fn all_calls(&self) -> Vec<Call> {
        let mut calls = self.calls.clone();
        calls.extend(self.shell.clone().map(Call::Shell));
        calls.extend(self.write.clone().map(Call::Write));
        calls.extend(self.read.clone().map(Call::Read));
        calls.extend(self.tool.clone().map(Call::Tool));
        calls
    }
}

/// A generic tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Call {
    /// Run a shell command: pi `bash {command}`, Claude `Bash {command, description}`,
    /// Codex `exec_command {cmd}`.
    Shell(String),
    /// Write a file: pi `write {path, content}`, Claude `Write {file_path, content}` (made
    /// absolute with the agent's cwd); a shell command where there is no write tool.
    Write(WriteArgs),
    /// Read a file: pi `read {path}`, Claude `Read {file_path}`; `cat` where there is none.
    Read(ReadArgs),
    /// A tool call sent exactly as given.
    Tool(ToolCall),
}

/// Arguments of a generic `write`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteArgs {
    /// The file, relative to the agent's working directory or absolute.
    pub path: String,
    /// The whole new content.
    pub content: String,
}

/// Arguments of a generic `read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// The file, relative to the agent's working directory or absolute.
    pub path: String,
}

/// A verbatim tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// The tool's name exactly as the client offers it.
    pub name: String,
    /// The arguments object.
    #[serde(default = "empty_object")]
    pub input: serde_json::Value,
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(serde_json::Map::new())
}

/// How a turn without tool calls ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// A normal end (`stop` / `end_turn` / `completed`).
    End,
    /// The output-token limit (`length` / `max_tokens` / `incomplete`).
    Length,
}

/// Token counts that replace the deterministic ones (see `usage.rs`); unset fields keep theirs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageOverride {
    /// Uncached input tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<u64>,
    /// Output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<u64>,
    /// Input tokens read from the prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<u64>,
    /// Input tokens written to the prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<u64>,
}
