//! Each iteration keeps its transcript under `.ralph/runs/<id>/iterations/<n>/`, and the
//! commands that look back read it: `ralph inspect --run`, `ralph runs`, `ralph events
//! --run`, `ralph runs prune`.

mod common;

use std::path::{Path, PathBuf};

use common::Workspace;
use pretty_assertions::assert_eq;
use serde_json::Value;

const TWO_ITERATIONS: &str = "pi/anthropic/text.jsonl | step.done | stderr=a_warning\n\
                              pi/anthropic/tools3.jsonl | LOOP_COMPLETE |\n";

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(path)
}

fn iteration_dir(ws: &Workspace, n: u32) -> PathBuf {
    ws.run_files().dir().join("iterations").join(n.to_string())
}

fn json(out: &std::process::Output) -> Value {
    ralph_test_support::success_json(out)
}

#[test]
fn each_iteration_keeps_its_prompt_raw_output_stderr_and_command() {
    let ws = Workspace::new("cli:\n  backend: pi\n", TWO_ITERATIONS);
    let out = ws.run(&["run", "-p", "the task"]);
    assert_eq!(common::code(out.status), 0);
    for n in 1..=2u32 {
        let dir = iteration_dir(&ws, n);
        let prompt = std::fs::read_to_string(dir.join("prompt.md")).unwrap();
        // The exact prompt the agent read on its stdin.
        assert_eq!(prompt, ws.prompt(n as usize));
        let raw = zstd::decode_all(std::fs::File::open(dir.join("stdout.zst")).unwrap()).unwrap();
        let fixture_name = if n == 1 { "text" } else { "tools3" };
        let expected =
            std::fs::read(fixture(&format!("pi/anthropic/{fixture_name}.jsonl"))).unwrap();
        assert_eq!(raw, expected, "iteration {n}'s raw stream");
        // Only an agent that wrote to stderr leaves a `stderr.txt`.
        let stderr = std::fs::read_to_string(dir.join("stderr.txt")).ok();
        let expected = (n == 1).then(|| "a warning\n".to_owned());
        assert_eq!(stderr, expected, "iteration {n}'s stderr");
        let command: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("command.json")).unwrap())
                .unwrap();
        assert_eq!(command["iteration"], n);
        assert_eq!(command["backend"], "pi");
        assert_eq!(command["prompt_on_stdin"], true);
        let set: Vec<&str> = command["env_set"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(set.contains(&"RALPH_EVENTS_FILE"), "{set:?}");
        assert!(set.contains(&"RALPH_ITERATION"), "{set:?}");
    }
}

#[test]
fn the_command_file_names_the_environment_but_never_its_values() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let secret = "sk-very-secret-value-0123456789";
    let out = ws
        .command(&["run", "-p", "task"])
        .env("SOME_API_KEY", secret)
        .output()
        .unwrap();
    assert_eq!(common::code(out.status), 0);
    let dir = iteration_dir(&ws, 1);
    let command = std::fs::read_to_string(dir.join("command.json")).unwrap();
    assert!(command.contains("\"SOME_API_KEY\""), "{command}");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let text = if path.extension().is_some_and(|e| e == "zst") {
            zstd::decode_all(bytes.as_slice()).unwrap()
        } else {
            bytes
        };
        assert!(
            !String::from_utf8_lossy(&text).contains(secret),
            "{} holds the secret",
            path.display()
        );
    }
}

#[test]
fn inspect_reads_a_kept_transcript_as_it_reads_the_captured_file() {
    let ws = Workspace::new("cli:\n  backend: pi\n", TWO_ITERATIONS);
    assert_eq!(common::code(ws.run(&["run", "-p", "task"]).status), 0);
    let file = fixture("pi/anthropic/tools3.jsonl");
    let from_file = json(&ws.run(&["inspect", file.to_str().unwrap()]));
    let kept = json(&ws.run(&["inspect", "--run", "last", "--iteration", "2"]));
    assert_eq!(kept, from_file);
    let id = ws.run_files().id();
    let by_id = json(&ws.run(&["inspect", "--run", &id, "--iteration", "2"]));
    assert_eq!(by_id, from_file);
    // The views are the same too.
    let view = |args: &[&str]| {
        let out = ws.run(args);
        assert!(out.status.success());
        out.stdout
    };
    assert_eq!(
        view(&["inspect", "--run", "last", "--iteration", "2", "--events"]),
        view(&["inspect", "--events", file.to_str().unwrap()])
    );
    assert_eq!(
        view(&[
            "inspect",
            "--run",
            "last",
            "--iteration",
            "2",
            "--view",
            "--color",
            "never"
        ]),
        view(&[
            "inspect",
            "--view",
            "--color",
            "never",
            file.to_str().unwrap()
        ])
    );
}

