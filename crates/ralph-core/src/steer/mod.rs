//! Steering a running loop: guidance a person sends with `ralph steer` while the loop runs.
//!
//! A message reaches the loop as a request file in the run's directory and is answered
//! with an answer file (the `files` module); the loop decides where it goes with the pure
//! [`SteerBook`]: into the running agent's turn when its backend can take it (the caller
//! asks, through a closure), otherwise into the queue for the next iteration's prompt,
//! where [`crate::prompt`] shows it under a heading of its own, once. Every message and
//! where it went is kept in `steering.jsonl` ([`SteerLogLine`]), from which `--continue`
//! rebuilds the queue and the run's counts.
//!
//! ```text
//! runs/<run-id>/
//!   steering.jsonl             one line per message received, and per message a prompt carried
//!   steer/requests/<id>.json   `ralph steer` → the loop (written atomically, removed when taken)
//!   steer/answers/<id>.json    the loop → `ralph steer` (removed when read)
//! ```

mod book;
mod files;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use book::{Queued, SteerBook};
pub use files::{
    ANSWERS_DIR, REQUESTS_DIR, STEER_DIR, STEERING_FILE, append_log, discard_request,
    is_request_id, pending_requests, read_log, read_request, send_request, take_answer,
    withdraw_request, write_answer,
};

/// The longest steering message taken, in bytes: guidance, not a document (it goes into a
/// prompt whole).
pub const MAX_STEER_MESSAGE_BYTES: usize = 16 * 1024;
/// The most messages waiting for the next prompt; another is refused until a prompt has
/// carried them (which bounds the prompt's guidance section at this many times
/// [`MAX_STEER_MESSAGE_BYTES`]).
pub const MAX_QUEUED_STEERS: usize = 16;
/// The most of a request file read: the longest message with JSON escaping to spare.
pub const MAX_STEER_REQUEST_BYTES: u64 = 8 * MAX_STEER_MESSAGE_BYTES as u64;
/// The most of an answer file read: one short status.
pub const MAX_STEER_ANSWER_BYTES: u64 = 4 * 1024;
/// The most of `steering.jsonl` read back on `--continue`: far more than a person types.
pub const MAX_STEERING_LOG_BYTES: u64 = 16 * 1024 * 1024;

/// What `ralph steer` writes: the message and whether it must wait for the next iteration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SteerRequest {
    pub message: String,
    /// `--next`: queue it even when the running agent could take it now.
    #[serde(default)]
    pub next: bool,
    /// When it was sent, in Unix milliseconds.
    #[serde(default)]
    pub sent_at_ms: u64,
}

/// Where a message went: what the loop answers `ralph steer`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "went", rename_all = "snake_case")]
pub enum SteerAnswer {
    /// Handed to the running agent (`to` names where, e.g. `pi mid-turn`).
    MidTurn { iteration: u32, to: String },
    /// Queued for the prompt of `iteration`.
    Queued { iteration: u32 },
    /// Not taken (the queue is full, the request was unreadable).
    Refused { reason: String },
}

impl fmt::Display for SteerAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SteerAnswer::MidTurn { to, .. } => write!(f, "delivered to {to}"),
            SteerAnswer::Queued { iteration } => write!(f, "queued for iteration {iteration}"),
            SteerAnswer::Refused { reason } => write!(f, "refused: {reason}"),
        }
    }
}

/// How a message reached the agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SteerVia {
    /// Into the running agent's turn.
    MidTurn,
    /// In an iteration's prompt, under its guidance heading.
    Prompt,
}

/// What a line of `steering.jsonl` records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Logged {
    /// Received and queued for `iteration`'s prompt.
    Queued,
    /// Received and handed to the agent of `iteration` mid-turn.
    MidTurn,
    /// A queued message carried by `iteration`'s prompt (consumed: not shown again).
    Prompt,
    /// Carried by `iteration`'s prompt, or read by its agent mid-turn, in an attempt that
    /// ended on a rate or usage limit before it could act: queued again (with its text)
    /// for the attempt after.
    Requeued,
    /// Handed to the agent of `iteration` mid-turn, which ended its turn without reading
    /// it: queued again (with its text) for the next prompt.
    Unread,
}

/// One line of `steering.jsonl`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SteerLogLine {
    /// When, in Unix milliseconds.
    pub at_ms: u64,
    /// The request's id (`ralph steer` makes it).
    pub id: String,
    pub went: Logged,
    pub iteration: u32,
    /// The text, on the line that received it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Where a mid-turn message went (`pi mid-turn`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

/// What steering did in one iteration, as its history record keeps it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IterationSteering {
    /// Queued messages its prompt carried.
    #[serde(default)]
    pub in_prompt: u32,
    /// Messages handed to its agent mid-turn.
    #[serde(default)]
    pub mid_turn: u32,
    /// Messages received while it ran and queued for a later prompt.
    #[serde(default)]
    pub queued: u32,
}

impl IterationSteering {
    pub fn is_empty(&self) -> bool {
        *self == IterationSteering::default()
    }
}

/// The run's steering so far, for the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SteerTally {
    /// Messages received.
    pub received: u32,
    /// Handed to an agent mid-turn.
    pub mid_turn: u32,
    /// Carried by a prompt.
    pub in_prompt: u32,
    /// Still waiting for a prompt.
    pub pending: u32,
}

/// Why a request was not taken.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("{0}")]
    Unreadable(std::io::Error),
    #[error("it is not a steering request ({0})")]
    Invalid(String),
    #[error("the message is empty")]
    Empty,
    #[error("the message is {0} bytes, over the {MAX_STEER_MESSAGE_BYTES}-byte limit")]
    TooLong(usize),
}

/// Checks a message `ralph steer` is about to send, or the loop has received.
pub fn check_message(message: &str) -> Result<(), RequestError> {
    if message.trim().is_empty() {
        return Err(RequestError::Empty);
    }
    if message.len() > MAX_STEER_MESSAGE_BYTES {
        return Err(RequestError::TooLong(message.len()));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
