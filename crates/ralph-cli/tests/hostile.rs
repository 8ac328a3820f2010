//! `ralph run` in a workspace that something else damages: the agent, a person, or a
//! cloned repository can put anything under `.ralph/`.

mod common;

use common::{Workspace, finished, of_type};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

#[test]
fn a_saved_inbox_offset_past_the_end_is_noticed_and_the_promise_still_completes() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | step=one |\npi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let (code, _, _) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!(code, 2);
    // Damage the saved state: the offset now lies far past the end of the inbox.
    let state_path = ws.run_files().dir().join("state.json");
    let mut state: Value =
        serde_json::from_str(&std::fs::read_to_string(&state_path).expect("state")).expect("JSON");
    state["inbox_offset"] = json!(1_000_000);
    std::fs::write(&state_path, state.to_string()).expect("write state");

    let (code, events, stderr) = ws.run_json(&["--continue", "--max-iterations", "3"]);
    assert_eq!(
        (code, finished(&events)["reason"].clone()),
        (0, json!("completed")),
        "{stderr}"
    );
    let restarted: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "notice" && e["notice"] == "inbox_restarted")
        .collect();
    assert_eq!(restarted.len(), 1, "{events:?}");
    assert_eq!(
        (&restarted[0]["cause"], &restarted[0]["offset"]),
        (&json!("shrunk"), &json!(1_000_000))
    );
}

/// An escape sequence that retitles the terminal, a bell, and a right-to-left override.
const HOSTILE: &str = "\u{1b}]0;pwned\u{7} \u{202e}desrever";

/// What each view must show instead: the characters as escapes.
const SHOWN: &str = "\\u{1b}]0;pwned\\u{7} \\u{202e}desrever";

/// Whether `text` holds a control character other than newline, tab and the style
/// sequences ralph writes itself (`ESC [ … m`), or a bidirectional override.
fn acts_on_a_terminal(text: &str) -> bool {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => {}
            '\u{1b}' => {
                // ralph's own colours: CSI parameters then `m`.
                if chars.next() != Some('[') {
                    return true;
                }
                loop {
                    match chars.next() {
                        Some('m') => break,
                        Some(c) if c.is_ascii_digit() || c == ';' => {}
                        _ => return true,
                    }
                }
            }
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => return true,
            c if c.is_control() => return true,
            _ => {}
        }
    }
    false
}

#[test]
fn nothing_an_agent_writes_reaches_the_terminal_raw() {
    // The agent prints the sequence as its answer (text output) and publishes it as an
    // event's payload.
    let ws = Workspace::new(
        "cli:\n  backend: custom\n  command: sh\n  args: [\"-c\", \"printf '%s\\\\n' \\\"$HOSTILE\\\"; \
         ralph emit note \\\"$HOSTILE\\\"\"]\nevent_loop:\n  max_iterations: 1\n",
        "",
    );
    let out = ws
        .command(&["run", "-p", "task", "--color", "always", "-v"])
        .env("HOSTILE", HOSTILE)
        .output()
        .expect("ralph run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!acts_on_a_terminal(&stdout), "{stdout:?}");
    assert!(stdout.contains(SHOWN), "{stdout}");

    let out = ws.run(&["events"]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(!acts_on_a_terminal(&table), "{table:?}");
    assert!(table.contains("\\u{1b}]0;pwned"), "{table}");

    let summary = ws.run_files().summary();
    assert!(!acts_on_a_terminal(&summary), "{summary:?}");
}

#[test]
fn a_config_error_shows_the_characters_it_quotes_as_escapes() {
    let ws = Workspace::new("cli:\n  back\u{202e}end: pi\n", "");
    let out = ws.run(&["run", "-p", "task"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!acts_on_a_terminal(&stderr), "{stderr:?}");
    assert!(stderr.contains("back\\u{202e}end"), "{stderr}");
}

#[test]
fn continue_keeps_the_limits_given_on_the_command_line() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 7\n",
        "pi/anthropic/text.jsonl | step=one |\n",
    );
    let limit = |events: &[Value]| events[0]["limits"]["max_iterations"].clone();
    let (code, events, _) = ws.run_json(&["-p", "task", "--max-iterations", "2"]);
    assert_eq!((code, limit(&events)), (2, json!(2)));
    // Not ralph.yml's 7: the run was started with 2, and 2 are done.
    let (code, events, _) = ws.run_json(&["--continue"]);
    assert_eq!((code, limit(&events)), (2, json!(2)));
    assert_eq!(ws.history().len(), 2);
    // A new flag wins, and is what the next --continue keeps.
    let (code, events, _) = ws.run_json(&["--continue", "--max-iterations", "3"]);
    assert_eq!((code, limit(&events)), (2, json!(3)));
    let (_, events, _) = ws.run_json(&["--continue"]);
    assert_eq!(limit(&events), json!(3));
    assert_eq!(ws.history().len(), 3);
}

/// `-b` too: resuming a run on ralph.yml's (or auto's) agent would change its costs and
/// credentials without a word.
#[test]
fn continue_keeps_the_backend_given_on_the_command_line() {
    let ws = Workspace::new(
        "cli:\n  backend: claude\n",
        "pi/anthropic/text.jsonl | step=one |\npi/anthropic/text.jsonl | step=two |\n",
    );
    let backends = |events: &[Value]| -> Vec<Value> {
        of_type(events, "iteration_started")
            .iter()
            .map(|e| e["backend"].clone())
            .collect()
    };
    let (code, events, stderr) = ws.run_json(&["-p", "task", "-b", "pi", "--max-iterations", "1"]);
    assert_eq!(
        (code, backends(&events)),
        (2, vec![json!("pi")]),
        "{stderr}"
    );
    let (code, events, stderr) = ws.run_json(&["--continue", "--max-iterations", "2"]);
    assert_eq!(
        (code, backends(&events)),
        (2, vec![json!("pi")]),
        "{stderr}"
    );
}

#[test]
fn a_crash_between_history_and_state_does_not_record_an_iteration_twice() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | step=one |\n",
    );
    let (code, _, _) = ws.run_json(&["-p", "task", "--max-iterations", "2"]);
    assert_eq!(code, 2);
    // As if ralph died after appending iteration 2's record but before saving the state:
    // the state still says one iteration, and a stray byte tore nothing else.
    let state_path = ws.run_files().dir().join("state.json");
    let mut state: Value =
        serde_json::from_str(&std::fs::read_to_string(&state_path).expect("state")).expect("JSON");
    state["state"]["iterations"] = json!(1);
    std::fs::write(&state_path, state.to_string()).expect("write state");

    let (code, _, stderr) = ws.run_json(&["--continue", "--max-iterations", "2"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("dropped, to run again"), "{stderr}");
    let iterations: Vec<Value> = ws
        .history()
        .iter()
        .map(|r| r["iteration"].clone())
        .collect();
    assert_eq!(iterations, vec![json!(1), json!(2)]);
}

