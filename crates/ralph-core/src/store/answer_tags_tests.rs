use std::time::{Duration, UNIX_EPOCH};

use super::super::RalphDir;
use super::*;
use crate::event::EmitError;
use crate::topic::TopicError;

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
    assert_eq!(run.answer_tags_of(1).unwrap(), Vec::<Tag>::new());

    let first = [
        Ok(Event::with_text("build.done", "the parser")),
        Ok(Event::new("x")),
    ];
    run.keep_answer_tags(1, &first[..1]).unwrap();
    run.keep_answer_tags(1, &first[1..]).unwrap();
    assert_eq!(run.answer_tags_of(1).unwrap(), first.to_vec());
    // Those of an iteration that ended are never taken for the next one's.
    assert_eq!(run.answer_tags_of(2).unwrap(), Vec::<Tag>::new());

    run.forget_answer_tags().unwrap();
    assert_eq!(run.answer_tags_of(1).unwrap(), Vec::<Tag>::new());
    // Nothing to forget is no error.
    run.forget_answer_tags().unwrap();
}

#[test]
fn a_line_torn_by_a_kill_is_skipped() {
    let ws = tempfile::tempdir().unwrap();
    let run = run_dir(ws.path());
    run.keep_answer_tags(3, &[Ok(Event::new("kept"))]).unwrap();
    crate::fsafe::append_line(&run.answer_tags(), b"{\"iteration\":3,\"ev").unwrap();
    // A line with neither an event nor a refusal names no tag.
    crate::fsafe::append_line(&run.answer_tags(), b"{\"iteration\":3}\n").unwrap();
    assert_eq!(run.answer_tags_of(3).unwrap(), vec![Ok(Event::new("kept"))]);
}

#[test]
fn a_refused_tag_is_kept_with_its_reason_in_order_among_the_events() {
    let ws = tempfile::tempdir().unwrap();
    let run = run_dir(ws.path());
    let refused = RefusedTag {
        topic: "for..c".into(),
        why: Refusal::Emit(EmitError::Topic {
            topic: "for..c".into(),
            reason: TopicError::EmptySegment,
        }),
    };
    let reason = refused.why.to_string();
    let tags = [Err(refused), Ok(Event::new("for.c"))];
    run.keep_answer_tags(2, &tags).unwrap();
    let read = run.answer_tags_of(2).unwrap();
    assert_eq!(read.len(), 2, "{read:?}");
    match &read[0] {
        Err(back) => {
            assert_eq!(back.topic, "for..c");
            // Said as it was: the notice reads the same after a kill.
            assert_eq!(back.why.to_string(), reason);
        }
        Ok(event) => panic!("the refused tag came back as {event:?}"),
    }
    assert_eq!(read[1], Ok(Event::new("for.c")));
}

#[test]
fn a_refusal_written_into_the_file_is_read_back_cut_to_its_first_characters() {
    let ws = tempfile::tempdir().unwrap();
    let run = run_dir(ws.path());
    let line = serde_json::json!({
        "iteration": 1,
        "refused": {"topic": "t".repeat(5000), "reason": "r".repeat(50_000)},
    });
    let mut bytes = serde_json::to_vec(&line).unwrap();
    bytes.push(b'\n');
    crate::fsafe::append_line(&run.answer_tags(), &bytes).unwrap();
    let read = run.answer_tags_of(1).unwrap();
    let Some(Err(back)) = read.first() else {
        panic!("{read:?}");
    };
    assert!(
        back.topic.chars().count() <= REFUSED_TOPIC_CHARS + 1,
        "{}",
        back.topic.len()
    );
    let reason = back.why.to_string();
    assert!(
        reason.chars().count() <= MAX_REASON_CHARS + 1,
        "{}",
        reason.len()
    );
}

#[test]
fn an_event_written_into_the_file_is_checked_as_an_inbox_line_is() {
    // A topic `ralph emit` refuses (an escape and a line break in it) and a payload nested
    // past the limit are refused tags, read back with their reason; a good event is kept.
    let ws = tempfile::tempdir().unwrap();
    let run = run_dir(ws.path());
    let mut deep = serde_json::json!("leaf");
    for _ in 0..=crate::event::MAX_PAYLOAD_DEPTH {
        deep = serde_json::json!([deep]);
    }
    for event in [
        serde_json::json!({"topic": "evil\u{1b}[31mred\nx", "payload": "p"}),
        serde_json::json!({"topic": "deep.payload", "payload": deep}),
        serde_json::json!({"topic": "build.done", "payload": "ok"}),
    ] {
        let mut bytes =
            serde_json::to_vec(&serde_json::json!({"iteration": 1, "event": event})).unwrap();
        bytes.push(b'\n');
        crate::fsafe::append_line(&run.answer_tags(), &bytes).unwrap();
    }
    let read = run.answer_tags_of(1).unwrap();
    assert_eq!(read.len(), 3, "{read:?}");
    let reasons: Vec<String> = read[..2]
        .iter()
        .map(|tag| tag.as_ref().expect_err("refused").why.to_string())
        .collect();
    assert!(reasons[0].contains("invalid topic"), "{reasons:?}");
    assert!(reasons[1].contains("nest"), "{reasons:?}");
    assert_eq!(read[2], Ok(Event::with_text("build.done", "ok")));
}
