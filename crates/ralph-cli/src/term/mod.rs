//! Terminal rendering of what agents do: streamed Markdown text, one-line tool calls,
//! marked failures, retries. Styles are plain ANSI; the stream they are written to
//! (`anstream`) drops them when colors are off, so plain output is the same text.

mod agent;
mod markdown;
mod palette;
mod tool_preview;

pub(crate) use agent::AgentView;
