//! `answer-tags.jsonl` in a run's directory: the `<event>` tags the agent of the attempt
//! in progress wrote in its answers (`crate::event_tag`), one line each as they are read:
//! the event of each tag taken, the topic and reason of each refused.
//!
//! What an agent publishes with `ralph emit` is in the inbox the moment it is sent; the
//! tags were only in ralph's memory until the iteration ended. A ralph killed with
//! SIGKILL after the agent's answer lost them: `ralph run --continue` ended that
//! iteration with the emitted events only, or, when there were none, ran the hat again
//! as if it had handed nothing over. Kept here, they are published with the emitted ones
//! (see `run/iteration_end.rs`, `killed`). A refused tag is kept too: its
//! `event_tag_ignored` notice is how the user learns why a hand-over did not happen, and
//! after a kill it would otherwise never be given.
//!
//! The file holds one attempt's tags: it is removed when an attempt starts. Each line
//! names its iteration, so that a file left by an iteration that ended (ralph killed
//! before the next one started) is never taken for the next one's.

use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::RunDir;
use crate::event::Event;
use crate::event_tag::{REFUSED_TOPIC_CHARS, Refusal, RefusedTag, Tag};
use crate::fsafe::{self, Links};
use crate::inbox::excerpt;

/// The file's name in the run's directory.
const ANSWER_TAGS_FILE: &str = "answer-tags.jsonl";

/// The most of the file read back. An answer's tags are a few events; anything beyond
/// this was not written by ralph for one attempt.
const MAX_ANSWER_TAGS_BYTES: u64 = 4 * 1024 * 1024;

/// The most characters of a refused tag's reason read back: ralph's own reasons are a
/// few hundred; the file is in the workspace, where anything can be written.
const MAX_REASON_CHARS: usize = 1000;

/// One line: a tag read during `iteration`, its event or why it was refused.
#[derive(Serialize, Deserialize)]
struct TagLine {
    iteration: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    event: Option<Event>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refused: Option<RefusedLine>,
}

/// A refused tag, as its notice says it.
#[derive(Serialize, Deserialize)]
struct RefusedLine {
    topic: String,
    reason: String,
}

impl TagLine {
    fn of(iteration: u32, tag: &Tag) -> TagLine {
        let (event, refused) = match tag {
            Ok(event) => (Some(event.clone()), None),
            Err(refused) => (
                None,
                Some(RefusedLine {
                    topic: refused.topic.clone(),
                    reason: refused.why.to_string(),
                }),
            ),
        };
        TagLine {
            iteration,
            event,
            refused,
        }
    }

    fn tag(self) -> Option<Tag> {
        match (self.event, self.refused) {
            (Some(event), _) => Some(checked(event)),
            (None, Some(refused)) => Some(Err(RefusedTag {
                topic: excerpt(&refused.topic, REFUSED_TOPIC_CHARS),
                why: Refusal::Recorded(excerpt(&refused.reason, MAX_REASON_CHARS)),
            })),
            (None, None) => None,
        }
    }
}

/// An event read back, checked as the inbox checks one (its topic as `ralph emit` would,
/// its payload's depth): the file is in the workspace, where anything can be written, and
/// what it holds must not publish what an inbox line could not. One that fails is a
/// refused tag, so its notice says why.
fn checked(event: Event) -> Tag {
    let line = serde_json::to_vec(&event).unwrap_or_default();
    match crate::event::parse_line(&line) {
        Some(Ok(_)) => Ok(event),
        invalid => Err(RefusedTag {
            topic: excerpt(&event.topic, REFUSED_TOPIC_CHARS),
            why: Refusal::Recorded(match invalid {
                Some(Err(invalid)) => invalid.to_string(),
                _ => "not an event".to_owned(),
            }),
        }),
    }
}

impl RunDir {
    pub fn answer_tags(&self) -> PathBuf {
        self.path.join(ANSWER_TAGS_FILE)
    }

    /// Appends `tags`, read in an answer of `iteration`'s agent (one line, one write
    /// each: a kill leaves whole lines).
    pub fn keep_answer_tags(&self, iteration: u32, tags: &[Tag]) -> io::Result<()> {
        for tag in tags {
            let line = TagLine::of(iteration, tag);
            let mut bytes = serde_json::to_vec(&line).map_err(io::Error::other)?;
            bytes.push(b'\n');
            fsafe::append_line(&self.answer_tags(), &bytes)?;
        }
        Ok(())
    }

    /// The tags kept for `iteration`, in order; none when there is no file. A line that
    /// does not parse (torn by the kill) is skipped. A refused tag's reason is the text
    /// kept ([`Refusal::Recorded`]), cut to its first characters.
    pub fn answer_tags_of(&self, iteration: u32) -> io::Result<Vec<Tag>> {
        let bytes = match fsafe::read_bounded(
            &self.answer_tags(),
            Links::Refuse,
            MAX_ANSWER_TAGS_BYTES,
            "the events of an answer's tags",
        ) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        Ok(bytes
            .split(|&b| b == b'\n')
            .filter_map(|line| serde_json::from_slice::<TagLine>(line).ok())
            .filter(|line| line.iteration == iteration)
            .filter_map(TagLine::tag)
            .collect())
    }

    /// Removes the file, when there is one: an attempt starts.
    pub fn forget_answer_tags(&self) -> io::Result<()> {
        match std::fs::remove_file(self.answer_tags()) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
#[path = "answer_tags_tests.rs"]
mod tests;
