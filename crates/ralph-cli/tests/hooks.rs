//! Lifecycle hooks end to end: the real `ralph` binary with fake agents, hooks that are
//! small shell commands. Each phase fires in order with its payload; `warn`, `block`,
//! `suspend` with `ralph hooks resume`, `retry_backoff`, `mutate`, a timeout and a missing
//! command behave as docs/hooks.md says; ralph-orchestrator's minimal example runs
//! unchanged; `ralph hooks validate` checks commands.

#[path = "hooks/approval.rs"]
mod approval;
mod common;
#[path = "hooks/suspend.rs"]
mod suspend;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use common::{RUN_TIMEOUT, Workspace, code, finished, of_type, wait_output};
use pretty_assertions::assert_eq;
use serde_json::Value;

/// A hook command that appends its stdin (the payload, one JSON line) to `payloads.jsonl`.
const RECORD: &str = "cat >> payloads.jsonl";

/// Two iterations: the first hands over, the second completes.
const TWO_ITERATIONS: &str = "\
pi/anthropic/text.jsonl | step.done=one |
pi/anthropic/text.jsonl | LOOP_COMPLETE |
";

fn config(hooks: &str) -> String {
    format!("cli:\n  backend: pi\nevent_loop:\n  max_iterations: 4\nhooks:\n{hooks}")
}

/// `config` with one hook, `hook` (a flow mapping), in `phase`.
fn one_hook(phase: &str, hook: &str) -> String {
    config(&format!(
        "  enabled: true\n  events:\n    {phase}:\n      - {hook}\n"
    ))
}

