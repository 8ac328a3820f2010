//! The steering files in a run's directory. The run directory is the workspace's, which an
//! agent or a cloned repository may have filled with anything: every file here is opened
//! through [`crate::fsafe`] (no links, no FIFOs, bounded reads), and a request that is
//! not a small regular file of the right shape is refused and removed, never waited on.

use std::io;
use std::path::{Path, PathBuf};

use crate::fsafe::{self, Links};
use crate::store::{Durability, RunDir, is_temporary_name, replace};

use super::{
    MAX_STEER_ANSWER_BYTES, MAX_STEER_REQUEST_BYTES, MAX_STEERING_LOG_BYTES, RequestError,
    SteerAnswer, SteerLogLine, SteerRequest, check_message,
};

/// Every message and where it went, in the run's directory.
pub const STEERING_FILE: &str = "steering.jsonl";
/// The directory of requests and answers, in the run's directory.
pub const STEER_DIR: &str = "steer";
/// Under [`STEER_DIR`]: requests waiting for the loop.
pub const REQUESTS_DIR: &str = "requests";
/// Under [`STEER_DIR`]: the loop's answers.
pub const ANSWERS_DIR: &str = "answers";
/// What a request or answer file's name ends with.
const EXTENSION: &str = ".json";
/// The longest request id: `ralph steer` makes `<ms>-<pid>-<n>`.
const MAX_ID_CHARS: usize = 64;
/// The most directory entries looked at per call: a directory flooded with files must not
/// hold the loop up (the rest are seen on later calls, as earlier ones are removed).
pub(super) const MAX_ENTRIES_SCANNED: usize = 256;
/// A temporary file older than this is what a `ralph steer` that died mid-write left.
const STALE_TEMP: std::time::Duration = std::time::Duration::from_secs(60);

/// Whether `id` can name a request: short, and only letters, digits, `-` and `_`.
pub fn is_request_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_CHARS
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn steer_dir(run: &RunDir) -> PathBuf {
    run.path().join(STEER_DIR)
}

fn requests_dir(run: &RunDir) -> PathBuf {
    steer_dir(run).join(REQUESTS_DIR)
}

fn answer_path(run: &RunDir, id: &str) -> PathBuf {
    steer_dir(run)
        .join(ANSWERS_DIR)
        .join(format!("{id}{EXTENSION}"))
}

fn request_path(run: &RunDir, id: &str) -> PathBuf {
    requests_dir(run).join(format!("{id}{EXTENSION}"))
}

/// Creates `steer/`, `steer/requests/` and `steer/answers/` (refusing links).
fn create_dirs(run: &RunDir) -> io::Result<()> {
    fsafe::create_dir(&steer_dir(run))?;
    fsafe::create_dir(&requests_dir(run))?;
    fsafe::create_dir(&steer_dir(run).join(ANSWERS_DIR))
}

/// Writes request `id` for the loop, whole or not at all (a temporary file renamed into
/// place: the loop never reads half a request). Returns its path.
pub fn send_request(run: &RunDir, id: &str, request: &SteerRequest) -> io::Result<PathBuf> {
    create_dirs(run)?;
    let path = request_path(run, id);
    let bytes = serde_json::to_vec(request).map_err(io::Error::other)?;
    replace(&path, &bytes, Durability::Atomic)?;
    Ok(path)
}

