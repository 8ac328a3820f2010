//! `ralph run` end to end: the real binary in a temporary workspace, with fake `pi` and
//! `claude` binaries that replay real transcripts and publish events with `ralph emit`.

mod common;

use common::THREE_HATS;
use common::{Workspace, code, finished, of_type};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const PI_ARGS: &str = "-p --mode json --no-session";
const CLAUDE_ARGS: &str = "-p --output-format stream-json --include-partial-messages --verbose \
                           --dangerously-skip-permissions";

fn reasons(events: &[Value]) -> (String, i64) {
    let end = finished(events);
    (
        end["reason"].as_str().unwrap_or_default().to_owned(),
        end["exit_code"].as_i64().unwrap_or(-1),
    )
}

#[test]
fn three_hats_with_their_own_backends_hand_over_and_complete() {
    let ws = Workspace::new(
        THREE_HATS,
        "pi/anthropic/text.jsonl | plan.ready=write hello.txt |
claude/v2.1.332_happy_ralph_args.jsonl | build.done=wrote hello.txt | sed=s/LOOP_COMPLETE/Built./
pi/anthropic/tool.jsonl | review.approved=looks good;LOOP_COMPLETE |
",
    );
    let (code, events, stderr) = ws.run_json(&["-p", "Write hello.txt"]);
    assert_eq!(
        (code, reasons(&events)),
        (0, ("completed".into(), 0)),
        "{stderr}"
    );
    assert_eq!(
        ws.agent_log(),
        vec![
            format!("1 pi hat=planner iteration=1 bin=ok args={PI_ARGS}"),
            format!("2 claude hat=builder iteration=2 bin=ok args={CLAUDE_ARGS}"),
            format!("3 pi hat=reviewer iteration=3 bin=ok args={PI_ARGS} --model reviewer-model"),
        ]
    );
    let history: Vec<(Value, Value, Value, Value)> = ws
        .history()
        .into_iter()
        .map(|r| {
            (
                r["hat"].clone(),
                r["backend"].clone(),
                r["consumed"].clone(),
                r["events"].clone(),
            )
        })
        .collect();
    assert_eq!(
        history,
        vec![
            (
                json!("planner"),
                json!("pi"),
                json!([{"topic": "work.start", "payload": null}]),
                json!([{"topic": "plan.ready", "payload": "write hello.txt"}])
            ),
            (
                json!("builder"),
                json!("claude"),
                json!([{"topic": "plan.ready", "payload": "write hello.txt"}]),
                json!([{"topic": "build.done", "payload": "wrote hello.txt"}])
            ),
            (
                json!("reviewer"),
                json!("pi"),
                json!([{"topic": "build.done", "payload": "wrote hello.txt"}]),
                json!([{"topic": "review.approved", "payload": "looks good"}, {"topic": "LOOP_COMPLETE", "payload": null}])
            ),
        ]
    );
    let builder_prompt = ws.prompt(2);
    for part in [
        "Write hello.txt",
        "- `plan.ready`: write hello.txt",
        "## Your role: Builder",
        "Build it and emit build.done.",
        "You publish: `build.done`.",
    ] {
        assert!(
            builder_prompt.contains(part),
            "missing {part:?} in:\n{builder_prompt}"
        );
    }
    // Only the hat that may finish is told how.
    assert!(
        !builder_prompt.contains("LOOP_COMPLETE"),
        "{builder_prompt}"
    );
    assert!(ws.prompt(3).contains("ralph emit LOOP_COMPLETE"));
    let summary = ws.summary();
    assert!(
        summary.contains("**Stopped:** completed: the agent emitted LOOP_COMPLETE"),
        "{summary}"
    );
    assert!(summary.contains("| Builder | 1 | 0 |"), "{summary}");
}

#[test]
fn the_iteration_limit_ends_with_exit_2() {
    let ws = Workspace::new("cli:\n  backend: pi\n", "pi/anthropic/text.jsonl | |\n");
    let (code, events, _) = ws.run_json(&["-p", "task", "--max-iterations", "2"]);
    assert_eq!((code, reasons(&events)), (2, ("max_iterations".into(), 2)));
    assert_eq!(ws.outcomes(), vec!["succeeded", "succeeded"]);
    assert!(
        ws.summary()
            .contains("iteration limit reached (2 iterations)")
    );
}