/// The payloads the recording hooks saw, in order.
fn payloads(ws: &Workspace) -> Vec<Value> {
    std::fs::read_to_string(ws.path().join("payloads.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn phases(payloads: &[Value]) -> Vec<String> {
    payloads
        .iter()
        .map(|p| p["phase_event"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn recording_all_phases() -> String {
    let mut hooks = String::from("  enabled: true\n  events:\n");
    for phase in [
        "pre.loop.start",
        "post.loop.start",
        "pre.iteration.start",
        "post.iteration.start",
        "pre.loop.complete",
        "post.loop.complete",
        "pre.loop.error",
        "post.loop.error",
    ] {
        hooks.push_str(&format!(
            "    {phase}:\n      - {{name: rec, command: '{RECORD}', on_error: block}}\n"
        ));
    }
    hooks
}

fn script(ws: &Workspace, name: &str, body: &str) {
    let path = ws.path().join(name);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("script dir");
    }
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn finished_hooks(events: &[Value]) -> Vec<(String, String, String)> {
    of_type(events, "hook_finished")
        .into_iter()
        .map(|e| {
            (
                e["hook"].as_str().unwrap_or_default().to_owned(),
                e["phase"].as_str().unwrap_or_default().to_owned(),
                e["action"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn each_phase_fires_in_order_with_its_payload() {
    let ws = Workspace::new(&config(&recording_all_phases()), TWO_ITERATIONS);
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 0, "{stderr}");
    let seen = payloads(&ws);
    assert_eq!(
        phases(&seen),
        [
            "pre.loop.start",
            "post.loop.start",
            "pre.iteration.start",
            "post.iteration.start",
            "pre.iteration.start",
            "post.iteration.start",
            "pre.loop.complete",
            "post.loop.complete",
        ]
    );
    let run_id = events[0]["run_id"].as_str().expect("run id");
    let workspace = ws.path().canonicalize().expect("workspace");
    for p in &seen {
        assert_eq!(p["schema_version"], 1);
        assert_eq!(p["run_id"], run_id);
        assert_eq!(p["loop"]["id"], run_id);
        assert_eq!(
            Path::new(p["loop"]["workspace"].as_str().expect("workspace"))
                .canonicalize()
                .expect("exists"),
            workspace
        );
        assert_eq!(p["iteration"]["max"], 4);
    }
    // Before the first iteration: no iteration, no hat.
    assert_eq!(seen[0]["iteration"]["current"], 0);
    assert_eq!(seen[0]["hat"], Value::Null);
    // The iteration's boundary: its number, hat, backend and the events it handles.
    assert_eq!(seen[2]["iteration"]["current"], 1);
    assert_eq!(seen[2]["hat"], "ralph");
    assert_eq!(seen[2]["backend"], "pi");
    assert_eq!(seen[2]["events"][0]["topic"], "task.start");
    assert_eq!(seen[4]["iteration"]["current"], 2);
    assert_eq!(seen[4]["events"][0]["topic"], "step.done");
    assert_eq!(seen[4]["events"][0]["payload"], "one");
    assert_eq!(seen[4]["totals"]["iterations"], 1);
    // The end: why, and the totals.
    assert_eq!(seen[6]["stop"]["reason"], "completed");
    assert_eq!(seen[6]["context"]["termination_reason"], "completed");
    assert_eq!(seen[7]["totals"]["iterations"], 2);
    // Reported as run events, each with its log.
    assert_eq!(of_type(&events, "hook_started").len(), 8);
    let done = of_type(&events, "hook_finished");
    assert_eq!(done.len(), 8);
    for e in &done {
        assert_eq!(
            (e["passed"].clone(), e["action"].clone()),
            (true.into(), "continue".into())
        );
        let log = ws.path().join(e["log_path"].as_str().expect("log path"));
        assert!(log.is_file(), "{}", log.display());
    }
    assert_eq!(
        done[0]["log_path"].as_str().unwrap_or_default(),
        format!(".ralph/runs/{run_id}/hooks/1-pre.loop.start-rec.log")
    );
}

#[test]
fn a_loop_that_stops_at_a_limit_fires_the_error_phases() {
    let ws = Workspace::new(
        &config(&recording_all_phases()).replace("max_iterations: 4", "max_iterations: 1"),
        "pi/anthropic/text.jsonl | step.done=one |\n",
    );
    let (code, _, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 2, "{stderr}");
    let seen = payloads(&ws);
    assert_eq!(
        phases(&seen)[4..],
        ["pre.loop.error", "post.loop.error"].map(String::from)
    );
    assert_eq!(seen[5]["stop"]["reason"], "max_iterations");
    assert_eq!(seen[5]["stop"]["outcome"], "limit_reached");
}

#[test]
fn a_blocking_hook_stops_the_loop_with_a_failure_naming_it() {
    let ws = Workspace::new(
        &config(&format!(
            "  enabled: true
  events:
    pre.iteration.start:
      - {{name: guard, command: 'echo no token >&2; exit 3', on_error: block}}
    post.loop.error:
      - {{name: rec, command: '{RECORD}', on_error: warn}}
"
        )),
        TWO_ITERATIONS,
    );
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 1, "{stderr}");
    let end = finished(&events);
    assert_eq!(end["reason"], "hook_blocked");
    assert_eq!(end["hook"], "guard");
    assert_eq!(end["phase"], "pre.iteration.start");
    assert_eq!(end["outcome"], "failed");
    assert!(ws.agent_log().is_empty(), "no agent may start");
    let guard = &of_type(&events, "hook_finished")[0];
    assert_eq!(guard["failure"], "exit");
    assert_eq!(guard["exit_code"], 3);
    assert_eq!(guard["action"], "block");
    assert_eq!(guard["output_tail"], "no token");
    assert!(ws.summary().contains("guard"), "{}", ws.summary());
    assert_eq!(phases(&payloads(&ws)), ["post.loop.error"]);
    assert_eq!(payloads(&ws)[0]["stop"]["reason"], "hook_blocked");
    // The iteration it kept from running is still to do: `--continue` gets it.
    let pending = &ws.saved_state()["state"]["pending"];
    assert_eq!(pending[0]["topic"], "task.start", "{pending}");
}

#[test]
fn a_warning_hook_goes_on_and_the_text_view_shows_it() {
    let ws = Workspace::new(
        &one_hook(
            "post.iteration.start",
            "{name: lint, command: 'echo style issue; exit 1', on_error: warn}",
        ),
        TWO_ITERATIONS,
    );
    let out = ws.run(&["run", "-p", "task"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(code(out.status), 0, "{stdout}");
    assert!(
        stdout.contains("✗ hook lint · post.iteration.start · exited with code 1 · going on"),
        "{stdout}"
    );
    assert!(stdout.contains("  style issue"), "{stdout}");
    assert_eq!(ws.agent_log().len(), 2);
}

#[test]
fn retry_backoff_retries_until_the_hook_passes_or_blocks() {
    let counter = "n=$(( $(cat tries 2>/dev/null || echo 0) + 1 )); echo $n > tries; [ $n -ge 3 ]";
    let ws = Workspace::new(
        &config(&format!(
            "  enabled: true
  events:
    pre.loop.start:
      - {{name: flaky, command: '{counter}', on_error: suspend, suspend_mode: retry_backoff}}
"
        )),
        TWO_ITERATIONS,
    );
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 0, "{stderr}");
    let actions: Vec<String> = finished_hooks(&events).into_iter().map(|h| h.2).collect();
    assert_eq!(actions, ["retry", "retry", "continue"]);

    let ws = Workspace::new(
        &one_hook(
            "pre.loop.start",
            "{name: down, command: ['false'], on_error: suspend, suspend_mode: retry_backoff}",
        ),
        TWO_ITERATIONS,
    );
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 1, "{stderr}");
    let actions: Vec<String> = finished_hooks(&events).into_iter().map(|h| h.2).collect();
    // The first run and one retry per step of the backoff schedule, then it blocks.
    assert_eq!(actions, ["retry", "retry", "retry", "block"]);
    assert_eq!(finished(&events)["reason"], "hook_blocked");
}

#[test]
fn a_mutating_hook_adds_metadata_that_the_next_prompt_shows() {
    let ws = Workspace::new(
        &config(&format!(
            "  enabled: true
  events:
    pre.iteration.start:
      - name: ticket
        command: [./answer.sh]
        on_error: block
        mutate: {{enabled: true}}
    post.iteration.start:
      - {{name: rec, command: '{RECORD}', on_error: block}}
"
        )),
        TWO_ITERATIONS,
    );
    script(
        &ws,
        "answer.sh",
        r#"echo '{"metadata": {"ticket": "ABC-123"}}'"#,
    );
    let (code, _, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 0, "{stderr}");
    let prompt = ws.prompt(1);
    assert!(prompt.contains("## Notes from hooks"), "{prompt}");
    assert!(prompt.contains("- ticket: ABC-123"), "{prompt}");
    assert_eq!(
        payloads(&ws)[0]["metadata"]["accumulated"]["ticket"],
        "ABC-123"
    );

    // An answer that is not the expected JSON is a failure of the hook.
    let ws = Workspace::new(
        &one_hook(
            "pre.iteration.start",
            "{name: ticket, command: 'echo not json', on_error: block, mutate: {enabled: true}}",
        ),
        TWO_ITERATIONS,
    );
    let (code, events, _) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 1);
    assert_eq!(of_type(&events, "hook_finished")[0]["failure"], "answer");
}

/// A `pre.loop.start` hook that starts a grandchild (its pid in `grandchild.pid`) and
/// waits for it.
fn slow_hook(timeout_seconds: u32, on_error: &str) -> String {
    format!(
        "  enabled: true
  events:
    pre.loop.start:
      - name: slow
        command: 'sleep 60 & echo $! > grandchild.pid; wait'
        timeout_seconds: {timeout_seconds}
        on_error: {on_error}
"
    )
}

#[test]
fn a_hook_past_its_timeout_is_stopped_with_what_it_started() {
    let ws = Workspace::new(&config(&slow_hook(1, "warn")), TWO_ITERATIONS);
    let started = Instant::now();
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(30));
    let slow = &of_type(&events, "hook_finished")[0];
    assert_eq!(slow["failure"], "timeout");
    // Its own limit, not an iteration's wall clock, which a hook does not have.
    assert_eq!(slow["message"], "timed out after 1s (timeout_seconds)");
    assert_eq!(slow["action"], "warn");
    let pid: i32 = std::fs::read_to_string(ws.path().join("grandchild.pid"))
        .expect("pid")
        .trim()
        .parse()
        .expect("a pid");
    let alive = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok();
    assert!(!alive, "the hook's child {pid} survived");
}

#[test]
fn a_missing_command_fails_to_start_and_validate_says_so() {
    let hooks = "  enabled: true
  events:
    pre.loop.start:
      - {name: gone, command: [./scripts/missing.sh], on_error: block}
    post.loop.complete:
      - {name: shell, command: 'echo done', on_error: warn}
      - {name: path, command: [sh, -c, 'true'], on_error: warn}
";
    let ws = Workspace::new(&config(hooks), TWO_ITERATIONS);
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 1, "{stderr}");
    let gone = &of_type(&events, "hook_finished")[0];
    assert_eq!(gone["failure"], "spawn");
    assert_eq!(gone["exit_code"], Value::Null);
    assert_eq!(finished(&events)["hook"], "gone");

    let out = ws.run(&["hooks", "validate"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(code_of(&out), 1, "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "✗ pre.loop.start gone: ./scripts/missing.sh");
    assert!(lines[1].contains("scripts/missing.sh"), "{stdout}");
    assert_eq!(lines[2], "✓ post.loop.complete shell: echo done");
    assert_eq!(lines[3], "✓ post.loop.complete path: sh -c true");

    script(&ws, "scripts/missing.sh", "exit 0");
    let out = ws.run(&["hooks", "validate", "--format", "json"]);
    assert_eq!(code_of(&out), 0);
    let first: Value = serde_json::from_str(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .expect("line"),
    )
    .expect("JSON");
    assert_eq!(first["problem"], Value::Null);
    assert_eq!(first["runs"], true);

    std::fs::set_permissions(
        ws.path().join("scripts/missing.sh"),
        std::fs::Permissions::from_mode(0o644),
    )
    .expect("chmod");
    let out = ws.run(&["hooks", "validate"]);
    assert_eq!(code_of(&out), 1);
    assert!(String::from_utf8_lossy(&out.stdout).contains("is not executable"));
}

fn code_of(out: &std::process::Output) -> i32 {
    code(out.status)
}

#[test]
fn a_broken_section_is_a_config_error_and_nothing_runs() {
    let ws = Workspace::new(
        &config("  enabled: true\n  events:\n    pre.loop.strat: []\n"),
        TWO_ITERATIONS,
    );
    let out = ws.run(&["hooks", "validate"]);
    assert_eq!(code_of(&out), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ralph.yml:8:5: unknown key `pre.loop.strat`"),
        "{stderr}"
    );
    assert!(stderr.contains("hooks.events.pre.loop.start"), "{stderr}");
    let out = ws.run(&["run", "-p", "task"]);
    assert_eq!(code_of(&out), 1);
    assert!(ws.agent_log().is_empty());
}

/// ralph-orchestrator's `examples/hooks/minimal/ralph.hooks.yml`, byte for byte.
const UPSTREAM_MINIMAL: &str =
    include_str!("../../ralph-core/tests/fixtures/upstream_hooks_minimal.yml");

#[test]
fn the_incumbents_minimal_example_loads_and_runs_unchanged() {
    let ws = Workspace::new("cli:\n  backend: pi\n", TWO_ITERATIONS);
    std::fs::create_dir_all(ws.path().join("examples/hooks/minimal")).expect("dir");
    std::fs::write(
        ws.path().join("examples/hooks/minimal/ralph.hooks.yml"),
        UPSTREAM_MINIMAL,
    )
    .expect("example");
    script(
        &ws,
        "examples/hooks/scripts/env-guard.sh",
        "cat > guard-payload.json",
    );
    script(
        &ws,
        "examples/hooks/scripts/notify.sh",
        "cat > notify-payload.json",
    );
    let example = "examples/hooks/minimal/ralph.hooks.yml";
    let out = ws.run(&["hooks", "validate", "--config", example]);
    assert_eq!(code_of(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
    // The example names no agent, and it replaces ralph.yml: the fake pi is named on the
    // command line, so that each iteration succeeds (another agent detected first would
    // fail to read pi's transcript, and only a successful iteration completes the run).
    let (code, events, stderr) = ws.run_json(&["--config", example, "-b", "pi", "-p", "task"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        finished_hooks(&events),
        [
            (
                "env-guard".into(),
                "pre.loop.start".into(),
                "continue".into()
            ),
            (
                "notify".into(),
                "post.loop.complete".into(),
                "continue".into()
            ),
        ]
    );
    let read = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(ws.path().join(name)).expect(name))
            .expect("JSON payload")
    };
    assert_eq!(read("guard-payload.json")["phase_event"], "pre.loop.start");
    assert_eq!(
        read("notify-payload.json")["phase_event"],
        "post.loop.complete"
    );
}

#[test]
fn ctrl_c_during_a_hook_stops_it_and_what_it_started() {
    let ws = Workspace::new(&config(&slow_hook(120, "block")), TWO_ITERATIONS);
    let child = ws.start(&["run", "-p", "task"]);
    let pid = common::wait_for_pid(&ws.path().join("grandchild.pid"), "the hook");
    let out = ws.stop(child, nix::sys::signal::Signal::SIGINT);
    assert_eq!(code(out.status), 130);
    assert!(ws.agent_log().is_empty());
    let alive = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok();
    assert!(!alive, "the hook's child {pid} survived");
}
