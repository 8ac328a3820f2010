//! The text view's lines for the events an iteration's agent handed over: one
//! `⇢ emitted …` line each, marked `(tag)` when the agent wrote it as an `<event>` tag in
//! its answer rather than with `ralph emit` (as `ralph events` marks it `tag`), and with
//! what its gates made of it.

use ralph_core::event::Event;
use ralph_core::event_tag::first_from_tag;

/// What a gate made of an event, after it on its line.
const VERIFIED: &str = " ✓ verified";
const WITHHELD: &str = " ✗ withheld (gate failed)";
/// Said of an event read from an `<event>` tag.
const FROM_TAG: &str = " (tag)";

/// The lines of `events` (the agent's, in order; the last `from_tags` read from tags),
/// each event shown by `shown`.
pub(crate) fn emitted(
    events: &[Event],
    from_tags: u32,
    verified: &[String],
    withheld: &[String],
    shown: impl Fn(&Event) -> String,
) -> Vec<String> {
    let first_tag = first_from_tag(events.len(), from_tags);
    events
        .iter()
        .enumerate()
        .map(|(at, event)| {
            let source = if at >= first_tag { FROM_TAG } else { "" };
            let gate = if withheld.contains(&event.topic) {
                WITHHELD
            } else if verified.contains(&event.topic) {
                VERIFIED
            } else {
                ""
            };
            format!("⇢ emitted{source} {}{gate}", shown(event))
        })
        .collect()
}

#[cfg(test)]
#[path = "emitted_lines_tests.rs"]
mod tests;
