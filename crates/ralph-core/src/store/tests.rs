use std::io::Write;
use std::time::Duration;

use super::*;
use crate::event::Event;

#[test]
fn run_ids_are_utc_timestamps() {
    let at = |secs| run_id(UNIX_EPOCH + Duration::from_secs(secs));
    assert_eq!(
        [at(0), at(951_782_400), at(1_764_151_200 + 3_723)],
        ["19700101T000000Z", "20000229T000000Z", "20251126T110203Z"]
    );
}

#[test]
fn runs_get_their_own_directory_and_become_current() {
    let ws = tempfile::tempdir().unwrap();
    let dir = RalphDir::in_workspace(ws.path());
    let _lock = dir.lock().unwrap();
    dir.ensure_gitignore().unwrap();
    assert_eq!(dir.current_run().unwrap(), None);
    let now = UNIX_EPOCH + Duration::from_secs(1_764_151_200);
    let first = dir.create_run(now).unwrap();
    let second = dir.create_run(now).unwrap();
    assert_eq!(
        (first.id(), second.id()),
        ("20251126T100000Z", "20251126T100000Z-2")
    );
    assert_eq!(dir.current_run().unwrap(), Some(second.clone()));
    assert_eq!(fs::read(second.inbox()).unwrap(), b"");
    assert_eq!(
        fs::read_to_string(ws.path().join(".ralph/.gitignore")).unwrap(),
        gitignore::GITIGNORE
    );
}

#[test]
fn saved_state_round_trips_and_other_formats_are_refused() {
    let ws = tempfile::tempdir().unwrap();
    let dir = RalphDir::in_workspace(ws.path());
    let run = dir.create_run(UNIX_EPOCH).unwrap();
    assert!(matches!(run.load(), Err(StoreError::NoRun(_))));
    let mut state = LoopState::default();
    state.pending.push_back(Event::with_text("a", "b"));
    state.iterations = 4;
    let saved = SavedRun {
        format: STATE_FORMAT,
        run_id: run.id().into(),
        objective: "task".into(),
        inbox_offset: 42,
        state,
        command_line: CommandLineLimits::default(),
    };
    run.save(&saved, Durability::Durable).unwrap();
    assert_eq!(run.load().unwrap(), saved);
    fs::write(run.state(), "{\"format\": 99}").unwrap();
    assert!(matches!(
        run.load(),
        Err(StoreError::Format { found: 99, .. })
    ));
    fs::write(run.state(), "{\"format\": 1, \"run_id\": ").unwrap();
    assert!(matches!(run.load(), Err(StoreError::Damaged { .. })));
}

#[test]
fn links_under_dot_ralph_are_refused_and_nothing_outside_is_written() {
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let dir = RalphDir::in_workspace(ws.path());
    fs::create_dir(dir.path()).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join(RUNS_DIR)).unwrap();
    let e = dir.create_run(UNIX_EPOCH).unwrap_err();
    assert!(e.to_string().contains("is a symbolic link"), "{e}");
    fs::write(dir.path().join(CURRENT_RUN_FILE), "x\n").unwrap();
    assert!(dir.current_run().is_err());
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);

    let target = outside.path().join("pid");
    fs::write(&target, "keep").unwrap();
    std::os::unix::fs::symlink(&target, dir.path().join(LOCK_FILE)).unwrap();
    assert!(matches!(dir.lock(), Err(LockError::Io { .. })));
    assert_eq!(fs::read_to_string(&target).unwrap(), "keep");
}

/// A history record as an older ralph wrote it: the fields added since (gates, verified,
/// withheld, default_published, completion) left out, as readers must accept.
fn record(iteration: u32) -> IterationRecord {
    serde_json::from_value(serde_json::json!({
        "iteration": iteration, "hat": "ralph", "backend": "pi", "model": null,
        "outcome": {"status": "succeeded"}, "started_at_ms": 0, "duration_ms": 0,
        "cost_usd": null, "cost_kind": "unknown", "turns": 0, "consumed": [], "events": [],
        "tokens": {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0},
        "invalid_lines": 0,
    }))
    .expect("an old history record still reads")
}

#[test]
fn history_survives_a_torn_line_and_stray_bytes_and_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    let run = RalphDir::in_workspace(dir.path())
        .create_run(UNIX_EPOCH)
        .unwrap();
    run.append_history(&record(1)).unwrap();
    // A writer died mid-line, and a byte that is not UTF-8 got in.
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(run.history())
        .unwrap();
    file.write_all(b"{\"iteration\":2,\"hat\":\"ra\xff")
        .unwrap();
    run.append_history(&record(3)).unwrap();
    let history = run.read_history_counted().unwrap();
    let numbers: Vec<u32> = history.records.iter().map(|r| r.iteration).collect();
    assert_eq!((numbers, history.skipped), (vec![1, 3], 1));
}

