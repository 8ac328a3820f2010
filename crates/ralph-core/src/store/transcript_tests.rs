use std::io::Write;
use std::time::{Duration, UNIX_EPOCH};

use super::super::{RalphDir, RunDir, TranscriptId};
use super::*;

fn setup() -> (tempfile::TempDir, RalphDir) {
    let ws = tempfile::tempdir().unwrap();
    let dir = RalphDir::in_workspace(ws.path());
    (ws, dir)
}

fn keep(run: &RunDir, iteration: u32, bytes: usize) {
    let (_, mut file) = run.create_iteration_file(iteration, STDOUT_FILE).unwrap();
    file.write_all(&vec![b'x'; bytes]).unwrap();
}

#[test]
fn runs_are_listed_newest_first_with_same_second_runs_in_order() {
    let (_ws, dir) = setup();
    assert_eq!(dir.runs().unwrap(), []);
    let at = |secs| UNIX_EPOCH + Duration::from_secs(secs);
    for secs in [100, 100, 50, 100] {
        dir.create_run(at(secs)).unwrap();
    }
    // Something that is not a run: ignored.
    fs::create_dir(dir.path().join(RUNS_DIR).join(".tmp")).unwrap();
    let ids = super::super::tests::run_ids(&dir);
    assert_eq!(
        ids,
        [
            "19700101T000140Z-3",
            "19700101T000140Z-2",
            "19700101T000140Z",
            "19700101T000050Z"
        ]
    );
    assert_eq!(
        dir.run("19700101T000050Z").unwrap().unwrap().id(),
        "19700101T000050Z"
    );
    assert_eq!(dir.run("20990101T000000Z").unwrap(), None);
    assert!(dir.run("../runs").is_err());
    assert!(dir.run("").is_err());
}

#[test]
fn raw_streams_are_listed_oldest_first_and_removed_alone() {
    let (_ws, dir) = setup();
    let run = dir.create_run(UNIX_EPOCH).unwrap();
    assert_eq!(run.raw_streams().unwrap(), []);
    keep(&run, 10, 5);
    keep(&run, 2, 7);
    let (_, mut prompt) = run.create_iteration_file(2, PROMPT_FILE).unwrap();
    prompt.write_all(b"the prompt").unwrap();
    assert_eq!(
        run.raw_streams().unwrap(),
        [(TranscriptId::latest(2), 7), (TranscriptId::latest(10), 5)]
    );
    run.remove_raw_stream(TranscriptId::latest(2)).unwrap();
    // Removing what is gone is no error.
    run.remove_raw_stream(TranscriptId::latest(2)).unwrap();
    assert_eq!(run.raw_streams().unwrap(), [(TranscriptId::latest(10), 5)]);
    assert_eq!(
        fs::read(run.iteration_dir(2).join(PROMPT_FILE)).unwrap(),
        b"the prompt"
    );
}

#[test]
fn a_linked_iteration_directory_is_neither_written_nor_emptied() {
    let (_ws, dir) = setup();
    let run = dir.create_run(UNIX_EPOCH).unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join(STDOUT_FILE), b"not ralph's").unwrap();
    fs::create_dir(run.path().join(ITERATIONS_DIR)).unwrap();
    std::os::unix::fs::symlink(outside.path(), run.iteration_dir(1)).unwrap();
    assert!(run.create_iteration_file(1, PROMPT_FILE).is_err());
    assert!(run.remove_raw_stream(TranscriptId::latest(1)).is_err());
    assert_eq!(
        fs::read(outside.path().join(STDOUT_FILE)).unwrap(),
        b"not ralph's"
    );
    assert!(!outside.path().join(PROMPT_FILE).exists());
}

#[test]
fn removing_a_run_removes_its_directory_only() {
    let (_ws, dir) = setup();
    let old = dir.create_run(UNIX_EPOCH).unwrap();
    let new = dir.create_run(UNIX_EPOCH + Duration::from_secs(1)).unwrap();
    keep(&old, 1, 3);
    dir.remove_run(&old).unwrap();
    assert!(!old.path().exists() && new.path().is_dir());
}