#[test]
fn the_runtime_limit_stops_the_running_agent_and_ends_with_exit_2() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | | hang=60\n",
    );
    let (code, events, _) = ws.run_json(&["-p", "task", "--max-runtime", "1"]);
    assert_eq!((code, reasons(&events)), (2, ("max_runtime".into(), 2)));
    assert_eq!(ws.outcomes(), vec!["stopped_at_runtime_limit"]);
}

#[test]
fn the_cost_budget_stops_the_agent_at_the_turn_that_crosses_it() {
    // tools3 has four turns of about half a cent each; the budget is crossed at the
    // second, and the agent pauses after each turn so it is still running then.
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/tools3.jsonl | | turn_delay=1\n",
    );
    let (code, events, _) = ws.run_json(&["-p", "task", "--max-cost", "0.009"]);
    assert_eq!((code, reasons(&events)), (2, ("max_cost".into(), 2)));
    let turns: Vec<&Value> = of_type(&events, "agent")
        .into_iter()
        .filter(|e| e["event"]["type"] == "turn_finished")
        .collect();
    assert_eq!(turns.len(), 2);
    let record = &ws.history()[0];
    assert_eq!(
        (&record["outcome"]["status"], &record["turns"]),
        (&json!("stopped_at_cost_limit"), &json!(2))
    );
    let spent = record["cost_usd"].as_f64().unwrap_or_default();
    assert!((spent - (0.005025 + 0.00495)).abs() < 1e-9, "spent {spent}");
}

#[test]
fn a_stale_loop_ends_with_exit_2() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | build.done=nothing changed |\n",
    );
    let (code, events, _) = ws.run_json(&["-p", "task"]);
    assert_eq!((code, reasons(&events)), (2, ("stale_loop".into(), 2)));
    assert_eq!(ws.history().len(), 3);
}

#[test]
fn consecutive_failures_end_with_exit_1() {
    // pi exits 0 when its model calls fail: the stream says the run failed.
    let ws = Workspace::new(
        "cli:\n  backend: pi\nevent_loop:\n  max_consecutive_failures: 2\n",
        "pi/anthropic/error401.jsonl | |\n",
    );
    let (code, events, _) = ws.run_json(&["-p", "task"]);
    assert_eq!(
        (code, reasons(&events)),
        (1, ("consecutive_failures".into(), 1))
    );
    assert_eq!(ws.outcomes(), vec!["failed", "failed"]);
    let reason = ws.history()[0]["outcome"]["reason"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(reason.contains("authentication_error"), "{reason}");
}

#[test]
fn an_agent_that_exits_0_without_output_or_events_fails_until_the_failure_limit() {
    // `true` takes the prompt as its argument, prints nothing and exits 0.
    let ws = Workspace::new(
        "cli:\n  backend: custom\n  command: \"true\"\nevent_loop:\n  max_iterations: 50\n  \
         max_consecutive_failures: 3\n",
        "",
    );
    let (code, events, _) = ws.run_json(&["-p", "task"]);
    assert_eq!(
        (code, reasons(&events)),
        (1, ("consecutive_failures".into(), 1))
    );
    assert_eq!(ws.outcomes(), vec!["failed", "failed", "failed"]);
    assert_eq!(
        ws.history()[0]["outcome"]["reason"],
        json!("the agent produced no output")
    );
}

#[test]
fn a_silent_agent_that_publishes_an_event_did_something() {
    // Nothing on stdout, but an event in the inbox: the iteration counts as work.
    let ws = Workspace::new(
        "cli:\n  backend: custom\n  command: sh\n  args: [\"-c\", \"ralph emit progress step\"]\n\
         event_loop:\n  max_iterations: 2\n",
        "",
    );
    let (code, events, _) = ws.run_json(&["-p", "task"]);
    assert_eq!((code, reasons(&events)), (2, ("max_iterations".into(), 2)));
    assert_eq!(ws.outcomes(), vec!["succeeded", "succeeded"]);
}

#[test]
fn invalid_inbox_lines_are_tolerated_until_they_repeat() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | note | junk=2\npi/anthropic/text.jsonl | | junk=3\n",
    );
    let (code, events, _) = ws.run_json(&["-p", "task"]);
    assert_eq!((code, reasons(&events)), (1, ("invalid_events".into(), 1)));
    // The transcript's answer also names the promise in a sentence: those notices aside.
    let notices: Vec<&Value> = of_type(&events, "notice")
        .into_iter()
        .filter(|n| n["notice"] != "promise_not_alone")
        .collect();
    assert_eq!(notices.len(), 5);
    assert_eq!(notices[0]["notice"], "invalid_line");
    let invalid: Vec<Value> = ws
        .history()
        .iter()
        .map(|r| r["invalid_lines"].clone())
        .collect();
    assert_eq!(invalid, vec![json!(2), json!(3)]);
}

