//! The prompt's guidance section: what the person running the loop sent with
//! `ralph steer` since the last prompt, shown once, before the role's instructions so it
//! frames them.

use std::fmt::Write as _;

/// The section's heading.
pub const STEERING_HEADING: &str = "Guidance from the person running the loop";

/// Writes the section, or nothing when no message waits.
pub(crate) fn write_steering(p: &mut String, messages: &[String]) {
    if messages.is_empty() {
        return;
    }
    let _ = write!(p, "\n## {STEERING_HEADING}\n\n");
    p.push_str(
        "Sent while the loop ran, newest last. Follow it: where it conflicts with the \
         scratchpad, the events or the plan so far, it wins.\n\n",
    );
    for message in messages {
        let mut lines = message.trim().lines();
        if let Some(first) = lines.next() {
            let _ = writeln!(p, "- {first}");
        }
        for line in lines {
            let _ = writeln!(p, "  {line}");
        }
    }
}
