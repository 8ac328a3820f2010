//! Tags in what a plain-text agent printed, less those it may only have printed back.
//!
//! A JSON agent's answer is told apart from its prompt by the stream itself. A plain-text
//! agent's output is all one text, and an agent or wrapper that prints its prompt (`cat`, a
//! logging wrapper, a CLI that repeats the task) prints the example tag of hat instructions
//! written for ralph-orchestrator with it: read as the agent's, it would hand the hat's work
//! over without any work done. So each tag the prompt itself holds (read as the agent's
//! answer is read) is taken for the prompt printed back as many times as the prompt holds it:
//! its first copies in the output, since a prompt is printed before the answer. Copies
//! beyond those are the agent's own. A payload that differs from the example's is the
//! agent's whatever it printed before.

use std::collections::HashMap;

use super::{REFUSED_TOPIC_CHARS, Refusal, RefusedTag, Tag, read};
use crate::inbox::excerpt;

/// What each tag in `text`, the output of an agent whose output is plain text, stands for,
/// in order; a tag that `prompt` accounts for is refused as [`Refusal::InPrompt`].
pub fn read_tags_past_prompt(text: &str, prompt: &str) -> Vec<Tag> {
    // How many copies of each tag the prompt holds, and so how many the output may echo.
    let mut echoes: HashMap<&str, usize> = HashMap::new();
    for (span, _) in read(prompt) {
        *echoes.entry(&prompt[span]).or_default() += 1;
    }
    read(text)
        .into_iter()
        .map(|(span, tag)| match echoes.get_mut(&text[span]) {
            Some(left) if *left > 0 => {
                *left -= 1;
                let topic = match tag {
                    Ok(event) => excerpt(&event.topic, REFUSED_TOPIC_CHARS),
                    Err(refused) => refused.topic,
                };
                Err(RefusedTag {
                    topic,
                    why: Refusal::InPrompt,
                })
            }
            _ => tag,
        })
        .collect()
}

#[cfg(test)]
#[path = "echo_tests.rs"]
mod tests;
