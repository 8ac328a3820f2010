//! What each iteration keeps, and the workspace's runs as a list.
//!
//! ```text
//! runs/<run-id>/iterations/<n>/
//!   prompt.md        the exact prompt the agent was given
//!   stdout.zst       the agent's raw stdout as it arrived, zstd-compressed
//!   stderr.txt       the end of its stderr (bounded); absent when it wrote none
//!   command.json     its command line and the NAMES of its environment variables
//! runs/<run-id>/iterations/<n>-limited-<k>/
//!                    the same files of an earlier attempt at iteration n that ended on
//!                    a provider's limit and ran again ([`TranscriptId`])
//! ```
//!
//! The normalized events of an iteration are the run's record (`run-events.jsonl`, the
//! `--output json` lines with their `iteration`), which the storage cap never deletes.
//! Everything is created and opened through [`crate::fsafe`]: `.ralph/` is untrusted.

use std::fs::{self, File};
use std::io;
use std::path::PathBuf;

use super::{RUNS_DIR, RalphDir, RunDir, TranscriptId};
use crate::fsafe::{self, Links};

/// The directory of the iterations' transcripts in a run's directory.
pub const ITERATIONS_DIR: &str = "iterations";
pub const PROMPT_FILE: &str = "prompt.md";
pub const STDOUT_FILE: &str = "stdout.zst";
pub const STDERR_FILE: &str = "stderr.txt";
pub const COMMAND_FILE: &str = "command.json";

impl RunDir {
    /// `iterations/<n>/` in the run's directory: iteration `iteration`'s latest attempt.
    pub fn iteration_dir(&self, iteration: u32) -> PathBuf {
        self.transcript_dir(TranscriptId::latest(iteration))
    }

    /// The directory of transcript `id` in the run's directory.
    pub fn transcript_dir(&self, id: TranscriptId) -> PathBuf {
        self.path.join(ITERATIONS_DIR).join(id.dir_name())
    }

