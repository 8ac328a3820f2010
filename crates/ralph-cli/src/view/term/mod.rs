//! Terminal rendering: what agents do (streamed Markdown text, one-line tool calls,
//! marked failures, retries) and how a run goes (headers, footers, the final verdict),
//! plus the status line shown while the agent is silent. Styles are plain ANSI added to
//! text; whoever writes the text to the screen drops them when colors are off, so plain
//! output is the same text.

mod agent;
mod closing;
mod emitted_lines;
pub(crate) mod ending;
pub(crate) mod figures;
pub(crate) mod gate_lines;
mod hook_view;
pub(crate) mod limit_lines;
mod markdown;
pub(crate) mod palette;
mod run_view;
pub(crate) mod status;
mod steer_view;
pub(crate) mod tool_preview;

pub(crate) use agent::AgentView;
pub(crate) use figures::{clock, count, iteration_cost};
pub(crate) use run_view::{Detail, Pointers, RunView, line};
pub(crate) use tool_preview::one_line;
