use std::time::{Duration, UNIX_EPOCH};

use super::super::RalphDir;
use super::*;

fn run_dir(ws: &std::path::Path) -> RunDir {
    let dir = RalphDir::in_workspace(ws);
    dir.lock().map(std::mem::forget).unwrap();
    dir.create_run(UNIX_EPOCH + Duration::from_secs(1_764_151_200))
        .unwrap()
}

#[test]
fn the_tags_kept_are_read_back_for_their_iteration_only_until_forgotten() {
    let ws = tempfile::tempdir().unwrap();
    let run = run_dir(ws.path());
    assert_eq!(run.answer_tags_of(1).unwrap(), Vec::<Event>::new());

    let first = [
        Event::with_text("build.done", "the parser"),
        Event::new("x"),
    ];
    run.keep_answer_tags(1, &first[..1]).unwrap();
    run.keep_answer_tags(1, &first[1..]).unwrap();
    assert_eq!(run.answer_tags_of(1).unwrap(), first.to_vec());
    // Those of an iteration that ended are never taken for the next one's.
    assert_eq!(run.answer_tags_of(2).unwrap(), Vec::<Event>::new());

    run.forget_answer_tags().unwrap();
    assert_eq!(run.answer_tags_of(1).unwrap(), Vec::<Event>::new());
    // Nothing to forget is no error.
    run.forget_answer_tags().unwrap();
}

#[test]
fn a_line_torn_by_a_kill_is_skipped() {
    let ws = tempfile::tempdir().unwrap();
    let run = run_dir(ws.path());
    run.keep_answer_tags(3, &[Event::new("kept")]).unwrap();
    crate::fsafe::append_line(&run.answer_tags(), b"{\"iteration\":3,\"ev").unwrap();
    assert_eq!(run.answer_tags_of(3).unwrap(), vec![Event::new("kept")]);
}
