//! An offline mock model server for driving the real agent CLIs (pi, Claude Code, Codex) in
//! tests. How it works: [`MockServer`] binds 127.0.0.1 on a free port and speaks OpenAI Chat
//! Completions, Anthropic Messages and OpenAI Responses, streamed as SSE or as plain JSON. Each
//! model request is read into a conversation state (user prompts, assistant turns so far, the
//! newest tool result, the offered tools); a [`Script`] of named scenarios picks the scenario
//! from a `[[scenario:NAME]]` marker, a route or the default, and the turn from the number of
//! assistant turns, never from a request counter, so retries replay the same turn. The turn's
//! generic steps (`shell`, `write`, `read`) are mapped onto the tools the client offers, then
//! rendered in the request's wire format, with its fault (HTTP error, cut connection, SSE error
//! event) if one is scripted. Every request is recorded ([`MockServer::requests`],
//! `GET /__log`). [`PiSetup`] and [`ClaudeSetup`] write the agents' configuration for a server,
//! [`AgentSetup`] that of Codex, Gemini CLI (which gets its own wire, Gemini's
//! `:streamGenerateContent`), OpenCode and Copilot.
//! The `ralph-mock-llm` binary runs the same server as a process; the script format is in the
//! crate README. [`streamgen`] generates large realistic agent streams for benchmarks.

mod agents;
mod agents_more;
mod builtin;
mod child;
mod conversation;
mod error;
mod fault;
mod gemini_request;
mod handler;
mod limit_headers;
mod markers;
mod real_agents;
mod record;
mod reply;
mod routing;
mod run_files;
mod script;
mod server;
mod sse;
pub mod streamgen;
mod tools;
mod traps;
mod turn;
mod usage;
mod wire;

pub use agents::{
    ClaudeOptions, ClaudeSetup, DUMMY_API_KEY, FREE_MODEL_ID, PI_MAX_RETRIES,
    PI_PROVIDER_ANTHROPIC, PI_PROVIDER_OPENAI, PRICE_CACHE_READ, PRICE_CACHE_WRITE, PRICE_INPUT,
    PRICE_OUTPUT, PiOptions, PiProvider, PiSetup, TEST_CLAUDE_MAX_RETRIES,
    TEST_RETRY_BASE_DELAY_MS, pi_models_json, pi_settings_json, write_pi_agent_dir,
};
pub use agents_more::{
    AgentSetup, CODEX_MODEL, COPILOT_MODEL, CodexOptions, CopilotOptions, GEMINI_MODEL,
    GeminiOptions, OPENCODE_PROVIDER, TEST_GEMINI_MAX_ATTEMPTS, opencode_json,
};
pub use builtin::{
    Builtin, DEFAULT_BIGWRITE_BYTES, DEFAULT_FLAKY_FAILURES, DEFAULT_LONG_DELTAS,
    DEFAULT_SLOW_DELAY_MS, PROMISE, UNICODE_SAMPLE,
};
pub use child::{success_json, wait_output};
pub use conversation::Wire;
pub use error::MockError;
pub use fault::{Fault, FaultKind};
pub use handler::{DEFAULT_MODEL_ID, EXHAUSTED_TEXT};
pub use markers::Knobs;
pub use real_agents::{
    AGENTS_DIR_ENV, SKIP_REAL_AGENTS_ENV, agents_bin_dir, agents_dir, real_agent,
};
pub use record::{RecordedRequest, ReplyOutcome, Routed};
pub use reply::{DEFAULT_ARG_CHUNK_CHARS, DEFAULT_DELTA_CHARS};
pub use run_files::RunFiles;
pub use script::{DEFAULT_SIDE_TEXT, MAIN_SCENARIO, Route, Script};
pub use server::{MockServer, ServerOptions};
pub use traps::{HUGE_TRAP_BYTES, plant_read_traps};
pub use turn::{Call, ReadArgs, Stop, ToolCall, Turn, UsageOverride, WriteArgs};
pub use usage::{
    CHARS_PER_OUTPUT_TOKEN, CHARS_PER_TOOL_CALL, FIRST_TURN_CACHE_WRITE, FIRST_TURN_INPUT,
    INPUT_GROWTH_PER_TURN, LATER_TURN_CACHE_READ, Usage,
};
