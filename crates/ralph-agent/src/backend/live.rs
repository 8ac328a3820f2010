//! Steering an agent while it runs: the backends that take commands on stdin during a turn,
//! the frames ralph writes them, and the handle ([`LiveInput`]) through which a steering
//! message reaches the agent.
//!
//! Checked against the real agents (see docs/agents.md): pi 0.73.1 and 0.51.6 in RPC mode
//! (`pi --mode rpc`, the protocol in the package's `docs/rpc.md`) answer every command
//! with a `response` line and deliver a `steer` after the running tool call, before the next
//! model request; after `agent_end` they wait for the next command and exit at end of file.
//! Claude Code 2.1.332 with `--input-format stream-json` takes the prompt as a user message,
//! puts a user message sent during a tool call next to that call's result in the next
//! model request, answers the SDK's `interrupt` control request by ending the turn, and
//! exits at end of file after its `result`.

use std::fmt;

use serde_json::json;

use crate::supervise::{LiveStdin, StdinSource};

/// How a backend is started when it is to be steered mid-turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Steering {
    /// Arguments of a headless run with a live stdin, replacing the usual headless ones
    /// (before the configured extra arguments).
    pub headless_args: &'static [&'static str],
    pub protocol: SteerProtocol,
}

/// The command protocol on the agent's stdin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SteerProtocol {
    /// pi's RPC mode: `prompt`, `steer` and `abort` commands, one JSON object a line.
    PiRpc,
    /// Claude Code's stream-json input: user messages, and the `interrupt` control request.
    ClaudeStreamJson,
}

/// The request id of Claude Code's interrupt (any id is echoed in its answer).
const CLAUDE_ABORT_ID: &str = "ralph-abort";

impl SteerProtocol {
    /// The frame that starts the iteration with `prompt`.
    pub fn prompt_frame(self, prompt: &str) -> Vec<u8> {
        match self {
            SteerProtocol::PiRpc => frame(&json!({"type": "prompt", "message": prompt})),
            SteerProtocol::ClaudeStreamJson => claude_user_message(prompt),
        }
    }

    /// The frame that hands the agent a steering message during its turn.
    pub fn steer_frame(self, message: &str) -> Vec<u8> {
        match self {
            SteerProtocol::PiRpc => frame(&json!({"type": "steer", "message": message})),
            SteerProtocol::ClaudeStreamJson => claude_user_message(message),
        }
    }

    /// The frame that asks the agent to abort its turn.
    pub fn abort_frame(self) -> Vec<u8> {
        match self {
            SteerProtocol::PiRpc => frame(&json!({"type": "abort"})),
            SteerProtocol::ClaudeStreamJson => frame(&json!({
                "type": "control_request",
                "request_id": CLAUDE_ABORT_ID,
                "request": {"subtype": "interrupt"},
            })),
        }
    }

    /// Where a steering message went, as ralph says it (`delivered to pi mid-turn`).
    pub fn target(self) -> &'static str {
        match self {
            SteerProtocol::PiRpc => "pi mid-turn",
            SteerProtocol::ClaudeStreamJson => "Claude Code mid-turn",
        }
    }
}

fn claude_user_message(text: &str) -> Vec<u8> {
    frame(&json!({
        "type": "user",
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }))
}

/// One JSON line. U+2028 and U+2029 are escaped although JSON allows them raw: a reader
/// built on Node's `readline` (older pi releases) would split the line there.
fn frame(value: &serde_json::Value) -> Vec<u8> {
    let mut line = value
        .to_string()
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029");
    line.push('\n');
    line.into_bytes()
}

/// The running agent's input, for steering: cheap to clone, shareable between threads.
/// Made with the iteration's command line ([`CommandLine::live`](crate::CommandLine)),
/// holding its prompt; it accepts steering messages from then until the agent ends its
/// turn, is being stopped, or its run is over.
#[derive(Clone, PartialEq, Eq)]
pub struct LiveInput {
    stdin: LiveStdin,
    protocol: SteerProtocol,
}

/// Why a steering message did not reach the agent: its turn had ended, it was being
/// stopped, or its run was over. The caller queues the message for the next iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the agent takes no more input in this turn")]
pub struct SteerRefused;

impl LiveInput {
    /// An input whose first frame starts the turn with `prompt`.
    pub fn start(protocol: SteerProtocol, prompt: &str) -> LiveInput {
        let stdin = LiveStdin::new(Some(protocol.abort_frame()));
        // A fresh input is open: the prompt is always queued.
        let _ = stdin.send(protocol.prompt_frame(prompt));
        LiveInput { stdin, protocol }
    }

    /// Hands `message` to the agent now (it reads it during its turn: pi after the running
    /// tool call, Claude Code next to that call's result).
    pub fn steer(&self, message: &str) -> Result<(), SteerRefused> {
        if self.stdin.send(self.protocol.steer_frame(message)) {
            Ok(())
        } else {
            Err(SteerRefused)
        }
    }

    /// True while a steering message would be accepted.
    pub fn is_open(&self) -> bool {
        self.stdin.is_open()
    }

    /// Ends the agent's input (it finishes its turn and exits).
    pub fn close(&self) {
        self.stdin.close();
    }

    /// Where an accepted message went (`pi mid-turn`).
    pub fn target(&self) -> &'static str {
        self.protocol.target()
    }

    pub fn protocol(&self) -> SteerProtocol {
        self.protocol
    }

    /// The supervisor's side of this input.
    pub fn stdin_source(&self) -> StdinSource {
        StdinSource::Live(self.stdin.clone())
    }
}

impl fmt::Debug for LiveInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveInput")
            .field("protocol", &self.protocol)
            .field("stdin", &self.stdin)
            .finish()
    }
}

#[cfg(test)]
#[path = "live_tests.rs"]
mod tests;
