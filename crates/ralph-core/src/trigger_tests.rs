use super::*;

#[test]
fn patterns_are_whole_segments_or_a_lone_star() {
    let cases = [
        ("build.done", Ok(())),
        ("build.*", Ok(())),
        ("*.done", Ok(())),
        ("review.*.done", Ok(())),
        ("*", Ok(())),
        ("bu*ld.done", Err(TopicError::PartialWildcard)),
        ("build.*x", Err(TopicError::PartialWildcard)),
        ("build..*", Err(TopicError::EmptySegment)),
        ("**", Err(TopicError::PartialWildcard)),
        ("build .*", Err(TopicError::BadChar(' '))),
    ];
    let results: Vec<_> = cases.iter().map(|(t, _)| validate_trigger(t)).collect();
    let want: Vec<_> = cases.iter().map(|(_, r)| r.clone()).collect();
    assert_eq!(results, want);
}

#[test]
fn a_star_segment_takes_exactly_one_segment() {
    let cases = [
        ("build.*", "build.done", true),
        ("build.*", "build", false),
        ("build.*", "build.done.now", false),
        ("build.*", "review.done", false),
        ("*.done", "review.done", true),
        ("*", "anything.at.all", true),
        ("build.done", "build.done", true),
        ("build.done", "build.failed", false),
        // ralph's start and resume go to its coordinator, whatever the patterns say.
        ("task.*", "task.start", false),
        ("*", "task.resume", false),
        ("task.*", "task.ready", true),
    ];
    let got: Vec<bool> = cases.iter().map(|(p, t, _)| matches(p, t)).collect();
    let want: Vec<bool> = cases.iter().map(|(_, _, w)| *w).collect();
    assert_eq!(got, want);
}

#[test]
fn an_exact_trigger_ranks_above_a_pattern_above_a_lone_star() {
    assert!(rank("build.done") > rank("build.*"));
    assert!(rank("build.*") > rank("*"));
    assert_eq!(rank("*.*"), Rank::Segments);
}

#[test]
fn patterns_overlap_when_some_topic_matches_both() {
    assert!(overlap("build.*", "*.done"));
    assert!(overlap("build.*", "build.*"));
    assert!(!overlap("build.*", "review.*"));
    assert!(!overlap("build.*", "build.*.done"));
}
