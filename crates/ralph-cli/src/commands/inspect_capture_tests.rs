use pretty_assertions::assert_eq;
use ralph_stream::AgentEvent;

use super::{Capture, Item, Start};

/// A capture of three attempts: iteration 1 on pi, limited, then on claude; iteration 2
/// on codex. Each attempt's agent says its name.
const CAPTURE: &str = r#"{"type":"loop_started"}
{"type":"iteration_started","iteration":1,"attempt":1,"backend":"pi"}
{"type":"agent","iteration":1,"event":{"type":"text_delta","text":"pi"}}
{"type":"iteration_started","iteration":1,"attempt":2,"backend":"claude"}
{"type":"agent","iteration":1,"event":{"type":"text_delta","text":"claude"}}
{"type":"iteration_started","iteration":2,"attempt":1,"backend":"codex"}
{"type":"agent","iteration":2,"event":{"type":"text_delta","text":"codex"}}
"#;

/// The backend and the texts of what `capture` reads of `input`.
fn read(capture: Capture, input: &str) -> (Option<String>, Vec<String>) {
    let (backend, items) = items(capture, input);
    let texts = items
        .into_iter()
        .filter(|i| !i.starts_with("start "))
        .collect();
    (backend, texts)
}

/// The backend, and what `capture` hands over of `input`: each start as `start` and its
/// iteration, attempt, hat and backend, each text as itself.
fn items(mut capture: Capture, input: &str) -> (Option<String>, Vec<String>) {
    let mut items = Vec::new();
    let mut on_item = |item: Item<'_>| match item {
        Item::Start(Start {
            iteration,
            attempt,
            hat_name,
            backend,
        }) => items.push(format!(
            "start {iteration} {attempt} {hat_name:?} {backend}"
        )),
        Item::Event(AgentEvent::TextDelta { text }) => items.push(text.to_string()),
        Item::Event(_) => {}
    };
    capture.feed(input.as_bytes(), &mut on_item);
    capture.finish(&mut on_item);
    (capture.backend, items)
}

#[test]
fn a_capture_is_read_by_iteration_and_attempt_as_its_lines_number_them() {
    let texts = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    let cases = [
        (None, None, "pi", texts(&["pi", "claude", "codex"])),
        (Some(1), None, "pi", texts(&["pi", "claude"])),
        (Some(1), Some(1), "pi", texts(&["pi"])),
        (Some(1), Some(2), "claude", texts(&["claude"])),
        // Not the second `iteration_started` line: the second iteration.
        (Some(2), None, "codex", texts(&["codex"])),
        (Some(2), Some(1), "codex", texts(&["codex"])),
    ];
    for (iteration, attempt, backend, wanted) in cases {
        assert_eq!(
            read(Capture::new(iteration, attempt), CAPTURE),
            (Some(backend.to_owned()), wanted),
            "--iteration {iteration:?} --attempt {attempt:?}"
        );
    }
    let (backend, none) = read(Capture::new(Some(2), Some(2)), CAPTURE);
    assert_eq!((backend, none), (None, vec![]));
}

#[test]
fn a_capture_from_before_attempts_were_numbered_reads_each_as_the_first() {
    let old = CAPTURE
        .replace(r#""attempt":1,"#, "")
        .replace(r#""attempt":2,"#, "");
    let texts = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    assert_eq!(
        read(Capture::new(Some(1), Some(1)), &old),
        (Some("pi".to_owned()), texts(&["pi", "claude"]))
    );
    assert_eq!(
        read(Capture::new(Some(2), None), &old),
        (Some("codex".to_owned()), texts(&["codex"]))
    );
}

#[test]
fn each_attempt_asked_for_begins_with_its_start_in_the_captures_order() {
    let capture = CAPTURE.replace(
        r#""attempt":2,"backend":"claude""#,
        r#""attempt":2,"hat":"builder","hat_name":"Builder","backend":"claude""#,
    );
    let (_, all) = items(Capture::new(None, None), &capture);
    assert_eq!(
        all,
        [
            "start 1 1 None pi",
            "pi",
            "start 1 2 Some(\"Builder\") claude",
            "claude",
            "start 2 1 None codex",
            "codex"
        ]
    );
    let (_, one) = items(Capture::new(Some(1), Some(2)), &capture);
    assert_eq!(one, ["start 1 2 Some(\"Builder\") claude", "claude"]);
}

#[test]
fn a_line_longer_than_any_run_event_is_skipped_without_being_held() {
    let junk = "\0".repeat(4096);
    let input = format!("{junk}\n{CAPTURE}{junk}");
    let (backend, texts) = read(Capture::with_max_line(1024), &input);
    assert_eq!(backend.as_deref(), Some("pi"));
    assert_eq!(texts, ["pi", "claude", "codex"]);
}
