use std::io::Write as _;
use std::time::UNIX_EPOCH;

use pretty_assertions::assert_eq;
use ralph_core::store::{RalphDir, STDOUT_FILE};

use super::*;

/// A run whose iteration 3 ran `attempts` times (each but the last set aside as limited),
/// each transcript with its raw stream and, unless `command` says otherwise, the
/// `command.json` ralph writes.
fn run_with(attempts: u32, command: impl Fn(u32) -> Option<String>) -> (tempfile::TempDir, RunDir) {
    let ws = tempfile::tempdir().unwrap();
    let run = RalphDir::in_workspace(ws.path())
        .create_run(UNIX_EPOCH)
        .unwrap();
    for k in 1..=attempts {
        if k > 1 {
            assert!(run.set_aside_attempt(3, k - 1).unwrap());
        }
        let (_, mut stdout) = run.create_iteration_file(3, STDOUT_FILE).unwrap();
        stdout
            .write_all(format!("attempt {k}\n").as_bytes())
            .unwrap();
        if let Some(json) = command(k) {
            let (_, mut file) = run.create_iteration_file(3, COMMAND_FILE).unwrap();
            file.write_all(json.as_bytes()).unwrap();
        }
    }
    (ws, run)
}

fn written(k: u32) -> Option<String> {
    Some(format!(r#"{{"program":"pi","attempt":{k}}}"#))
}

#[test]
fn each_attempt_is_found_where_it_was_kept_and_none_means_the_latest() {
    let (_ws, run) = run_with(3, written);
    let pick = |attempt| pick(&run, 3, attempt).unwrap();
    assert_eq!(pick(None), TranscriptId::latest(3));
    assert_eq!(pick(Some(1)), TranscriptId::limited(3, 1));
    assert_eq!(pick(Some(2)), TranscriptId::limited(3, 2));
    assert_eq!(pick(Some(3)), TranscriptId::latest(3));
}

#[test]
fn an_attempt_that_did_not_run_names_the_ones_kept() {
    let (_ws, run) = run_with(2, written);
    let err = pick(&run, 3, Some(3)).unwrap_err();
    assert!(
        matches!(&err, CliError::NoAttempt { iteration: 3, attempt: 3, kept, .. } if kept == &[1, 2]),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "run {} keeps no attempt 3 of iteration 3: it keeps attempts 1 and 2 (`--attempt`)",
            run.id()
        )
    );
    let (_ws, once) = run_with(1, written);
    let err = pick(&once, 3, Some(2)).unwrap_err().to_string();
    assert!(err.ends_with("it keeps attempt 1 (`--attempt`)"), "{err}");
    let err = pick(&once, 4, Some(1)).unwrap_err().to_string();
    assert!(
        err.ends_with("it keeps no raw output of that iteration"),
        "{err}"
    );
}

#[test]
fn a_latest_attempt_without_its_number_is_counted_after_the_limited_ones() {
    // A run from before `command.json` said the attempt: its only transcript is the first.
    let (_ws, run) = run_with(1, |_| Some(r#"{"program":"pi"}"#.to_owned()));
    assert_eq!(pick(&run, 3, Some(1)).unwrap(), TranscriptId::latest(3));
    // No `command.json`, one that is not JSON, or one with a number that is not one: the
    // attempt after the last limited one.
    for broken in [
        None,
        Some("not json".to_owned()),
        Some(r#"{"attempt":-2}"#.to_owned()),
    ] {
        let (_ws, run) = run_with(3, |k| if k == 3 { broken.clone() } else { written(k) });
        assert_eq!(pick(&run, 3, Some(3)).unwrap(), TranscriptId::latest(3));
        assert!(pick(&run, 3, Some(4)).is_err());
    }
}

#[test]
fn a_planted_link_a_huge_command_file_or_a_fifo_is_not_read_as_a_transcript() {
    let (ws, run) = run_with(1, written);
    let iterations = run.path().join("iterations");
    // A link named as a limited attempt: not followed.
    std::os::unix::fs::symlink(ws.path(), iterations.join("3-limited-7")).unwrap();
    assert!(matches!(
        pick(&run, 3, Some(7)),
        Err(CliError::NoAttempt { .. })
    ));
    // A command file over the bound, or a FIFO (opened without waiting for a writer):
    // as if it could not be read.
    let command = iterations.join("3").join(COMMAND_FILE);
    std::fs::write(&command, vec![b' '; MAX_COMMAND_BYTES as usize + 1]).unwrap();
    assert_eq!(pick(&run, 3, Some(1)).unwrap(), TranscriptId::latest(3));
    std::fs::remove_file(&command).unwrap();
    nix::unistd::mkfifo(&command, nix::sys::stat::Mode::S_IRWXU).unwrap();
    assert_eq!(pick(&run, 3, Some(1)).unwrap(), TranscriptId::latest(3));
}

#[test]
fn the_model_is_the_one_the_command_asked_for_or_else_the_one_the_history_records() {
    let codex = |_| Some(r#"{"backend":"codex","args":["exec","--json","-m","gpt-5.5"]}"#.into());
    let (_ws, run) = run_with(1, codex);
    let latest = TranscriptId::latest(3);
    assert_eq!(recorded_model(&run, latest).as_deref(), Some("gpt-5.5"));

    // A command file from before `backend` was written: the history's word.
    let (_ws, run) = run_with(1, written);
    assert_eq!(recorded_model(&run, latest), None);
    run.append_history(&record(3, Some("o3"))).unwrap();
    assert_eq!(recorded_model(&run, latest).as_deref(), Some("o3"));
    assert_eq!(recorded_model(&run, TranscriptId::latest(2)), None);
}

#[test]
fn the_format_is_the_one_the_run_decoded_the_stream_as() {
    let latest = TranscriptId::latest(3);
    let format_of = |json: &'static str| {
        let (_ws, run) = run_with(1, |_| Some(json.to_owned()));
        recorded_format(&run, latest)
    };
    // Recorded: a custom backend's plain text, or the JSON it was configured to write.
    assert_eq!(
        format_of(r#"{"backend":"custom","output_format":"text"}"#),
        Some(StreamFormat::Text)
    );
    assert_eq!(
        format_of(r#"{"backend":"custom","output_format":"claude"}"#),
        Some(StreamFormat::Claude)
    );
    // From before the field: a built-in backend writes its own format; a custom one's
    // is unknown, and so is a name this ralph does not know.
    assert_eq!(
        format_of(r#"{"backend":"codex"}"#),
        Some(StreamFormat::Codex)
    );
    assert_eq!(format_of(r#"{"backend":"custom"}"#), None);
    assert_eq!(
        format_of(r#"{"backend":"pi","output_format":"morse"}"#),
        None
    );
    let (_ws, run) = run_with(1, |_| None);
    assert_eq!(recorded_format(&run, latest), None);
}

/// Iteration `iteration`'s line of the history, as ralph writes it.
fn record(iteration: u32, model: Option<&str>) -> ralph_core::machine::IterationRecord {
    serde_json::from_value(serde_json::json!({
        "iteration": iteration, "hat": "ralph", "backend": "codex", "model": model,
        "outcome": {"status": "succeeded"}, "started_at_ms": 0, "duration_ms": 0,
        "cost_usd": null, "cost_kind": "unknown", "turns": 0, "consumed": [], "events": [],
        "tokens": {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0},
        "invalid_lines": 0,
    }))
    .unwrap()
}

#[test]
fn an_iteration_the_run_never_reached_is_named_as_such() {
    let ws = tempfile::tempdir().unwrap();
    let run = RalphDir::in_workspace(ws.path())
        .create_run(UNIX_EPOCH)
        .unwrap();
    // No history yet: nothing to go by, the transcript's own errors speak.
    assert!(check_reached(&run, 4, false).is_ok());
    for n in 1..=3 {
        run.append_history(&record(n, None)).unwrap();
    }
    let refused = |iteration, running| match check_reached(&run, iteration, running) {
        Ok(()) => None,
        Err(e) => Some(e.to_string()),
    };
    assert_eq!(refused(2, false), None);
    assert_eq!(refused(3, false), None);
    let id = run.id();
    assert_eq!(
        refused(4, false).as_deref(),
        Some(format!("run {id} has no iteration 4: it has iterations 1 to 3").as_str())
    );
    assert_eq!(
        refused(0, false).as_deref(),
        Some(format!("run {id} has no iteration 0: it has iterations 1 to 3").as_str())
    );
    // The loop runs iteration 4 now; 5 it has not reached.
    assert_eq!(refused(4, true), None);
    assert_eq!(
        refused(5, true).as_deref(),
        Some(format!("run {id} has no iteration 5: it has iterations 1 to 3 so far").as_str())
    );
}
