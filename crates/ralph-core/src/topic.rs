//! Event topic names: what makes a topic valid, and the topics ralph reserves.
//!
//! A topic is what an agent passes to `ralph emit` and what hats trigger on, so the
//! same rule guards the config (triggers, publishes, promises) and the event inbox.
//! The rule is deliberately narrow: dot-separated segments of ASCII letters, digits,
//! `_` and `-`, which covers every topic in ralph-orchestrator's presets
//! (`task.start`, `review.changes_requested`, `LOOP_COMPLETE`) and keeps topics safe to
//! print, grep and put on a command line.

/// Longest topic accepted, in bytes. Topics are routing keys, not payloads.
pub const MAX_TOPIC_LEN: usize = 128;

/// The topic ralph publishes to start a fresh run (unless `event_loop.starting_event`
/// names another).
pub const TASK_START: &str = "task.start";

/// The topic ralph publishes to resume a run (`ralph run --continue`).
pub const TASK_RESUME: &str = "task.resume";

/// The topic ralph publishes instead of an event a gate refused (see `gates:`).
pub const GATE_FAILED: &str = "gate.failed";

/// The hat that handles events no configured hat triggers on, and every event when no
/// hat is configured (the coordinator). No configured hat may take its id.
pub const DEFAULT_HAT: &str = "ralph";

/// Topics only ralph itself publishes: a hat that triggers on one would be activated by
/// ralph's bookkeeping rather than by another hat.
pub const RESERVED_TRIGGERS: [&str; 2] = [TASK_START, TASK_RESUME];

/// Why a string is not a valid topic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopicError {
    #[error("a topic cannot be empty")]
    Empty,
    #[error("a topic is at most {MAX_TOPIC_LEN} bytes long, this one is {0}")]
    TooLong(usize),
    #[error("`{0}` is not allowed in a topic (use letters, digits, `_`, `-` and `.`)")]
    BadChar(char),
    #[error("a topic cannot start or end with `.` or contain `..`")]
    EmptySegment,
    #[error("`*` is not allowed in a topic: an event has one exact topic, not a pattern")]
    Wildcard,
    #[error(
        "`*` stands for a whole segment (`build.*`), or alone for any topic (`*`), not for \
         part of a segment"
    )]
    PartialWildcard,
}

/// Checks that `topic` is a valid topic name.
pub fn validate_topic(topic: &str) -> Result<(), TopicError> {
    if topic.is_empty() {
        return Err(TopicError::Empty);
    }
    if topic.len() > MAX_TOPIC_LEN {
        return Err(TopicError::TooLong(topic.len()));
    }
    if let Some(c) = topic
        .chars()
        .find(|&c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        // ralph-orchestrator routes `build.*` and `*` as patterns; say so rather than
        // calling the star a bad character.
        return Err(if c == '*' {
            TopicError::Wildcard
        } else {
            TopicError::BadChar(c)
        });
    }
    if topic.split('.').any(str::is_empty) {
        return Err(TopicError::EmptySegment);
    }
    Ok(())
}

/// Whether `topic` is not the completion promise `promise` but surely meant it: the same
/// words in another case (`loop_complete`), with other separators (`LOOP-COMPLETE`,
/// `loop.complete`) or with spaces around it. Topics stay case-sensitive, so such a
/// topic is an ordinary event and the loop goes on: `ralph emit` says so, naming the
/// promise, while the agent can still give it.
pub fn misses_promise(topic: &str, promise: &str) -> bool {
    fn words(topic: &str) -> impl Iterator<Item = char> + '_ {
        topic.trim().chars().map(|c| match c {
            '-' | '.' | ' ' => '_',
            c => c.to_ascii_lowercase(),
        })
    }
    topic != promise && !promise.is_empty() && words(topic).eq(words(promise))
}

#[cfg(test)]
#[path = "topic_tests.rs"]
mod tests;