#[test]
fn the_promise_in_tool_output_or_in_a_sentence_does_not_complete() {
    // The tool prints exactly LOOP_COMPLETE; the answer ends "... LOOP_COMPLETE. LOOP_COMPLETE".
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/tool.jsonl | | sed=s/hello/LOOP_COMPLETE/g\n",
    );
    let (code, events, _) = ws.run_json(&["-p", "task", "--max-iterations", "2"]);
    assert_eq!((code, reasons(&events)), (2, ("max_iterations".into(), 2)));
    let tool_output: Vec<&Value> = of_type(&events, "agent")
        .into_iter()
        .filter(|e| e["event"]["type"] == "tool_call_finished")
        .map(|e| &e["event"]["output"])
        .collect();
    assert_eq!(
        tool_output,
        vec![&json!("LOOP_COMPLETE\n"), &json!("LOOP_COMPLETE\n")]
    );
}

#[test]
fn a_final_answer_ending_with_the_promise_line_completes_in_the_last_iteration() {
    let ws = Workspace::new(
        "cli:\n  backend: claude\n",
        "claude/v2.1.332_happy_ralph_args.jsonl | |\n",
    );
    let (code, events, _) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!((code, reasons(&events)), (0, ("completed".into(), 0)));
    assert_eq!(finished(&events)["signal"], "final_text");
}

#[test]
fn continue_resumes_the_counters_cost_and_events() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | step=one |
pi/anthropic/text.jsonl | step=two |
pi/anthropic/text.jsonl | LOOP_COMPLETE |
",
    );
    let (code, events, _) = ws.run_json(&["-p", "task", "--max-iterations", "2"]);
    assert_eq!((code, reasons(&events)), (2, ("max_iterations".into(), 2)));

    let (code, events, stderr) = ws.run_json(&["--continue", "--max-iterations", "5"]);
    assert_eq!(
        (code, reasons(&events)),
        (0, ("completed".into(), 0)),
        "{stderr}"
    );
    let started = &events[0];
    assert_eq!(
        (
            &started["type"],
            &started["resumed"],
            &started["totals"]["iterations"]
        ),
        (&json!("loop_started"), &json!(true), &json!(2))
    );
    let iterations: Vec<Value> = ws
        .history()
        .iter()
        .map(|r| r["iteration"].clone())
        .collect();
    assert_eq!(iterations, vec![json!(1), json!(2), json!(3)]);
    // The third iteration got the event the second one emitted, and the saved task.
    assert!(ws.prompt(3).contains("- `step`: two"), "{}", ws.prompt(3));
    assert!(ws.prompt(3).contains("## Task\n\ntask\n"));
    let totals = &finished(&events)["totals"];
    assert_eq!(totals["iterations"], 3);
    assert!((totals["cost_usd"].as_f64().unwrap_or_default() - 3.0 * 0.005025).abs() < 1e-9);
    assert_eq!(ws.saved_state()["state"]["iterations"], 3);

    // A completed run is not continued.
    let out = ws.run(&["run", "--continue"]);
    assert_eq!(code_of(&out), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("already completed"));
}

fn code_of(out: &std::process::Output) -> i32 {
    code(out.status)
}

