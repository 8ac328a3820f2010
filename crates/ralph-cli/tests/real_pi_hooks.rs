//! Lifecycle hooks around the REAL pi against the offline mock model: a hook's
//! `mutate` answer reaches the prompt pi sends to the model (the mock picks its scenario
//! by the metadata's text), and the start and completion hooks get their payloads.

mod real_common;

use std::os::unix::fs::PermissionsExt;

use pretty_assertions::assert_eq;
use real_common::{PI, RealEnv};
use serde_json::Value;

/// The model answers the task only when the prompt carries the hook's ticket.
const SCRIPT: &str = r#"
routes:
  - {contains: "- ticket: ABC-123", scenario: ticketed}
default: plain
scenarios:
  plain:
    - text: "No ticket in the prompt."
  ticketed:
    - shell: echo handled > ticket.txt
    - text: "Ticket handled.\nLOOP_COMPLETE"
"#;

const HOOKS: &str = "\
hooks:
  enabled: true
  events:
    pre.loop.start:
      - {name: record, command: 'cat >> payloads.jsonl', on_error: block}
    pre.iteration.start:
      - {name: ticket, command: [./ticket.sh], on_error: block, mutate: {enabled: true}}
    post.loop.complete:
      - {name: record, command: 'cat >> payloads.jsonl', on_error: warn}
";

#[test]
fn pi_sees_what_a_hook_added_and_the_hooks_see_the_run() {
    let Some(env) = RealEnv::start(SCRIPT, &[PI]) else {
        return;
    };
    env.write_pi_config(&format!("event_loop:\n  max_iterations: 2\n{HOOKS}"));
    let ticket = env.ws().join("ticket.sh");
    std::fs::write(
        &ticket,
        "#!/bin/sh\ncat > /dev/null\necho '{\"metadata\": {\"ticket\": \"ABC-123\"}}'\n",
    )
    .expect("hook script");
    std::fs::set_permissions(&ticket, std::fs::Permissions::from_mode(0o755)).expect("chmod");

    let run = env.run_json(&["-p", "Handle the ticket."]);
    run.assert_ending("completed", 0, 0);
    assert_eq!(env.file("ticket.txt"), Some("handled\n".to_owned()));
    let scenarios: Vec<String> = env.model_turns().into_iter().map(|t| t.0).collect();
    assert_eq!(scenarios, ["ticketed", "ticketed"]);
    let hooks: Vec<(String, String, String)> = run
        .of_type("hook_finished")
        .into_iter()
        .map(|e| {
            (
                e["hook"].as_str().unwrap_or_default().to_owned(),
                e["phase"].as_str().unwrap_or_default().to_owned(),
                e["action"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        hooks,
        [
            ("record".into(), "pre.loop.start".into(), "continue".into()),
            (
                "ticket".into(),
                "pre.iteration.start".into(),
                "continue".into()
            ),
            (
                "record".into(),
                "post.loop.complete".into(),
                "continue".into()
            ),
        ]
    );
    let payloads: Vec<Value> = env
        .file("payloads.jsonl")
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON payload"))
        .collect();
    assert_eq!(payloads.len(), 2);
    assert_eq!(payloads[0]["phase_event"], "pre.loop.start");
    let end = &payloads[1];
    assert_eq!(end["phase_event"], "post.loop.complete");
    assert_eq!(end["backend"], Value::Null);
    assert_eq!(end["stop"]["reason"], "completed");
    assert_eq!(end["totals"]["iterations"], 1);
    assert_eq!(end["metadata"]["accumulated"]["ticket"], "ABC-123");
}
