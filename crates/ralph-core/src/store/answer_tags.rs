//! `answer-tags.jsonl` in a run's directory: the events the agent of the attempt in
//! progress wrote as `<event>` tags in its answers (`crate::event_tag`), one line each
//! as they are read.
//!
//! What an agent publishes with `ralph emit` is in the inbox the moment it is sent; the
//! tags were only in ralph's memory until the iteration ended. A ralph killed with
//! SIGKILL after the agent's answer lost them: `ralph run --continue` ended that
//! iteration with the emitted events only, or, when there were none, ran the hat again
//! as if it had handed nothing over. Kept here, they are published with the emitted ones
//! (see `run/iteration_end.rs`, `killed`).
//!
//! The file holds one attempt's tags: it is removed when an attempt starts. Each line
//! names its iteration, so that a file left by an iteration that ended (ralph killed
//! before the next one started) is never taken for the next one's.

use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::RunDir;
use crate::event::Event;
use crate::fsafe::{self, Links};

/// The file's name in the run's directory.
const ANSWER_TAGS_FILE: &str = "answer-tags.jsonl";

/// The most of the file read back. An answer's tags are a few events; anything beyond
/// this was not written by ralph for one attempt.
const MAX_ANSWER_TAGS_BYTES: u64 = 4 * 1024 * 1024;

/// One line: an event read from a tag during `iteration`.
#[derive(Serialize, Deserialize)]
struct TagLine {
    iteration: u32,
    event: Event,
}

impl RunDir {
    pub fn answer_tags(&self) -> PathBuf {
        self.path.join(ANSWER_TAGS_FILE)
    }

    /// Appends `events`, read from tags in an answer of `iteration`'s agent (one line, one
    /// write each: a kill leaves whole lines).
    pub fn keep_answer_tags(&self, iteration: u32, events: &[Event]) -> io::Result<()> {
        for event in events {
            let line = TagLine {
                iteration,
                event: event.clone(),
            };
            let mut bytes = serde_json::to_vec(&line).map_err(io::Error::other)?;
            bytes.push(b'\n');
            fsafe::append_line(&self.answer_tags(), &bytes)?;
        }
        Ok(())
    }

    /// The events kept for `iteration`, in order; none when there is no file. A line that
    /// does not parse (torn by the kill) is skipped.
    pub fn answer_tags_of(&self, iteration: u32) -> io::Result<Vec<Event>> {
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
            .map(|line| line.event)
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
