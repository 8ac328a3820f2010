use std::io::Read;
use std::time::UNIX_EPOCH;

use ralph_agent::SpawnSpec;
use ralph_core::config::TranscriptsConfig;
use ralph_core::store::{
    COMMAND_FILE, PROMPT_FILE, RalphDir, RunDir, STDERR_FILE, STDOUT_FILE, TranscriptId,
};
use ralph_stream::StreamFormat;

use super::*;

/// A workspace with one run in it.
pub(super) fn setup() -> (tempfile::TempDir, RunDir) {
    let ws = tempfile::tempdir().unwrap();
    let run = RalphDir::in_workspace(ws.path())
        .create_run(UNIX_EPOCH)
        .unwrap();
    (ws, run)
}

/// The transcripts whose raw streams the run keeps, by their directories' names.
pub(super) fn kept(run: &RunDir) -> Vec<String> {
    run.raw_streams()
        .unwrap()
        .iter()
        .map(|(id, _)| id.dir_name())
        .collect()
}

const KEEP_ALL: TranscriptsConfig = TranscriptsConfig {
    enabled: true,
    max_bytes_per_run: u32::MAX,
};

/// Starts iteration `n`'s transcript in `transcripts`.
fn start(transcripts: &mut Transcripts, run: &RunDir, ws: &Path, n: u32) -> Transcript {
    start_attempt(transcripts, run, ws, n, 1)
}

/// Starts the transcript of attempt `attempt` at iteration `n` in `transcripts`.
fn start_attempt(
    transcripts: &mut Transcripts,
    run: &RunDir,
    ws: &Path,
    n: u32,
    attempt: u32,
) -> Transcript {
    let who = Who {
        workspace: ws,
        iteration: n,
        attempt,
        hat: "builder",
        backend: "pi",
        output_format: StreamFormat::Pi,
    };
    let spec = SpawnSpec::new("pi").args(["-p", "the prompt"]);
    transcripts.start(run, KEEP_ALL, &who, "the prompt", &spec)
}

/// Iteration `n`'s raw stream, decompressed.
fn raw_stream(run: &RunDir, n: u32) -> Vec<u8> {
    raw_stream_of(run, TranscriptId::latest(n))
}

/// Transcript `id`'s raw stream, decompressed.
fn raw_stream_of(run: &RunDir, id: TranscriptId) -> Vec<u8> {
    let path = run.transcript_dir(id).join(STDOUT_FILE);
    let file = std::fs::File::open(path).unwrap();
    let mut out = Vec::new();
    zstd::stream::read::Decoder::new(file)
        .unwrap()
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// Distinct bytes for iteration `n`, over several batches, so that a context carried
/// over wrongly from the last stream would show; random, so that they do not compress
/// and reach the file as they are written.
fn output_of(n: u32) -> Vec<u8> {
    let mut state = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..3 * BATCH_BYTES + 77)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 32) as u8
        })
        .collect()
}

#[test]
fn one_thread_writes_every_iteration_of_the_run_whole() {
    let (ws, run) = setup();
    let mut transcripts = Transcripts::default();
    for n in 1..=4 {
        let mut transcript = start(&mut transcripts, &run, ws.path(), n);
        for chunk in output_of(n).chunks(64 * 1024 + 3) {
            transcript.write(chunk);
        }
        let stderr = if n == 2 { "boom\n" } else { "" };
        transcript.finish(&mut transcripts, stderr);
        transcripts.wait();
        assert_eq!(raw_stream(&run, n), output_of(n), "iteration {n}");
        let mut prompt = String::new();
        run.open_iteration_file(n, PROMPT_FILE)
            .unwrap()
            .read_to_string(&mut prompt)
            .unwrap();
        assert_eq!(prompt, "the prompt");
        assert!(run.open_iteration_file(n, COMMAND_FILE).is_ok());
        assert_eq!(run.open_iteration_file(n, STDERR_FILE).is_ok(), n == 2);
    }
}

#[test]
fn a_transcript_dropped_unfinished_does_not_spoil_the_next() {
    let (ws, run) = setup();
    let mut transcripts = Transcripts::default();
    let mut first = start(&mut transcripts, &run, ws.path(), 1);
    first.write(b"half of it");
    drop(first);
    let mut second = start(&mut transcripts, &run, ws.path(), 2);
    second.write(b"all of it");
    second.finish(&mut transcripts, "");
    transcripts.wait();
    assert_eq!(raw_stream(&run, 2), b"all of it");
    // The abandoned stream was ended when the next one started: a whole frame, of what
    // had been handed over (nothing: its one batch was never full).
    assert_eq!(raw_stream(&run, 1), b"");
}

#[test]
fn an_iteration_whose_files_cannot_be_made_leaves_the_next_one_whole() {
    let (ws, run) = setup();
    let mut transcripts = Transcripts::default();
    // A file where iteration 1's directory should be: nothing of it can be written.
    std::fs::create_dir_all(run.path().join("iterations")).unwrap();
    std::fs::write(run.iteration_dir(1), b"in the way").unwrap();
    let mut broken = start(&mut transcripts, &run, ws.path(), 1);
    broken.write(&output_of(1));
    broken.finish(&mut transcripts, "");
    let mut next = start(&mut transcripts, &run, ws.path(), 2);
    next.write(&output_of(2));
    next.finish(&mut transcripts, "");
    transcripts.wait();
    assert_eq!(raw_stream(&run, 2), output_of(2));
}