#[test]
fn config_errors_point_at_the_line_and_nothing_runs() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 3\n  max_iteratons: 3\n",
        "pi/anthropic/text.jsonl | |\n",
    );
    let out = ws.run(&["run", "-p", "task"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code_of(&out), 1, "{stderr}");
    assert!(
        stderr.contains("ralph.yml:5:3: unknown key `max_iteratons`"),
        "{stderr}"
    );
    assert!(stderr.contains("max_iterations"), "{stderr}");
    assert_eq!(ws.agent_log(), Vec::<String>::new());
    assert!(!ws.path().join(".ralph").exists());
}

#[test]
fn a_missing_agent_binary_is_named_before_anything_runs() {
    let ws = Workspace::new("cli:\n  backend: gemini\n", "");
    let out = ws.run(&["run", "-p", "task"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code_of(&out), 1, "{stderr}");
    assert!(
        stderr.contains("`gemini`") && stderr.contains("install"),
        "{stderr}"
    );
    assert!(!ws.path().join(".ralph/runs").exists());
}

#[test]
fn a_run_without_a_task_says_how_to_give_one() {
    let ws = Workspace::new("cli:\n  backend: pi\n", "");
    let out = ws.run(&["run"]);
    assert_eq!(code_of(&out), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no task to work on"));
}

#[test]
fn dry_run_prints_the_resolved_config_and_runs_nothing() {
    let ws = Workspace::new(THREE_HATS, "");
    let out = ws.run(&["run", "--dry-run", "-p", "task", "--max-cost", "3"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(code_of(&out), 0);
    assert!(stdout.contains("max_cost_usd: 3"), "{stdout}");
    assert!(stdout.contains("reviewer:"), "{stdout}");
    assert_eq!(ws.agent_log(), Vec::<String>::new());
    assert!(!ws.path().join(".ralph").exists());
}

#[test]
fn json_output_is_only_json_lines_with_every_agent_event() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/tool.jsonl | LOOP_COMPLETE |\n",
    );
    let (code, events, _) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 0);
    let kinds: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] != "agent")
        .map(|e| e["type"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        kinds,
        vec![
            "loop_started",
            "iteration_started",
            "events_emitted",
            "iteration_finished",
            "loop_finished"
        ]
    );
    // The same events `ralph inspect --events` prints for the transcript.
    let inspect = std::process::Command::new(common::ralph_bin())
        .args(["inspect", "--events"])
        .arg(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/fixtures/pi/anthropic/tool.jsonl"),
        )
        .output()
        .expect("inspect");
    let expected: Vec<Value> = String::from_utf8_lossy(&inspect.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let streamed: Vec<Value> = of_type(&events, "agent")
        .into_iter()
        .map(|e| e["event"].clone())
        .collect();
    assert_eq!(streamed, expected);
}

#[test]
fn plain_output_shows_iterations_tools_and_the_reason() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/tool.jsonl | LOOP_COMPLETE |\n",
    );
    let out = ws.run(&["run", "-p", "task"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(code_of(&out), 0);
    for part in [
        "── iteration 1/100 · ralph · pi · run time 0:00 ──",
        "▸ bash  echo hello > out.txt && cat out.txt",
        "Done. out.txt contains: hello. LOOP_COMPLETE",
        "⇢ emitted LOOP_COMPLETE",
        "✓ iteration 1 succeeded",
        "✓ completed: the agent emitted LOOP_COMPLETE",
        "  summary: .ralph/runs/",
    ] {
        assert!(stdout.contains(part), "missing {part:?} in:\n{stdout}");
    }
    // A pipe gets neither colors nor the status line's control sequences.
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\r'),
        "{stdout:?}"
    );
}

