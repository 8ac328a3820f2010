use super::*;

#[test]
fn accepts_upstream_style_topics() {
    let topics = [
        "task.start",
        "review.changes_requested",
        "LOOP_COMPLETE",
        "all_steps.done",
        "build-v2.done",
    ];
    let results: Vec<_> = topics.iter().map(|t| validate_topic(t)).collect();
    assert_eq!(results, vec![Ok(()); topics.len()]);
}

#[test]
fn rejects_malformed_topics_with_the_reason() {
    let long = "a".repeat(MAX_TOPIC_LEN + 1);
    let cases = [
        ("", TopicError::Empty),
        (long.as_str(), TopicError::TooLong(MAX_TOPIC_LEN + 1)),
        ("build done", TopicError::BadChar(' ')),
        ("build.*", TopicError::Wildcard),
        ("*", TopicError::Wildcard),
        (".start", TopicError::EmptySegment),
        ("build..done", TopicError::EmptySegment),
        ("done.", TopicError::EmptySegment),
        ("réview", TopicError::BadChar('é')),
    ];
    let results: Vec<_> = cases.iter().map(|(t, _)| validate_topic(t)).collect();
    let expected: Vec<_> = cases.iter().map(|(_, e)| Err(e.clone())).collect();
    assert_eq!(results, expected);
}

#[test]
fn a_topic_that_surely_meant_the_promise_misses_it() {
    for near in [
        "loop_complete",
        "Loop_Complete",
        "LOOP-COMPLETE",
        "loop.complete",
        " LOOP_COMPLETE",
        "LOOP_COMPLETE\n",
    ] {
        assert!(misses_promise(near, "LOOP_COMPLETE"), "{near:?}");
    }
    // The promise itself, and topics that only share words with it, do not.
    for other in [
        "LOOP_COMPLETE",
        "LOOP_COMPLETED",
        "loop",
        "task.complete",
        "",
    ] {
        assert!(!misses_promise(other, "LOOP_COMPLETE"), "{other:?}");
    }
    // Another promise is what is compared.
    assert!(misses_promise("all_done", "ALL_DONE"));
    assert!(!misses_promise("loop_complete", "ALL_DONE"));
}
