//! `ralph inspect --run ID --iteration N [--attempt K]`: which of a run's kept
//! transcripts to read.
//!
//! An iteration's latest attempt is `iterations/<n>/`; an earlier one, which ended on a
//! provider's limit and ran again, is `iterations/<n>-limited-<k>/` (see
//! `ralph_core::store::TranscriptId`). The latest attempt's number is not in its name:
//! its `command.json` says it.

use ralph_agent::{BackendKind, BackendProfile, requested_model};
use ralph_core::fsafe::{self, Links};
use ralph_core::store::{Attempt, COMMAND_FILE, RunDir, TranscriptId};
use ralph_stream::StreamFormat;
use serde_json::Value;

use crate::diagnostic::diagnostic;
use crate::error::CliError;

/// The most bytes of a `command.json` read: ralph writes a few KiB (a command line and
/// variable names); `.ralph/` is untrusted, and anything larger is not ralph's.
const MAX_COMMAND_BYTES: u64 = 1 << 20;

/// Refuses an iteration the run never reached (`0`, or past its last), rather than
/// blaming a transcript for not being there. `running` says the loop is running the run
/// now: the iteration after the last finished one is then its live one. A history
/// that is not there or cannot be read leaves the question to the transcript's own
/// errors.
pub(super) fn check_reached(run: &RunDir, iteration: u32, running: bool) -> Result<(), CliError> {
    if iteration > 0 && std::fs::symlink_metadata(run.iteration_dir(iteration)).is_ok() {
        return Ok(());
    }
    // No history file at all (one deleted, or a run from before it): nothing to go by.
    if std::fs::symlink_metadata(run.history()).is_err() {
        return Ok(());
    }
    let Ok(history) = run.read_history() else {
        return Ok(());
    };
    let finished = history.iter().map(|r| r.iteration).max().unwrap_or(0);
    let last = finished.saturating_add(u32::from(running));
    if (1..=last).contains(&iteration) {
        return Ok(());
    }
    Err(CliError::NoIteration {
        run: run.id().to_owned(),
        iteration,
        iterations: finished,
        running,
    })
}

/// The transcript of iteration `iteration`'s attempt `attempt`, or of its latest attempt.
pub(super) fn pick(
    run: &RunDir,
    iteration: u32,
    attempt: Option<u32>,
) -> Result<TranscriptId, CliError> {
    let latest = TranscriptId::latest(iteration);
    let Some(wanted) = attempt else {
        return Ok(latest);
    };
    let limited = TranscriptId::limited(iteration, wanted);
    // A link is not followed here, and opening the file refuses one anyway.
    if std::fs::symlink_metadata(run.transcript_dir(limited)).is_ok_and(|m| m.is_dir()) {
        return Ok(limited);
    }
    let attempts = attempts(run, iteration)?;
    if attempts.latest == Some(wanted) {
        return Ok(latest);
    }
    Err(CliError::NoAttempt {
        run: run.id().to_owned(),
        iteration,
        attempt: wanted,
        kept: attempts.kept.iter().map(|&(k, _)| k).collect(),
    })
}

/// With no `--attempt`, the latest attempt is read: says on stderr (stdout is the summary
/// or the events, a contract) when earlier attempts at `iteration` are kept too, as they
/// are after a rate limit. A listing that fails leaves the note out.
pub(super) fn note_earlier_attempts(run: &RunDir, iteration: u32) {
    let Ok(attempts) = attempts(run, iteration) else {
        return;
    };
    let earlier: Vec<String> = (attempts.kept.iter())
        .filter(|(_, id)| id.attempt != Attempt::Latest)
        .map(|(k, _)| k.to_string())
        .collect();
    if !earlier.is_empty() {
        diagnostic(format_args!(
            "note: this is iteration {iteration}'s latest attempt; it ran again after a rate \
             limit, and `--attempt K` reads the earlier one{} kept ({})",
            if earlier.len() == 1 { "" } else { "s" },
            earlier.join(", ")
        ));
    }
}

/// An iteration's attempts, as far as the run's directory tells.
struct Attempts {
    /// Those whose raw stream the run keeps, as they ran: the number of each, and its
    /// transcript.
    kept: Vec<(u32, TranscriptId)>,
    /// The number of the latest (`iterations/<n>/`), when that directory is there.
    latest: Option<u32>,
}

