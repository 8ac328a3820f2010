//! An agent the system will not start (its `#!` interpreter missing, its execute bit
//! gone): the loop stops at that first failure with the cause, rather than failing
//! `max_consecutive_failures` times in a row in an instant.

mod common;

use std::os::unix::fs::PermissionsExt;

use common::{Workspace, code, finished};
use serde_json::Value;

/// A custom agent `./agent.sh` with `body` after its `#!` line `shebang`, executable.
fn custom_agent(shebang: &str, body: &str) -> Workspace {
    let ws = Workspace::new(
        "cli:\n  backend: custom\n  command: ./agent.sh\nevent_loop:\n  max_iterations: 10\n  \
         max_consecutive_failures: 3\n",
        "",
    );
    let agent = ws.path().join("agent.sh");
    std::fs::write(&agent, format!("#!{shebang}\n{body}\n")).expect("write the agent");
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    ws
}

#[test]
fn an_agent_whose_interpreter_is_missing_stops_the_loop_at_once_with_why() {
    let ws = custom_agent("/nonexistent/interpreter", "echo never");
    let (status, events, stderr) = ws.run_json(&["-p", "task"]);
    let end: &Value = finished(&events);
    assert_eq!(status, 1, "{stderr}");
    assert_eq!(end["reason"], "agent_cannot_start", "{end}");
    assert_eq!(end["hat"], "ralph", "{end}");
    assert_eq!(end["backend"], "custom", "{end}");
    let why = end["why"].as_str().unwrap_or_default();
    assert!(
        why.contains("could not start `")
            && why.contains("agent.sh`")
            && why.contains("interpreter `/nonexistent/interpreter`"),
        "{end}"
    );
    let message = end["message"].as_str().unwrap_or_default();
    assert!(message.contains("ralph run --continue"), "{end}");
    assert_eq!(ws.outcomes(), vec!["failed"]);
}

#[test]
fn an_agent_that_loses_its_execute_bit_stops_the_loop_at_the_next_start() {
    // The first iteration works, and takes its own execute bit away.
    let ws = custom_agent(
        "/bin/sh",
        "chmod -x \"$0\"\necho working\nralph emit step.done",
    );
    let (status, events, stderr) = ws.run_json(&["-p", "task"]);
    let end = finished(&events);
    assert_eq!(
        (status, &end["reason"]),
        (1, &Value::from("agent_cannot_start")),
        "{stderr}"
    );
    assert!(
        end["why"]
            .as_str()
            .unwrap_or_default()
            .contains("ermission denied"),
        "{end}"
    );
    assert_eq!(ws.outcomes(), vec!["succeeded", "failed"]);
    let text = ws.run(&["runs"]);
    assert_eq!(code(text.status), 0);
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("agent_cannot_start"),
        "{}",
        String::from_utf8_lossy(&text.stdout)
    );
}
