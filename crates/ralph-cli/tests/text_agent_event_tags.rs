//! ralph-orchestrator's `<event>` tags from an agent whose output is plain text: what it
//! printed is all one text, its prompt included when it prints that back, and the example
//! tag of the hat's instructions is not taken for the agent's.

mod common;

use common::{Workspace, of_type};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// A builder whose instructions, written for ralph-orchestrator, show the tag to end with.
const HATS: &str = r#"event_loop:
  prompt: Build it.
  starting_event: work.start
  max_iterations: 1
hats:
  builder:
    name: Builder
    description: builds
    triggers: [work.start]
    publishes: [build.done]
    instructions: 'You are the builder. End your answer with <event topic="build.done">what you built</event>'
"#;

/// A run with a custom agent `cli` (its YAML mapping's lines) and the builder hat: the
/// first iteration's history record and the run's notices.
fn run_builder(cli: &str, script: Option<&str>) -> (Value, Vec<Value>) {
    let ws = Workspace::new(&format!("cli:\n{cli}{HATS}"), "");
    if let Some(script) = script {
        std::fs::write(ws.path().join("agent.sh"), script).expect("agent.sh");
    }
    let (_, events, stderr) = ws.run_json(&[]);
    let history = ws.history();
    let first = history
        .first()
        .unwrap_or_else(|| panic!("no history: {stderr}"));
    let notices = of_type(&events, "notice").into_iter().cloned().collect();
    (first.clone(), notices)
}

#[test]
fn an_agent_that_prints_its_prompt_back_publishes_nothing_from_the_example_tag() {
    let cli = "  backend: custom\n  command: cat\n  prompt_mode: stdin\n";
    let (record, notices) = run_builder(cli, None);
    // No event, so no count of those from tags either.
    assert_eq!(
        (&record["events"], &record["from_tags"]),
        (&json!([]), &Value::Null),
        "{record}"
    );
    let ignored: Vec<_> = notices
        .iter()
        .filter(|n| n["notice"] == "event_tag_ignored")
        .collect();
    assert_eq!(ignored.len(), 1, "{notices:?}");
    assert_eq!(ignored[0]["topic"], "build.done");
    let reason = ignored[0]["reason"].as_str().expect("reason");
    assert!(
        reason.contains("the prompt ralph sent holds the same tag"),
        "{reason}"
    );
}

#[test]
fn a_tag_of_its_own_after_the_prompt_it_printed_back_is_read() {
    let cli = "  backend: custom\n  command: sh\n  args: [agent.sh]\n  prompt_mode: stdin\n";
    let script =
        "cat\necho 'Built the parser.'\necho '<event topic=\"build.done\">the parser</event>'\n";
    let (record, _) = run_builder(cli, Some(script));
    assert_eq!(
        (&record["events"], &record["from_tags"]),
        (
            &json!([{"topic": "build.done", "payload": "the parser"}]),
            &json!(1)
        ),
        "{record}"
    );
}

#[test]
fn the_run_event_says_which_of_the_agent_s_events_came_from_tags() {
    let ws = Workspace::new(
        &format!(
            "cli:\n  backend: custom\n  command: sh\n  args: [agent.sh]\n  \
             prompt_mode: stdin\n{HATS}"
        ),
        "",
    );
    let script = "cat >/dev/null\n\"$RALPH_BIN\" emit build.note emitted\n\
                  echo '<event topic=\"build.done\">tagged</event>'\n";
    std::fs::write(ws.path().join("agent.sh"), script).expect("agent.sh");
    let (_, events, stderr) = ws.run_json(&[]);
    let emitted = of_type(&events, "events_emitted");
    assert_eq!(emitted.len(), 1, "{stderr}");
    // `ralph emit`'s first, then the tag's: the last `from_tags` of them came from tags.
    assert_eq!(
        (&emitted[0]["events"], &emitted[0]["from_tags"]),
        (
            &json!([
                {"topic": "build.note", "payload": "emitted"},
                {"topic": "build.done", "payload": "tagged"}
            ]),
            &json!(1)
        ),
        "{stderr}"
    );
}