/// Iteration `iteration`'s attempts: one listing of the run's raw streams, and one read
/// of the latest attempt's `command.json`.
fn attempts(run: &RunDir, iteration: u32) -> Result<Attempts, CliError> {
    let streams = run
        .raw_streams()
        .map_err(|e| CliError::io("list the transcripts of", run.path(), e))?;
    let ids: Vec<TranscriptId> = streams
        .into_iter()
        .map(|(id, _)| id)
        .filter(|id| id.iteration == iteration)
        .collect();
    let mut kept: Vec<(u32, TranscriptId)> = ids
        .iter()
        .filter_map(|&id| match id.attempt {
            Attempt::Limited(k) => Some((k, id)),
            Attempt::Latest => None,
        })
        .collect();
    let latest = latest_attempt(run, iteration, &kept);
    if let Some(k) = latest
        && ids.contains(&TranscriptId::latest(iteration))
    {
        kept.push((k, TranscriptId::latest(iteration)));
    }
    Ok(Attempts { kept, latest })
}

/// The model the run priced `transcript` as when its stream names none (Codex never
/// does): the one its command line asked for, as `ralph run` reads it, from the
/// `command.json` ralph wrote beside it; failing that, the model the run's history
/// records for the iteration. `None` when neither says.
pub(super) fn recorded_model(run: &RunDir, transcript: TranscriptId) -> Option<String> {
    let from_command = read_command(&run.transcript_dir(transcript)).and_then(|command| {
        let kind: BackendKind = command.get("backend")?.as_str()?.parse().ok()?;
        let args: Vec<String> = (command.get("args")?.as_array()?.iter())
            .filter_map(|arg| arg.as_str().map(str::to_owned))
            .collect();
        requested_model(kind, &args).map(str::to_owned)
    });
    from_command.or_else(|| {
        let history = run.read_history().ok()?;
        (history.into_iter())
            .rfind(|record| record.iteration == transcript.iteration)?
            .model
    })
}

/// The format the run decoded `transcript`'s stream as, from the `command.json` ralph
/// wrote beside it: its `output_format`, or in a run from before that field, the
/// backend's own format. `None` for a custom backend without the field (its
/// `output_format` was configured, and the stream is then recognised by its look) and
/// when the file cannot be read.
pub(super) fn recorded_format(run: &RunDir, transcript: TranscriptId) -> Option<StreamFormat> {
    let command = read_command(&run.transcript_dir(transcript))?;
    if let Some(format) = command.get("output_format") {
        return format.as_str()?.parse().ok();
    }
    match command.get("backend")?.as_str()?.parse().ok()? {
        BackendKind::Custom => None,
        kind => Some(BackendProfile::of(kind).output_format),
    }
}

/// The `command.json` in transcript directory `dir`, when it is there and an object.
fn read_command(dir: &std::path::Path) -> Option<serde_json::Map<String, Value>> {
    let bytes = fsafe::read_bounded(
        &dir.join(COMMAND_FILE),
        Links::Refuse,
        MAX_COMMAND_BYTES,
        "command file",
    )
    .ok()?;
    match serde_json::from_slice::<Value>(&bytes).ok()? {
        Value::Object(command) => Some(command),
        _ => None,
    }
}

/// Which attempt `iterations/<n>/` holds: its `command.json`'s `attempt` (1 in a run
/// from before that field), or, where that cannot be read, the one after the last
/// limited attempt kept (`limited`). `None` when the directory is not there.
fn latest_attempt(run: &RunDir, iteration: u32, limited: &[(u32, TranscriptId)]) -> Option<u32> {
    let dir = run.iteration_dir(iteration);
    if !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
        return None;
    }
    let after_limited = || {
        limited
            .iter()
            .map(|&(k, _)| k.saturating_add(1))
            .max()
            .unwrap_or(1)
    };
    let Some(command) = read_command(&dir) else {
        return Some(after_limited());
    };
    match command.get("attempt") {
        None => Some(1),
        Some(attempt) => Some(
            attempt
                .as_u64()
                .and_then(|k| u32::try_from(k).ok())
                .unwrap_or_else(after_limited),
        ),
    }
}

#[cfg(test)]
#[path = "inspect_transcript_tests.rs"]
mod tests;
