//! docs/events.md documents every event type, and nothing else.

use std::collections::BTreeSet;

use ralph_stream::AgentEvent;

#[test]
fn every_event_type_is_documented_and_every_documented_type_exists() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/events.md"))
        .unwrap();
    let documented: BTreeSet<String> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("### `"))
        .filter_map(|l| l.strip_suffix('`'))
        .map(str::to_owned)
        .collect();
    let actual: BTreeSet<String> = AgentEvent::examples()
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(documented, actual);
}

#[test]
fn unknown_fields_are_null_not_missing() {
    let value = serde_json::to_value(AgentEvent::RunFinished {
        is_error: false,
        error: None,
        turns: None,
        duration_ms: None,
        totals: None,
    })
    .unwrap();
    assert_eq!(
        value,
        serde_json::json!({"type": "run_finished", "is_error": false, "error": null, "turns": null, "duration_ms": null, "totals": null})
    );
}
