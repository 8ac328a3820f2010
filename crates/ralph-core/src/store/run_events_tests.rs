use std::fs;
use std::time::UNIX_EPOCH;

use super::*;
use crate::run_event::RunEvent;
use crate::store::RalphDir;

/// An `iteration_started` line as the run writes it (the same serializer).
fn start_line(iteration: u32, hat: &str, events: &[Event]) -> String {
    let event = RunEvent::IterationStarted {
        iteration,
        attempt: 1,
        max_iterations: 9,
        hat,
        hat_name: hat,
        backend: "pi",
        events,
        wall_secs: 60,
        started_at_ms: 1_000 + u64::from(iteration),
        elapsed_ms: 100 * u64::from(iteration),
    };
    serde_json::to_string(&event).unwrap() + "\n"
}

/// A line that is not a start, `len` bytes long with its newline; one that mentions the
/// start's prefix inside, as an agent's text may.
fn filler(len: usize) -> String {
    let head = r#"{"type":"agent","iteration":1,"event":{"text":"#;
    let quoted = r#"{\"type\":\"iteration_started\","#;
    let pad = len - head.len() - quoted.len() - 4;
    format!("{head}\"{quoted}{}\"}}\n", "x".repeat(pad))
}

fn run_with(record: &str) -> (tempfile::TempDir, RunDir) {
    let ws = tempfile::tempdir().unwrap();
    let run = RalphDir::in_workspace(ws.path())
        .create_run(UNIX_EPOCH)
        .unwrap();
    fs::write(run.run_events(), record).unwrap();
    (ws, run)
}

#[test]
fn the_last_start_is_the_running_iterations_and_the_first_the_runs() {
    let given = [
        Event::with_text("task.start", "go"),
        Event::new("plan.ready"),
    ];
    let record = [
        filler(300),
        start_line(1, "planner", &given[..1]),
        filler(3 * BACKWARD_CHUNK_BYTES as usize),
        start_line(2, "builder", &given[1..]),
        filler(200),
        filler(5 * BACKWARD_CHUNK_BYTES as usize / 2),
    ]
    .concat();
    let (_ws, run) = run_with(&record);
    let last = run.last_iteration_start().unwrap().unwrap();
    assert_eq!(
        (last.iteration, last.hat.as_str(), last.backend.as_str()),
        (2, "builder", "pi")
    );
    assert_eq!(
        (last.events, last.started_at_ms),
        (given[1..].to_vec(), 1_002)
    );
    let first = run.first_iteration_start().unwrap().unwrap();
    assert_eq!((first.iteration, first.hat.as_str()), (1, "planner"));
    assert_eq!(first.events, given[..1].to_vec());
}

/// A start line found wherever it falls against the chunks read backwards: just before,
/// across and just after a chunk's edge, and at the file's very start.
#[test]
fn a_start_is_found_wherever_the_chunks_cut() {
    let chunk = BACKWARD_CHUNK_BYTES as usize;
    let start = start_line(4, "builder", &[]);
    // The first chunk read is the file's last `chunk` bytes: with `after` bytes after the
    // start line, its edge falls `chunk - start.len() - after` bytes into `before`'s end
    // or the start line.
    let edge = chunk - start.len();
    for after in (edge - START_PREFIX.len() - 2..edge + 3).chain([chunk / 2]) {
        let after = filler(after.max(100));
        for before in [String::new(), filler(150)] {
            let (_ws, run) = run_with(&[before.as_str(), &start, &after].concat());
            let found = run.last_iteration_start().unwrap();
            assert_eq!(found.map(|s| s.iteration), Some(4), "{}", after.len());
        }
    }
}

#[test]
fn no_record_or_no_start_is_none() {
    let (_ws, run) = run_with(&[filler(500), filler(70_000)].concat());
    assert_eq!(run.last_iteration_start().unwrap(), None);
    assert_eq!(run.first_iteration_start().unwrap(), None);
    fs::remove_file(run.run_events()).unwrap();
    assert_eq!(run.last_iteration_start().unwrap(), None);
    assert_eq!(run.first_iteration_start().unwrap(), None);
}

#[test]
fn a_start_line_cut_short_is_none() {
    let line = start_line(1, "planner", &[]);
    let (_ws, run) = run_with(&line[..line.len() / 2]);
    assert_eq!(run.last_iteration_start().unwrap(), None);
}

#[test]
fn a_killed_iteration_ran_from_its_last_start_to_the_records_last_write() {
    let record = start_line(1, "a", &[]) + &filler(100) + &start_line(2, "b", &[]);
    let (_ws, run) = run_with(&record);
    // Iteration 2 started at 1002 ms, 200 ms into the run (`start_line`); the record was
    // last written at 4002.
    let written = UNIX_EPOCH + Duration::from_millis(4_002);
    let file = fs::File::options()
        .append(true)
        .open(run.run_events())
        .unwrap();
    file.set_modified(written).unwrap();
    assert_eq!(
        run.killed_iteration(2).unwrap(),
        Some(KilledIteration {
            started_at_ms: 1_002,
            ran: Duration::from_secs(3),
            runtime_ms: 3_200,
        })
    );
    // Killed between iterations: the last start is not the one asked about.
    assert_eq!(run.killed_iteration(3).unwrap(), None);
    // A clock set back since: not a negative time.
    file.set_modified(UNIX_EPOCH).unwrap();
    let killed = run.killed_iteration(2).unwrap().expect("its start");
    assert_eq!((killed.ran, killed.runtime_ms), (Duration::ZERO, 200));
    // No record at all.
    fs::remove_file(run.run_events()).unwrap();
    assert_eq!(run.killed_iteration(2).unwrap(), None);
}