#[test]
fn ralph_events_skips_a_damaged_history_line_and_says_so() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | step=one |\n",
    );
    let (code, _, _) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!(code, 2);
    let history = ws.run_files().dir().join("history.jsonl");
    let mut bytes = std::fs::read(&history).expect("history");
    bytes.extend_from_slice(b"{\"iteration\":\xff\n");
    std::fs::write(&history, bytes).expect("write history");
    let out = ws.run(&["events", "--format", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("skipped 1 damaged line"), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
}

#[test]
fn an_agent_that_deletes_dot_ralph_neither_lets_a_second_loop_in_nor_loses_the_summary() {
    // The agent wipes `.ralph/` (as `git clean -fdx` would), then works on.
    let ws = Workspace::new(
        "cli:\n  backend: custom\n  command: sh\n  args: [\"-c\", \"rm -rf .ralph && \
         touch .fake/deleted && sleep 2 && echo done\"]\nevent_loop:\n  max_iterations: 1\n",
        "",
    );
    let first = ws.start(&["run", "-p", "task"]);
    let deleted = ws.path().join(".fake/deleted");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !deleted.exists() {
        assert!(std::time::Instant::now() < deadline, "the agent never ran");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let second = ws.run(&["run", "-p", "another task"]);
    let said = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{said}");
    assert!(said.contains("another ralph loop"), "{said}");

    let out = common::wait_output(first);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("recreated it"), "{stderr}");
    assert!(
        ws.run_files().summary().contains("**Stopped:**"),
        "{}",
        ws.run_files().summary()
    );
}

#[test]
fn an_agent_that_deletes_dot_ralph_can_still_complete_and_the_rest_of_the_run_is_recorded() {
    // The agent wipes `.ralph/` mid-iteration, then publishes the promise: the event
    // must reach the loop (not fail on a missing inbox and cost an iteration), and what
    // the run does from there must land in the record that `ralph watch` follows.
    let ws = Workspace::new(
        "cli:\n  backend: custom\n  command: sh\n  args: [\"-c\", \"echo working && rm -rf .ralph \
         && sleep 0.5 && ralph emit LOOP_COMPLETE\"]\nevent_loop:\n  max_iterations: 3\n",
        "",
    );
    let out = ws.run(&["run", "-p", "task"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("recreated it"), "{stderr}");
    let record = std::fs::read_to_string(ws.run_files().dir().join("run-events.jsonl"))
        .expect("the record, recreated");
    let types: Vec<String> = record
        .lines()
        .map(|l| {
            let line: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            line["type"].as_str().unwrap_or_default().to_owned()
        })
        .collect();
    for kind in ["events_emitted", "iteration_finished", "loop_finished"] {
        assert!(types.iter().any(|t| t == kind), "{kind}: {types:?}");
    }
    let finished = record
        .lines()
        .find(|l| l.contains("\"loop_finished\""))
        .expect("loop_finished");
    assert!(finished.contains("\"completed\""), "{finished}");
    assert_eq!(ws.run_files().history().len(), 1, "one iteration");
}

#[test]
fn a_history_whose_numbers_are_at_their_limits_is_still_listed() {
    // `history.jsonl` is a workspace file: `ralph runs` and `ralph events` add to its
    // numbers (the end of the last iteration, the iteration after it).
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    assert_eq!(ws.run(&["run", "-p", "task"]).status.code(), Some(0));
    let path = ws.run_files().dir().join("history.jsonl");
    let mut record: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&path).unwrap().trim()).unwrap();
    record["iteration"] = u32::MAX.into();
    record["started_at_ms"] = u64::MAX.into();
    record["duration_ms"] = u64::MAX.into();
    std::fs::write(&path, format!("{record}\n")).unwrap();
    for args in [["runs"], ["events"]] {
        let out = ws.run(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}