#[test]
fn quiet_prints_only_the_verdict_and_color_always_colors_a_pipe() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/tool.jsonl | LOOP_COMPLETE |\n",
    );
    let out = ws.run(&["run", "-q", "-p", "task"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(code_of(&out), 0);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert_eq!(lines[0], "✓ completed: the agent emitted LOOP_COMPLETE");
    assert!(lines[2].starts_with("  summary: .ralph/runs/"), "{stdout}");

    let out = ws.run(&["run", "--color", "always", "-p", "task"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("\u{1b}[1m\u{1b}[32m✓ completed"),
        "{stdout:?}"
    );
    // Colors, but still no status line: stdout is not a terminal.
    assert!(!stdout.contains('\r'), "{stdout:?}");

    // `auto` follows CLICOLOR_FORCE, and NO_COLOR beats it; -v shows tool output.
    let run = |no_color: bool| {
        let mut cmd = ws.command(&["run", "-v", "-p", "task"]);
        cmd.env("CLICOLOR_FORCE", "1");
        if no_color {
            cmd.env("NO_COLOR", "1");
        }
        let out = cmd.output().expect("ralph");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(run(false).contains('\u{1b}'));
    let stdout = run(true);
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
    assert!(
        stdout.contains("▸ bash  echo hello > out.txt && cat out.txt\n  ↳ hello\n"),
        "{stdout}"
    );
}

#[test]
fn auto_takes_the_first_installed_backend_in_priority_order() {
    // Both fakes are on PATH; claude comes before pi in the default priority.
    let ws = Workspace::new(
        "cli:\n  backend: auto\n",
        "claude/v2.1.332_happy_ralph_args.jsonl | |\n",
    );
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(events[0]["backend"], "claude");
    assert_eq!(
        ws.agent_log(),
        vec![format!(
            "1 claude hat=ralph iteration=1 bin=ok args={CLAUDE_ARGS}"
        )]
    );
}

#[test]
fn the_task_can_come_from_a_file() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    std::fs::write(
        ws.path().join("task.md"),
        "# Fix the build\n\nMake `cargo test` pass.\n",
    )
    .expect("task file");
    let out = ws.run(&["run", "-P", "task.md"]);
    assert_eq!(code_of(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        ws.prompt(1)
            .contains("## Task\n\n# Fix the build\n\nMake `cargo test` pass.\n"),
        "{}",
        ws.prompt(1)
    );
}

#[test]
fn a_hat_timeout_is_a_failed_iteration_not_the_runtime_limit() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\nevent_loop:\n  max_consecutive_failures: 1\nhats:\n  worker:\n    \
         description: Works\n    triggers: [task.go]\n    iteration_timeout_seconds: 1\n",
        "pi/anthropic/text.jsonl | task.go |\npi/anthropic/text.jsonl | | hang=60\n",
    );
    let (code, events, _) = ws.run_json(&["-p", "task"]);
    assert_eq!(
        (code, reasons(&events)),
        (1, ("consecutive_failures".into(), 1))
    );
    let record = &ws.history()[1];
    assert_eq!(
        (&record["hat"], &record["outcome"]),
        (
            &json!("worker"),
            &json!({"status": "failed", "reason": "stopped: iteration wall-clock timeout"})
        )
    );
}

#[test]
fn a_config_file_given_with_c_replaces_ralph_yml() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "claude/v2.1.332_happy_ralph_args.jsonl | |\n",
    );
    std::fs::write(ws.path().join("alt.yml"), "cli:\n  backend: claude\n").expect("alt.yml");
    let (code, events, stderr) = ws.run_json(&["-c", "alt.yml", "-p", "task"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(events[0]["backend"], "claude");
}

#[test]
fn a_prompt_no_agent_can_take_stops_the_loop_at_once_naming_the_cause_and_the_fix() {
    // An argument holds at most 128 KiB on Linux: no agent can start with this prompt,
    // and the iteration handed back would build the same one.
    let ws = Workspace::new(
        "cli:\n  backend: custom\n  command: \"true\"\n  prompt_mode: arg\n\
         event_loop:\n  max_iterations: 5\n  max_consecutive_failures: 3\n",
        "",
    );
    std::fs::write(ws.path().join("task.md"), "x".repeat(200 * 1024)).unwrap();
    let (code, events, stderr) = ws.run_json(&["-P", "task.md"]);
    assert_eq!(
        (code, reasons(&events)),
        (1, ("agent_cannot_start".into(), 1)),
        "{stderr}"
    );
    assert_eq!(ws.outcomes(), vec!["failed"]);
    let reason = ws.history()[0]["outcome"]["reason"].to_string();
    assert!(reason.contains("as a command-line argument"), "{reason}");
    let message = finished(&events)["message"].as_str().unwrap_or_default();
    for said in [
        "command-line argument",
        "prompt_mode: stdin",
        "stopped at once",
    ] {
        assert!(message.contains(said), "`{said}` not in {message}");
    }
}