/// Removes request `id` if the loop has not taken it yet: `true` when it was still there
/// (so the loop will never see it), `false` when the loop had already taken it.
pub fn withdraw_request(run: &RunDir, id: &str) -> io::Result<bool> {
    match std::fs::remove_file(request_path(run, id)) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// The requests waiting, oldest name first (ids start with the time they were sent), at
/// most `max`: `(id, path)`. What is not a request is removed, so that junk cannot fill
/// the entries looked at and hide real requests: anything of another name, and a
/// temporary file (a request being written) older than a minute. No directory yet:
/// none.
pub fn pending_requests(run: &RunDir, max: usize) -> io::Result<Vec<(String, PathBuf)>> {
    let dir = requests_dir(run);
    // A link in the directory's place would have ralph list (and remove) elsewhere.
    fsafe::check_ralph_dirs(&dir.join("x"))?;
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    for entry in entries.take(MAX_ENTRIES_SCANNED).filter_map(Result::ok) {
        let name = entry.file_name();
        let request = name
            .to_str()
            .and_then(|n| n.strip_suffix(EXTENSION))
            .filter(|id| is_request_id(id));
        match request {
            Some(id) => found.push((id.to_owned(), entry.path())),
            None if is_fresh_temp(&entry) => {}
            None => discard_request(&entry.path()),
        }
    }
    found.sort();
    found.truncate(max);
    Ok(found)
}

/// Whether `entry` is a temporary file of [`send_request`] that may still be renamed into
/// a request.
fn is_fresh_temp(entry: &std::fs::DirEntry) -> bool {
    // Exactly the name `store::replace` gives one, not just its prefix: a `.tmp-notes`
    // is junk like any other name.
    entry.file_name().to_str().is_some_and(is_temporary_name)
        && entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|at| at.elapsed().is_ok_and(|age| age < STALE_TEMP))
}

/// Reads the request at `path`: a regular file (no link, no FIFO) of at most
/// [`MAX_STEER_REQUEST_BYTES`], holding a [`SteerRequest`] whose message passes
/// [`check_message`].
pub fn read_request(path: &Path) -> Result<SteerRequest, RequestError> {
    let bytes = fsafe::read_bounded(
        path,
        Links::Refuse,
        MAX_STEER_REQUEST_BYTES,
        "a steering request",
    )
    .map_err(RequestError::Unreadable)?;
    let request: SteerRequest =
        serde_json::from_slice(&bytes).map_err(|e| RequestError::Invalid(e.to_string()))?;
    check_message(&request.message)?;
    Ok(request)
}

/// Removes whatever is at a request's name once it was taken or refused: a file, a link
/// (not what it points to) or a FIFO; an empty directory too. Anything else stays, and is
/// skipped again next time.
pub fn discard_request(path: &Path) {
    if std::fs::remove_file(path).is_err() {
        let _ = std::fs::remove_dir(path);
    }
}

/// Writes the answer to request `id` (atomically: `ralph steer` never reads half of one).
pub fn write_answer(run: &RunDir, id: &str, answer: &SteerAnswer) -> io::Result<()> {
    create_dirs(run)?;
    let bytes = serde_json::to_vec(answer).map_err(io::Error::other)?;
    replace(&answer_path(run, id), &bytes, Durability::Atomic)
}

/// The answer to request `id`, removed once read; `None` while there is none.
pub fn take_answer(run: &RunDir, id: &str) -> io::Result<Option<SteerAnswer>> {
    let path = answer_path(run, id);
    let bytes = match fsafe::read_bounded(
        &path,
        Links::Refuse,
        MAX_STEER_ANSWER_BYTES,
        "a steering answer",
    ) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let _ = std::fs::remove_file(&path);
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Appends one line to the run's `steering.jsonl`.
pub fn append_log(run: &RunDir, line: &SteerLogLine) -> io::Result<()> {
    let mut bytes = serde_json::to_vec(line).map_err(io::Error::other)?;
    bytes.push(b'\n');
    fsafe::append_line(&run.path().join(STEERING_FILE), &bytes)
}

/// Every line of the run's `steering.jsonl` that parses (a torn or foreign line is
/// skipped); none when there is no file.
pub fn read_log(run: &RunDir) -> io::Result<Vec<SteerLogLine>> {
    let bytes = match fsafe::read_bounded(
        &run.path().join(STEERING_FILE),
        Links::Refuse,
        MAX_STEERING_LOG_BYTES,
        "a run's steering record",
    ) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    Ok(bytes
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice(line).ok())
        .collect())
}