#[test]
fn inspect_reads_a_custom_agents_plain_text_as_the_run_did() {
    let ws = Workspace::new(
        "cli:\n  backend: custom\n  command: sh\n  args: [agent.sh]\n  prompt_mode: stdin\n",
        "",
    );
    std::fs::write(
        ws.path().join("agent.sh"),
        "cat > /dev/null\necho 'all done here'\nralph emit LOOP_COMPLETE > /dev/null\n",
    )
    .unwrap();
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 0, "{stderr}");
    let ran: Vec<Value> = common::of_type(&events, "agent")
        .into_iter()
        .map(|e| e["event"].clone())
        .collect();
    let kept = json(&ws.run(&["inspect", "--run", "last", "--iteration", "1"]));
    assert_eq!(kept["agent"], "text", "{kept}");
    assert_eq!(kept["final_text"], "all done here", "{kept}");
    assert_eq!(kept["non_json_lines"], 0, "{kept}");
    // The events are those the run decoded from the same stream.
    let out = ws.run(&["inspect", "--run", "last", "--iteration", "1", "--events"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let read: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(read, ran);
}

#[test]
fn inspect_views_a_capture_attempt_by_attempt_under_headers() {
    let ws = Workspace::new("cli:\n  backend: pi\n", TWO_ITERATIONS);
    assert_eq!(common::code(ws.run(&["run", "-p", "task"]).status), 0);
    let capture = ws.run_files().dir().join("run-events.jsonl");
    let out = ws.run(&[
        "inspect",
        "--view",
        "--color",
        "never",
        capture.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("── ")).collect();
    assert_eq!(
        headers,
        [
            "── iteration 1 · ralph · pi ──",
            "── iteration 2 · ralph · pi ──"
        ],
        "{text}"
    );
    // Each iteration's prompt is its own, not a message the agent read while it ran.
    assert!(!text.contains("✉"), "{text}");
}

#[test]
fn inspect_says_when_a_run_or_transcript_is_missing() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    assert_eq!(common::code(ws.run(&["run", "-p", "task"]).status), 0);
    // An iteration the run never reached is not blamed on its transcript.
    let out = ws.run(&["inspect", "--run", "last", "--iteration", "7"]);
    assert_eq!(common::code(out.status), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("has no iteration 7: it has iteration 1 only"),
        "{stderr}"
    );
    // One it ran whose stream is gone is.
    let kept = ws.run_files().dir().join("iterations/1/stdout.zst");
    std::fs::remove_file(&kept).unwrap();
    let out = ws.run(&["inspect", "--run", "last", "--iteration", "1"]);
    assert_eq!(common::code(out.status), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("keeps no raw output of iteration 1"),
        "{stderr}"
    );
    let out = ws.run(&["inspect", "--run", "20000101T000000Z", "--iteration", "1"]);
    assert_eq!(common::code(out.status), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("`ralph runs` lists them"));
    let out = ws.run(&["inspect", "--run", "../x", "--iteration", "1"]);
    assert_eq!(common::code(out.status), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a run id"));
}

#[test]
fn inspect_reads_ralphs_own_output_json_capture() {
    let ws = Workspace::new("cli:\n  backend: pi\n", TWO_ITERATIONS);
    let out = ws.run(&["run", "--output", "json", "-p", "task"]);
    assert_eq!(common::code(out.status), 0);
    let capture = ws.path().join("capture.jsonl");
    std::fs::write(&capture, &out.stdout).unwrap();
    let capture = capture.to_str().unwrap();
    for (n, name) in [(1, "text"), (2, "tools3")] {
        let file = fixture(&format!("pi/anthropic/{name}.jsonl"));
        let mut from_file = json(&ws.run(&["inspect", file.to_str().unwrap()]));
        let mut from_capture = json(&ws.run(&["inspect", "--iteration", &n.to_string(), capture]));
        // The capture's lines are ralph's, not the agent's.
        from_file.as_object_mut().unwrap().remove("lines");
        from_capture.as_object_mut().unwrap().remove("lines");
        assert_eq!(from_capture, from_file, "iteration {n}");
    }
    // The whole run: every iteration's events, summed.
    let all = json(&ws.run(&["inspect", capture]));
    assert_eq!(all["agent"], "pi");
    assert!(all["turns"].as_u64().unwrap() >= 2);
    // `--iteration` on an agent's own stream makes no sense, and says so.
    let file = fixture("pi/anthropic/text.jsonl");
    let out = ws.run(&["inspect", "--iteration", "1", file.to_str().unwrap()]);
    assert_eq!(common::code(out.status), 1);
}

#[test]
fn runs_lists_the_runs_newest_first_and_events_reads_an_older_one() {
    let config = "cli:\n  backend: pi\nhats:\n  builder:\n    description: builds\n    triggers: [work.start]\n    publishes: [LOOP_COMPLETE]\nevent_loop:\n  starting_event: work.start\n";
    let ws = Workspace::new(config, "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n");
    assert_eq!(common::code(ws.run(&["run", "-p", "one"]).status), 0);
    let first = ws.run_files().id();
    // Run ids are seconds: the second run gets `-2` if it starts in the same second.
    assert_eq!(common::code(ws.run(&["run", "-p", "two"]).status), 0);
    let out = ws.run(&["runs", "--format", "json"]);
    assert!(out.status.success());
    let rows: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1]["id"], first.as_str());
    assert_ne!(rows[0]["id"], first.as_str());
    for row in &rows {
        assert_eq!(row["outcome"], "completed");
        assert_eq!(row["iterations"], 1);
        assert_eq!(
            row["hats"],
            serde_json::json!([{"hat": "builder", "iterations": 1}])
        );
        assert!(row["cost_usd"].as_f64().unwrap() > 0.0);
        assert!(row["tokens"].as_u64().unwrap() > 0);
        assert!(row["started_at_ms"].as_u64().unwrap() <= row["ended_at_ms"].as_u64().unwrap());
    }
    let table = String::from_utf8(ws.run(&["runs"]).stdout).unwrap();
    assert!(table.starts_with("RUN "), "{table}");
    assert!(
        table.contains(&first) && table.contains("builder×1"),
        "{table}"
    );

    let out = ws.run(&["events", "--run", &first, "--format", "json"]);
    assert!(out.status.success());
    let row: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(row["topic"], "LOOP_COMPLETE");
    let out = ws.run(&["events", "--run", "nope"]);
    assert_eq!(common::code(out.status), 1);
}

