//! Trigger patterns: what a hat's `triggers` may hold besides exact topics, and which
//! topics a pattern takes.
//!
//! ralph-orchestrator's hat files route with two kinds of wildcard, and ralph reads them
//! the same way: `*` as a whole segment stands for exactly one segment (`build.*` takes
//! `build.done`, not `build` nor `build.done.now`), and `*` alone takes any topic. So
//! that every event still goes to exactly one hat, the kinds rank: an exact trigger
//! beats a segment pattern, which beats `*` alone; two hats' segment patterns that could
//! both take a topic are refused by the config. A pattern never takes the topics ralph
//! publishes for its coordinator ([`RESERVED_TRIGGERS`]), as no trigger may.

use crate::topic::{MAX_TOPIC_LEN, RESERVED_TRIGGERS, TopicError, validate_topic};

/// The trigger that takes every topic no other trigger takes.
pub const ANY_TOPIC: &str = "*";

/// A whole segment that stands for any one segment.
const ANY_SEGMENT: &str = "*";

/// How closely a trigger names the topics it takes; routing prefers the closest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    /// `*` alone.
    Any,
    /// At least one `*` segment (`build.*`, `*.done`).
    Segments,
    /// A topic, exactly.
    Exact,
}

/// The rank of a valid trigger.
pub fn rank(trigger: &str) -> Rank {
    if trigger == ANY_TOPIC {
        Rank::Any
    } else if trigger.split('.').any(|s| s == ANY_SEGMENT) {
        Rank::Segments
    } else {
        Rank::Exact
    }
}

/// Checks that `trigger` is a topic, or a pattern of whole `*` segments, or `*` alone.
pub fn validate_trigger(trigger: &str) -> Result<(), TopicError> {
    if trigger == ANY_TOPIC {
        return Ok(());
    }
    if !trigger.contains('*') {
        return validate_topic(trigger);
    }
    if trigger.len() > MAX_TOPIC_LEN {
        return Err(TopicError::TooLong(trigger.len()));
    }
    if trigger
        .split('.')
        .any(|s| s != ANY_SEGMENT && s.contains('*'))
    {
        return Err(TopicError::PartialWildcard);
    }
    // What is left must be a topic once each wildcard segment is read as a name.
    let named: Vec<&str> = trigger
        .split('.')
        .map(|s| if s == ANY_SEGMENT { "x" } else { s })
        .collect();
    validate_topic(&named.join("."))
}

/// Whether `trigger` takes `topic`, whatever its rank.
pub fn matches(trigger: &str, topic: &str) -> bool {
    match rank(trigger) {
        Rank::Exact => trigger == topic,
        Rank::Any | Rank::Segments => !RESERVED_TRIGGERS.contains(&topic) && fits(trigger, topic),
    }
}

/// Whether `topic` has the shape of `trigger` (segment for segment), reserved or not.
pub fn fits(trigger: &str, topic: &str) -> bool {
    trigger == ANY_TOPIC
        || (trigger.split('.').count() == topic.split('.').count()
            && (trigger.split('.').zip(topic.split('.'))).all(|(p, t)| p == ANY_SEGMENT || p == t))
}

/// Whether some topic matches both segment patterns `a` and `b` (same number of
/// segments, and each pair of segments equal or one of them `*`).
pub fn overlap(a: &str, b: &str) -> bool {
    a.split('.').count() == b.split('.').count()
        && (a.split('.').zip(b.split('.')))
            .all(|(x, y)| x == y || x == ANY_SEGMENT || y == ANY_SEGMENT)
}

#[cfg(test)]
#[path = "trigger_tests.rs"]
mod tests;
