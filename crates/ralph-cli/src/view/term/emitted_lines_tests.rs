//! The text view's lines for an iteration's events.

use super::*;

fn topic(event: &Event) -> String {
    event.topic.clone()
}

#[test]
fn the_events_read_from_tags_are_marked_as_such() {
    let events = [
        Event::new("by.emit"),
        Event::new("build.done"),
        Event::new("LOOP_COMPLETE"),
    ];
    let lines = emitted(
        &events,
        2,
        &["build.done".to_owned()],
        &["LOOP_COMPLETE".to_owned()],
        topic,
    );
    assert_eq!(
        lines,
        [
            "⇢ emitted by.emit",
            "⇢ emitted (tag) build.done ✓ verified",
            "⇢ emitted (tag) LOOP_COMPLETE ✗ withheld (gate failed)",
        ]
    );
}

#[test]
fn without_tags_nothing_is_marked_and_a_count_past_the_events_marks_them_all() {
    let events = [Event::new("a"), Event::new("b")];
    assert_eq!(
        emitted(&events, 0, &[], &[], topic),
        ["⇢ emitted a", "⇢ emitted b"]
    );
    // A record's count is the workspace's: more than there are events marks them all.
    assert_eq!(
        emitted(&events, 7, &[], &[], topic),
        ["⇢ emitted (tag) a", "⇢ emitted (tag) b"]
    );
}