#[test]
fn the_limited_attempts_the_state_covers_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let run = RalphDir::in_workspace(dir.path())
        .create_run(UNIX_EPOCH)
        .unwrap();
    // Iteration 1, then three attempts of iteration 2, the state saved after two of
    // them (ralph stopped before it saved the third).
    for n in [1, 2, 2, 2] {
        run.append_history(&record(n)).unwrap();
    }
    assert_eq!(run.trim_history(1, 2, Durability::Atomic).unwrap(), 1);
    let numbers = iterations_in_history(&run);
    assert_eq!(numbers, vec![1, 2, 2]);
}

#[test]
fn records_past_the_saved_state_are_trimmed_once() {
    let dir = tempfile::tempdir().unwrap();
    let run = RalphDir::in_workspace(dir.path())
        .create_run(UNIX_EPOCH)
        .unwrap();
    for n in 1..=3 {
        run.append_history(&record(n)).unwrap();
    }
    assert_eq!(run.trim_history(2, 0, Durability::Atomic).unwrap(), 1);
    assert_eq!(run.trim_history(2, 0, Durability::Atomic).unwrap(), 0);
    let numbers = iterations_in_history(&run);
    assert_eq!(numbers, vec![1, 2]);
}

#[test]
fn a_damaged_current_run_marker_says_what_is_wrong_with_it() {
    let ws = tempfile::tempdir().unwrap();
    let dir = RalphDir::in_workspace(ws.path());
    let run = dir.create_run(UNIX_EPOCH).unwrap();
    let marker = ws.path().join(".ralph/current-run");
    for (text, says) in [
        ("", "is empty"),
        ("..", "names `..`, which is not a run id"),
        ("../../etc", "which is not a run id"),
        (
            "20990101T000000Z",
            "names run `20990101T000000Z`, which is not in",
        ),
    ] {
        fs::write(&marker, text).unwrap();
        let err = dir.current_run().unwrap_err();
        assert!(err.to_string().contains(says), "{text:?}: {err}");
    }
    fs::write(&marker, format!("{}\n", run.id())).unwrap();
    assert_eq!(dir.current_run().unwrap(), Some(run));
}

#[test]
fn a_run_that_cannot_be_set_up_leaves_no_directory_behind() {
    let ws = tempfile::tempdir().unwrap();
    let dir = RalphDir::in_workspace(ws.path());
    let first = dir.create_run(UNIX_EPOCH).unwrap();
    // The marker cannot be replaced (a directory holds its name), as on a full disk.
    fs::remove_file(ws.path().join(".ralph").join(CURRENT_RUN_FILE)).unwrap();
    fs::create_dir(ws.path().join(".ralph").join(CURRENT_RUN_FILE)).unwrap();
    assert!(dir.create_run(UNIX_EPOCH).is_err());
    let runs: Vec<_> = fs::read_dir(ws.path().join(".ralph").join(RUNS_DIR))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(runs, [std::ffi::OsString::from(first.id())]);
}

/// The iteration number of each history record, in order.
fn iterations_in_history(run: &RunDir) -> Vec<u32> {
    run.read_history()
        .unwrap()
        .iter()
        .map(|r| r.iteration)
        .collect()
}

#[test]
fn agents_md_names_the_inbox_file_an_agent_is_given() {
    let doc = include_str!("../../../../docs/agents.md");
    let row = doc
        .lines()
        .find(|l| l.starts_with(&format!("| `{}` |", ralph_types::env::EVENTS_FILE)))
        .expect("docs/agents.md has a row for the events file");
    assert!(
        row.contains(&format!("`.ralph/runs/<id>/{INBOX_FILE}`")),
        "{row}"
    );
}

#[test]
fn a_run_started_after_a_prune_sorts_after_the_runs_kept_from_its_second() {
    let ws = tempfile::tempdir().unwrap();
    let dir = RalphDir::in_workspace(ws.path());
    let now = UNIX_EPOCH + Duration::from_secs(1_764_151_200);
    let first = dir.create_run(now).unwrap();
    dir.create_run(now).unwrap();
    // `ralph runs prune --keep 1` within the same second: the oldest goes.
    dir.remove_run(&first).unwrap();
    let next = dir.create_run(now).unwrap();
    assert_eq!(next.id(), "20251126T100000Z-3");
    let newest = dir.runs().unwrap().first().map(|r| r.id().to_owned());
    assert_eq!(newest.as_deref(), Some("20251126T100000Z-3"));
}

#[test]
fn the_tenth_run_of_a_second_sorts_after_the_ninth() {
    let ws = tempfile::tempdir().unwrap();
    let dir = RalphDir::in_workspace(ws.path());
    for _ in 0..11 {
        dir.create_run(UNIX_EPOCH).unwrap();
    }
    let ids = run_ids(&dir);
    assert_eq!(
        ids[..3],
        [
            "19700101T000000Z-11",
            "19700101T000000Z-10",
            "19700101T000000Z-9"
        ]
    );
    assert_eq!(ids.last().map(String::as_str), Some("19700101T000000Z"));
}

/// The ids of `dir`'s runs, newest first, as `ralph runs` lists them.
pub(super) fn run_ids(dir: &RalphDir) -> Vec<String> {
    dir.runs()
        .unwrap()
        .iter()
        .map(|r| r.id().to_owned())
        .collect()
}
