use std::io::Write;

use ralph_core::store::{STDOUT_FILE, TranscriptId};

use super::*;
use crate::run::transcript::tests::{kept, setup};

/// Writes iteration `n`'s raw stream of `bytes` bytes, as the compressing thread would.
fn stream(run: &RunDir, n: u32, bytes: usize) -> u64 {
    let (_, mut file) = run.create_iteration_file(n, STDOUT_FILE).unwrap();
    file.write_all(&vec![b'x'; bytes]).unwrap();
    bytes as u64
}

#[test]
fn past_the_cap_the_oldest_streams_go_and_the_newest_stays() {
    let (_ws, run) = setup();
    let mut ledger = Ledger::default();
    for n in 1..=4 {
        let size = stream(&run, n, 40);
        ledger.keep(&run, 100, n, size).unwrap();
    }
    assert_eq!(kept(&run), ["3", "4"]);
    // One stream over the cap on its own (the thread cut it there) is kept.
    let size = stream(&run, 5, 300);
    ledger.keep(&run, 100, 5, size).unwrap();
    assert_eq!(kept(&run), ["5"]);
}

#[test]
fn a_continued_run_counts_the_streams_already_on_disk() {
    let (_ws, run) = setup();
    stream(&run, 1, 60);
    stream(&run, 2, 30);
    let mut ledger = Ledger::default();
    let size = stream(&run, 3, 30);
    ledger.keep(&run, 100, 3, size).unwrap();
    assert_eq!(kept(&run), ["2", "3"]);
}

#[test]
fn a_retried_iteration_counts_once() {
    let (_ws, run) = setup();
    let mut ledger = Ledger::default();
    let size = stream(&run, 1, 50);
    ledger.keep(&run, 100, 1, size).unwrap();
    // A rate-limited attempt is retried under the same number: its file is rewritten.
    for _ in 0..3 {
        let size = stream(&run, 2, 40);
        ledger.keep(&run, 100, 2, size).unwrap();
    }
    assert_eq!(kept(&run), ["1", "2"]);
}

#[test]
fn a_stream_the_agent_already_removed_is_no_error() {
    let (_ws, run) = setup();
    let mut ledger = Ledger::default();
    let size = stream(&run, 1, 60);
    ledger.keep(&run, 100, 1, size).unwrap();
    run.remove_raw_stream(TranscriptId::latest(1)).unwrap();
    let size = stream(&run, 2, 60);
    ledger.keep(&run, 100, 2, size).unwrap();
    assert_eq!(kept(&run), ["2"]);
}

#[test]
fn a_stream_set_aside_still_counts_and_goes_first() {
    let (_ws, run) = setup();
    let mut ledger = Ledger::default();
    let size = stream(&run, 1, 30);
    ledger.keep(&run, 100, 1, size).unwrap();
    // Iteration 2's first attempt hit a limit; the loop set it aside before the next.
    let size = stream(&run, 2, 30);
    ledger.keep(&run, 100, 2, size).unwrap();
    assert!(run.set_aside_attempt(2, 1).unwrap());
    ledger.set_aside(2, 1);
    let size = stream(&run, 2, 30);
    ledger.keep(&run, 100, 2, size).unwrap();
    assert_eq!(kept(&run), ["1", "2-limited-1", "2"]);
    // Past the cap the oldest goes first: iteration 1, then the limited attempt.
    let size = stream(&run, 3, 30);
    ledger.keep(&run, 100, 3, size).unwrap();
    assert_eq!(kept(&run), ["2-limited-1", "2", "3"]);
    let size = stream(&run, 4, 30);
    ledger.keep(&run, 100, 4, size).unwrap();
    assert_eq!(kept(&run), ["2", "3", "4"]);
}
