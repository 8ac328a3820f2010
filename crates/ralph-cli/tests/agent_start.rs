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

/// A `#!` interpreter that is not there is read before the loop starts (as doctor reads
/// it): the run refuses with the cause, and no iteration fails for it.
#[test]
fn an_agent_whose_interpreter_is_missing_is_refused_before_the_loop_with_why() {
    for (shebang, named) in [
        (
            "/nonexistent/interpreter",
            "names `/nonexistent/interpreter`, which is not there",
        ),
        // Every npm-installed agent's line, with node not on PATH.
        (
            "/usr/bin/env ralph-no-such-node",
            "runs `ralph-no-such-node`, which was not found on PATH",
        ),
    ] {
        let ws = custom_agent(shebang, "echo never");
        let (status, events, stderr) = ws.run_json(&["-p", "task"]);
        assert_eq!(status, 1, "{stderr}");
        let last = events.last().expect("an event");
        assert_eq!(last["type"], "error", "{last}");
        let message = last["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("runs `./agent.sh`, which cannot run") && message.contains(named),
            "{last}"
        );
        // Refused before a run began: nothing of one is left.
        assert!(!ws.path().join(".ralph/runs").exists(), "a run began");
        // doctor says the same, and that a run would not start.
        let doctor = ws.run(&["doctor"]);
        let said = String::from_utf8_lossy(&doctor.stdout);
        assert_eq!(code(doctor.status), 1, "{said}");
        assert!(said.contains(named), "{said}");
    }
}

/// A command that is there but is no program: said as such, not as "not installed".
#[test]
fn a_command_that_is_a_directory_or_not_executable_says_so() {
    let ws = custom_agent("/bin/sh", "echo never");
    std::fs::create_dir(ws.path().join("adir")).expect("mkdir");
    let agent = ws.path().join("agent.sh");
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    for (command, said) in [
        (
            "./agent.sh",
            "`./agent.sh` is not executable; make it so with `chmod +x ./agent.sh`",
        ),
        ("./adir", "`./adir` is a directory, not a program"),
    ] {
        let config = format!("cli:\n  backend: custom\n  command: {command}\n");
        std::fs::write(ws.path().join("ralph.yml"), config).expect("write ralph.yml");
        let out = ws.run(&["run", "-q", "-p", "task"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(code(out.status), 1, "{err}");
        assert!(err.contains(said) && !err.contains("not found"), "{err}");
    }
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