    /// Moves iteration `iteration`'s transcript (`<n>/`) aside as its `attempt`th, which
    /// ended on a limit (`<n>-limited-<attempt>/`), before the next attempt writes `<n>/`.
    /// `Ok(false)` when there is none to move. Refused, with nothing moved, when `<n>` is
    /// a link or not a directory, or when the new name is taken: `.ralph/` is untrusted,
    /// and nothing there is replaced.
    pub fn set_aside_attempt(&self, iteration: u32, attempt: u32) -> io::Result<bool> {
        use nix::fcntl::renameat;
        let (latest, limited) = (
            TranscriptId::latest(iteration),
            TranscriptId::limited(iteration, attempt),
        );
        let (from, to) = (self.transcript_dir(latest), self.transcript_dir(limited));
        fsafe::check_ralph_dirs(&from)?;
        match fs::symlink_metadata(&from) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            _ => fsafe::check_dir(&from)?,
        }
        match fs::symlink_metadata(&to) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("`{}` is there already", to.display()),
                ));
            }
        }
        // In `iterations/` as opened without following links, whatever is swapped in
        // on the way after the checks.
        let parent = fsafe::open_parent(&from)?;
        renameat(
            &parent,
            latest.dir_name().as_str(),
            &parent,
            limited.dir_name().as_str(),
        )?;
        Ok(true)
    }

    /// Creates (or empties) the file `name` of iteration `iteration`'s transcript,
    /// creating its directory, refusing links and anything but a regular file.
    pub fn create_iteration_file(&self, iteration: u32, name: &str) -> io::Result<(PathBuf, File)> {
        let path = self.create_iteration_dir(iteration)?.join(name);
        let file = fsafe::create_file(&path)?;
        Ok((path, file))
    }

    /// Creates iteration `iteration`'s directory (and `iterations/`) if they are not
    /// there, refusing links; returns it. The files of one iteration are then created in
    /// it with `fsafe::create_file`, without making sure of the directories again for each
    /// (a `mkdir` that finds the directory still locks its parent, and costs on a full
    /// disk).
    pub fn create_iteration_dir(&self, iteration: u32) -> io::Result<PathBuf> {
        fsafe::create_dir(&self.path.join(ITERATIONS_DIR))?;
        let dir = self.iteration_dir(iteration);
        fsafe::create_dir(&dir)?;
        Ok(dir)
    }

    /// Opens the file `name` of iteration `iteration`'s transcript for reading.
    pub fn open_iteration_file(&self, iteration: u32, name: &str) -> io::Result<File> {
        self.open_transcript_file(TranscriptId::latest(iteration), name)
    }

    /// Opens the file `name` of transcript `id` for reading, refusing links and anything
    /// but a regular file.
    pub fn open_transcript_file(&self, id: TranscriptId, name: &str) -> io::Result<File> {
        fsafe::open_read(&self.transcript_dir(id).join(name), Links::Refuse)
    }

    /// The kept raw streams, oldest first (an iteration's attempts as they ran):
    /// `(transcript, bytes on disk)`.
    pub fn raw_streams(&self) -> io::Result<Vec<(TranscriptId, u64)>> {
        let dir = self.path.join(ITERATIONS_DIR);
        fsafe::check_ralph_dirs(&dir.join(STDOUT_FILE))?;
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut streams = Vec::new();
        for entry in entries {
            let entry = entry?;
            let Some(id) = entry.file_name().to_str().and_then(TranscriptId::parse) else {
                continue;
            };
            // symlink_metadata: a link planted there is neither counted nor followed.
            match fs::symlink_metadata(entry.path().join(STDOUT_FILE)) {
                Ok(meta) if meta.is_file() => streams.push((id, meta.len())),
                _ => {}
            }
        }
        streams.sort_unstable();
        Ok(streams)
    }

    /// Deletes transcript `id`'s raw stream (its other files stay).
    pub fn remove_raw_stream(&self, id: TranscriptId) -> io::Result<()> {
        let dir = self.transcript_dir(id);
        fsafe::check_ralph_dirs(&dir.join(STDOUT_FILE))?;
        fsafe::check_dir(&dir)?;
        match fs::remove_file(dir.join(STDOUT_FILE)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

impl RalphDir {
    /// The run `id` whether or not its directory exists now: a run whose directory was
    /// deleted while its loop runs, to be recreated ([`RunDir::ensure`]). `None` when
    /// `id` is not a run id.
    pub fn run_even_if_gone(&self, id: &str) -> Option<RunDir> {
        is_run_id(id).then(|| RunDir {
            id: id.to_owned(),
            path: self.root.join(RUNS_DIR).join(id),
        })
    }

    /// The run `id`, if its directory exists (`id` must be a run id, not a path).
    pub fn run(&self, id: &str) -> io::Result<Option<RunDir>> {
        if !is_run_id(id) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("`{id}` is not a run id (`ralph runs` lists them)"),
            ));
        }
        let path = self.root.join(RUNS_DIR).join(id);
        fsafe::check_ralph_dirs(&path.join(super::STATE_FILE))?;
        fsafe::check_dir(&path)?;
        Ok(path.is_dir().then(|| RunDir {
            id: id.to_owned(),
            path,
        }))
    }

    /// Every run of the workspace, newest first (run ids sort by their start time).
    pub fn runs(&self) -> io::Result<Vec<RunDir>> {
        let dir = self.root.join(RUNS_DIR);
        fsafe::check_ralph_dirs(&dir.join(super::STATE_FILE))?;
        fsafe::check_dir(&dir)?;
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut runs = Vec::new();
        for entry in entries {
            let entry = entry?;
            let Some(id) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            // Only names ralph gives runs: a directory of the user's own (notes kept
            // beside the runs) is neither listed nor pruned, nor taken for the newest.
            if is_run_name(&id) && entry.file_type()?.is_dir() {
                runs.push(RunDir {
                    path: entry.path(),
                    id,
                });
            }
        }
        runs.sort_by(|a, b| run_order(&b.id).cmp(&run_order(&a.id)));
        Ok(runs)
    }

    /// Deletes run `run`'s directory and everything in it.
    pub fn remove_run(&self, run: &RunDir) -> io::Result<()> {
        fsafe::check_ralph_dirs(&run.path.join(super::STATE_FILE))?;
        fsafe::check_dir(&run.path)?;
        fs::remove_dir_all(&run.path)
    }
}

/// Whether `id` looks like a run id (`20261126T101500Z`, `…-2`): no path, no `..`.
pub fn is_run_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Whether `name` is a name ralph gives a run's directory: its start time,
/// `YYYYMMDDTHHMMSSZ`, and `-N` after it for the Nth run started in the same second.
pub fn is_run_name(name: &str) -> bool {
    let (time, n) = match name.split_once('-') {
        Some((time, n)) => (time, Some(n)),
        None => (name, None),
    };
    let digits = |b: &[u8]| !b.is_empty() && b.iter().all(u8::is_ascii_digit);
    let time_ok = match time.as_bytes() {
        [date @ .., b'T', _, _, _, _, _, _, b'Z'] if time.len() == RUN_NAME_LEN => {
            digits(date) && digits(&time.as_bytes()[9..15])
        }
        _ => false,
    };
    time_ok && n.is_none_or(|n| digits(n.as_bytes()))
}

/// The length of a run's start time as its name writes it: `20261126T101500Z`.
const RUN_NAME_LEN: usize = 16;

/// Sorts ids by time, then by the `-N` of runs started in the same second.
fn run_order(id: &str) -> (&str, u32) {
    match id.split_once('-') {
        Some((base, n)) => (base, n.parse().unwrap_or(0)),
        None => (id, 1),
    }
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