#[test]
fn a_limited_attempt_is_set_aside_and_listed_before_the_attempt_after_it() {
    let (_ws, dir) = setup();
    let run = dir.create_run(UNIX_EPOCH).unwrap();
    // Nothing to set aside yet (no `iterations/` even).
    assert!(!run.set_aside_attempt(3, 1).unwrap());
    keep(&run, 2, 4);
    keep(&run, 3, 5);
    assert!(run.set_aside_attempt(3, 1).unwrap());
    assert!(!run.iteration_dir(3).exists());
    keep(&run, 3, 6);
    assert!(run.set_aside_attempt(3, 2).unwrap());
    keep(&run, 3, 7);
    assert_eq!(
        run.raw_streams().unwrap(),
        [
            (TranscriptId::latest(2), 4),
            (TranscriptId::limited(3, 1), 5),
            (TranscriptId::limited(3, 2), 6),
            (TranscriptId::latest(3), 7)
        ]
    );
    assert_eq!(
        fs::read(
            run.transcript_dir(TranscriptId::limited(3, 1))
                .join(STDOUT_FILE)
        )
        .unwrap(),
        [b'x'; 5]
    );
    run.remove_raw_stream(TranscriptId::limited(3, 1)).unwrap();
    assert_eq!(
        run.raw_streams().unwrap()[1],
        (TranscriptId::limited(3, 2), 6)
    );
}

#[test]
fn setting_aside_replaces_nothing_and_moves_no_link() {
    let (_ws, dir) = setup();
    let run = dir.create_run(UNIX_EPOCH).unwrap();
    keep(&run, 1, 5);
    // The name is taken (by anything: an empty directory, a file, a link).
    let taken = run.transcript_dir(TranscriptId::limited(1, 1));
    fs::create_dir(&taken).unwrap();
    let err = run.set_aside_attempt(1, 1).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::AlreadyExists, "{err}");
    fs::remove_dir(&taken).unwrap();
    std::os::unix::fs::symlink("/", &taken).unwrap();
    assert!(run.set_aside_attempt(1, 1).is_err());
    assert_eq!(
        fs::read(run.iteration_dir(1).join(STDOUT_FILE)).unwrap(),
        [b'x'; 5]
    );
    // `<n>` itself a link, or a file: refused, left where it is.
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), run.iteration_dir(2)).unwrap();
    assert!(run.set_aside_attempt(2, 1).is_err());
    assert!(
        fs::symlink_metadata(run.iteration_dir(2))
            .unwrap()
            .is_symlink()
    );
    fs::write(run.iteration_dir(4), b"a file").unwrap();
    assert!(run.set_aside_attempt(4, 1).is_err());
    assert!(!run.transcript_dir(TranscriptId::limited(4, 1)).exists());
}

#[test]
fn transcript_names_parse_back_in_their_plain_form_only() {
    for id in [
        TranscriptId::latest(0),
        TranscriptId::latest(7),
        TranscriptId::limited(7, 1),
        TranscriptId::limited(u32::MAX, 12),
    ] {
        assert_eq!(TranscriptId::parse(&id.dir_name()), Some(id), "{id:?}");
    }
    assert_eq!(TranscriptId::limited(7, 2).dir_name(), "7-limited-2");
    for name in [
        "",
        "07",
        "+7",
        "7-limited-",
        "7-limited-02",
        "-limited-1",
        "7-limited-1-limited-2",
        "7-limited-x",
        "4294967296",
        ".7",
        "7 ",
    ] {
        assert_eq!(TranscriptId::parse(name), None, "{name:?}");
    }
}

#[test]
fn only_the_names_ralph_gives_runs_are_runs() {
    for name in [
        "20261126T101500Z",
        "20261126T101500Z-2",
        "20261126T101500Z-12",
    ] {
        assert!(is_run_name(name), "{name}");
    }
    for name in [
        "",
        "notarun",
        "0-my-notes",
        "20261126T101500",
        "20261126T101500Z-",
        "20261126T101500Z-x",
        "20261126X101500Z",
        "2026112üT10150Z",
        "20261126T101500Z-2-3",
        "120261126T101500Z",
    ] {
        assert!(!is_run_name(name), "{name}");
    }
}