#[test]
fn a_stream_past_the_cap_keeps_its_start_and_reads_the_rest_away() {
    let (ws, run) = setup();
    let mut transcripts = Transcripts::default();
    let who = Who {
        workspace: ws.path(),
        iteration: 1,
        attempt: 1,
        hat: "builder",
        backend: "pi",
        output_format: StreamFormat::Pi,
    };
    let config = TranscriptsConfig {
        enabled: true,
        max_bytes_per_run: 1,
    };
    let spec = SpawnSpec::new("pi");
    let mut transcript = transcripts.start(&run, config, &who, "p", &spec);
    for _ in 0..BATCHES_IN_FLIGHT * 4 {
        transcript.write(&output_of(1));
    }
    transcript.finish(&mut transcripts, "");
    transcripts.wait();
    let kept = raw_stream(&run, 1);
    assert!(!kept.is_empty() && kept.len() < output_of(1).len() * 2);
    assert!(output_of(1).starts_with(&kept[..BATCH_BYTES.min(kept.len())]));
}

#[test]
fn the_run_s_end_waits_for_the_last_transcript_and_the_cap() {
    let (ws, run) = setup();
    let mut transcripts = Transcripts::default();
    let config = TranscriptsConfig {
        enabled: true,
        max_bytes_per_run: (output_of(1).len() * 3 / 2) as u32,
    };
    for n in 1..=3 {
        let who = Who {
            workspace: ws.path(),
            iteration: n,
            attempt: 1,
            hat: "builder",
            backend: "pi",
            output_format: StreamFormat::Pi,
        };
        let mut transcript = transcripts.start(&run, config, &who, "p", &SpawnSpec::new("pi"));
        transcript.write(&output_of(n));
        transcript.finish(&mut transcripts, "last words\n");
    }
    // No wait: dropping the run's transcripts is what waits.
    drop(transcripts);
    assert_eq!(raw_stream(&run, 3), output_of(3));
    let mut tail = String::new();
    run.open_iteration_file(3, STDERR_FILE)
        .unwrap()
        .read_to_string(&mut tail)
        .unwrap();
    assert_eq!(tail, "last words\n");
    // Random bytes do not shrink: one stream fits the cap, two do not.
    assert_eq!(kept(&run), ["3"]);
}

#[test]
fn an_attempt_after_a_limit_sets_the_one_before_aside_whole() {
    let (ws, run) = setup();
    let mut transcripts = Transcripts::default();
    let limited = |k| TranscriptId::limited(2, k);
    let mut first = start(&mut transcripts, &run, ws.path(), 1);
    first.write(&output_of(1));
    first.finish(&mut transcripts, "");
    // Iteration 2 hits the limit twice; no wait in between: the thread sets each
    // attempt aside only once it has written it.
    for attempt in 1..=3 {
        let mut transcript = start_attempt(&mut transcripts, &run, ws.path(), 2, attempt);
        transcript.write(&output_of(10 + attempt));
        let stderr = format!("429 on attempt {attempt}\n");
        transcript.finish(&mut transcripts, &stderr);
    }
    transcripts.wait();
    assert_eq!(raw_stream(&run, 1), output_of(1));
    assert_eq!(raw_stream_of(&run, limited(1)), output_of(11));
    assert_eq!(raw_stream_of(&run, limited(2)), output_of(12));
    assert_eq!(raw_stream(&run, 2), output_of(13));
    for (id, attempt) in [
        (limited(1), 1),
        (limited(2), 2),
        (TranscriptId::latest(2), 3),
    ] {
        let dir = run.transcript_dir(id);
        assert!(dir.join(PROMPT_FILE).is_file() && dir.join(COMMAND_FILE).is_file());
        let stderr = std::fs::read_to_string(dir.join(STDERR_FILE)).unwrap();
        assert_eq!(stderr, format!("429 on attempt {attempt}\n"));
    }
    assert_eq!(kept(&run), ["1", "2-limited-1", "2-limited-2", "2"]);
}

#[test]
fn an_attempt_whose_predecessor_cannot_be_set_aside_replaces_it() {
    let (ws, run) = setup();
    let mut transcripts = Transcripts::default();
    let mut first = start(&mut transcripts, &run, ws.path(), 1);
    first.write(b"limited");
    first.finish(&mut transcripts, "");
    transcripts.wait();
    // Something took the set-aside name: it stays as it is.
    std::fs::write(run.path().join("iterations/1-limited-1"), b"not ralph's").unwrap();
    let mut second = start_attempt(&mut transcripts, &run, ws.path(), 1, 2);
    second.write(b"the retry");
    second.finish(&mut transcripts, "");
    transcripts.wait();
    assert_eq!(raw_stream(&run, 1), b"the retry");
    let planted = std::fs::read(run.path().join("iterations/1-limited-1")).unwrap();
    assert_eq!(planted, b"not ralph's");
}