#[test]
fn prune_keeps_the_newest_runs_and_the_current_one() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    for task in ["a", "b", "c"] {
        assert_eq!(common::code(ws.run(&["run", "-p", task]).status), 0);
    }
    let runs = ws.path().join(".ralph/runs");
    let mut ids: Vec<String> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    ids.sort();
    assert_eq!(ids.len(), 3);
    // Directories of the user's own beside the runs: not runs, so neither listed nor
    // pruned, and `zzz` (which sorts after every run id) does not take the newest's
    // place.
    for own in ["0-my-notes", "zzz"] {
        std::fs::create_dir(runs.join(own)).unwrap();
        std::fs::write(runs.join(own).join("notes.md"), "mine").unwrap();
    }
    let listed = ws.run(&["runs", "--format", "json"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        !listed.contains("my-notes") && !listed.contains("zzz"),
        "{listed}"
    );
    let out = ws.run(&["runs", "prune", "--keep", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let left: Vec<String> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let mut left = left;
    left.sort();
    let current = ws.run_files().id();
    assert_eq!(left, ["0-my-notes".to_owned(), current, "zzz".to_owned()]);
    // Keeping none still keeps the current run: `--continue` resumes it.
    assert!(ws.run(&["runs", "prune", "--keep", "0"]).status.success());
    assert_eq!(std::fs::read_dir(&runs).unwrap().count(), 3);
    assert!(runs.join("0-my-notes/notes.md").is_file());
}

#[test]
fn past_the_cap_the_oldest_raw_streams_go_and_prompts_stay() {
    // Each compressed tools.jsonl stream is well over 64 bytes: only the last stays.
    let config = "cli:\n  backend: pi\ntranscripts:\n  max_bytes_per_run: 64\n";
    let plan = "pi/anthropic/tools3.jsonl | a |\npi/anthropic/tools3.jsonl | b |\npi/anthropic/tools3.jsonl | LOOP_COMPLETE |\n";
    let ws = Workspace::new(config, plan);
    let out = ws.run(&["run", "-p", "task"]);
    assert_eq!(common::code(out.status), 0);
    for n in 1..=3 {
        let dir = iteration_dir(&ws, n);
        assert!(dir.join("prompt.md").is_file() && dir.join("command.json").is_file());
        assert_eq!(dir.join("stdout.zst").exists(), n == 3, "iteration {n}");
    }
    let run_events = ws.run_files().dir().join("run-events.jsonl");
    assert!(
        std::fs::read_to_string(run_events)
            .unwrap()
            .contains("\"iteration\":1")
    );
}

#[test]
fn transcripts_can_be_turned_off() {
    let config = "cli:\n  backend: pi\ntranscripts:\n  enabled: false\n";
    let ws = Workspace::new(config, "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n");
    assert_eq!(common::code(ws.run(&["run", "-p", "task"]).status), 0);
    assert!(!ws.run_files().dir().join("iterations").exists());
}

#[test]
fn a_running_run_is_listed_as_running_and_interrupted_once_stopped() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | | hang=60\n",
    );
    let child = ws.start(&["run", "-p", "task"]);
    ws.wait_for_agent(1);
    let outcome = |ws: &Workspace| {
        let out = ws.run(&["runs", "--format", "json"]);
        assert!(out.status.success());
        let row: Value = serde_json::from_slice(&out.stdout).expect("one run");
        row["outcome"].as_str().unwrap().to_owned()
    };
    assert_eq!(outcome(&ws), "running");
    // The running run is the current one: prune keeps it whatever N says.
    assert!(ws.run(&["runs", "prune", "--keep", "0"]).status.success());
    let out = ws.stop(child, nix::sys::signal::Signal::SIGINT);
    assert_eq!(common::code(out.status), 130);
    assert_eq!(outcome(&ws), "interrupted");
}
