//! An agent run that ends on a provider's limit: the loop waits it out and runs the
//! iteration again without counting it, stops at its runtime limit saying until when it
//! was limited, counts it as a failure with `on_rate_limit: fail`, or, with `failover`,
//! runs it again on the next backend of `fallback`.

mod common;

use std::time::{Duration, Instant};

use common::{RUN_TIMEOUT, Workspace, finished, of_type};
use nix::sys::signal::Signal;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const LIMITED: &str = "pi/anthropic/error429.jsonl | |\n";
const DONE: &str = "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n";

#[test]
fn a_limited_iteration_is_waited_out_and_run_again_without_counting() {
    let config = "cli:\n  backend: pi\n  rate_limit_wait_seconds: 1\n";
    let ws = Workspace::new(config, &format!("{LIMITED}{DONE}"));
    let events = ended(
        &ws,
        &["-p", "task", "--max-iterations", "1"],
        0,
        "completed",
    );
    let waits = of_type(&events, "rate_limit_wait");
    assert_eq!(
        (waits.len(), &waits[0]["wait_secs"], &waits[0]["iteration"]),
        (1, &json!(1), &json!(1))
    );
    let outcomes: Vec<Value> = of_type(&events, "iteration_finished")
        .iter()
        .map(|e| json!([e["iteration"], e["outcome"]["status"]]))
        .collect();
    assert_eq!(
        outcomes,
        [json!([1, "rate_limited"]), json!([1, "succeeded"])]
    );
    assert_eq!(finished(&events)["totals"]["iterations"], 1);
    let started: Vec<Value> = of_type(&events, "iteration_started")
        .iter()
        .map(|e| json!([e["iteration"], e["attempt"]]))
        .collect();
    assert_eq!(started, [json!([1, 1]), json!([1, 2])]);
    // Each attempt keeps its transcript: the limited one is set aside, and `--run`
    // reads the latest.
    let iterations = ws.run_files().dir().join("iterations");
    let raw = |dir: &str| {
        zstd::decode_all(std::fs::File::open(iterations.join(dir).join("stdout.zst")).unwrap())
            .unwrap()
    };
    let fixture = |name: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/pi/anthropic")
            .join(name);
        std::fs::read(path).unwrap()
    };
    assert_eq!(raw("1-limited-1"), fixture("error429.jsonl"));
    assert_eq!(raw("1"), fixture("text.jsonl"));
    let attempts = ["1-limited-1", "1"].map(|dir| command(&ws, dir)["attempt"].clone());
    assert_eq!(attempts, [json!(1), json!(2)]);
    let inspect = |args: &[&str]| ralph_test_support::success_json(&ws.run(args));
    let latest = inspect(&["inspect", "--run", "last", "--iteration", "1"]);
    assert_eq!(
        (&latest["succeeded"], &latest["rate_limited"]),
        (&json!(true), &Value::Null)
    );
    let limited = iterations.join("1-limited-1/stdout.zst");
    let limited = inspect(&["inspect", limited.to_str().unwrap()]);
    assert_eq!(limited["succeeded"], json!(false), "{limited}");
    assert!(limited["rate_limited"]["message"].is_string(), "{limited}");
    // The text view says it.
    let ws = Workspace::new(config, &format!("{LIMITED}{DONE}"));
    let out = ws.run(&["run", "-p", "task"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("■ iteration 1 rate limited: 429")
            && text.contains("⏸ rate limited: waiting 1.0s, then iteration 1 (ralph)")
            && text.contains("── iteration 1/100 · attempt 2 · ralph · pi ·"),
        "{text}"
    );
}

/// Runs `ralph run -p task`, which must end at its runtime limit (exit 2) with a message
/// that says `why`: its events.
fn ended_at_the_runtime_limit(ws: &Workspace, why: &str) -> Vec<Value> {
    let events = ended(ws, &["-p", "task"], 2, "max_runtime");
    let end = finished(&events);
    let message = end["message"].as_str().unwrap();
    assert!(message.contains(why), "{end}");
    events
}

/// Runs `ralph run --output json <args>`, which must exit with `code` for `reason`: its
/// events.
fn ended(ws: &Workspace, args: &[&str], code: i32, reason: &str) -> Vec<Value> {
    let (got, events, stderr) = ws.run_json(args);
    assert_eq!(
        (got, &finished(&events)["reason"]),
        (code, &json!(reason)),
        "{stderr}"
    );
    events
}

#[test]
fn a_limit_that_outlasts_the_runtime_ends_the_run_saying_so() {
    let config = "cli:\n  backend: pi\nevent_loop:\n  max_runtime_seconds: 5\n";
    let ws = Workspace::new(config, LIMITED);
    let events =
        ended_at_the_runtime_limit(&ws, "; still rate limited (the next attempt was due at ");
    assert!(of_type(&events, "rate_limit_wait").is_empty());
}

#[test]
fn a_reset_time_past_the_runtime_ends_the_run_saying_until_when() {
    // Claude Code's limited run, its first line made the `rate_limit_event` a Claude
    // subscription sends when a request is refused (resetting in 2033).
    let event = r#"{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1999999999}}"#;
    let plan =
        format!("claude/v2.1.332_ratelimit429_headers.jsonl | | sed=1s/.*/{event}/ exit=1\n");
    let config = "cli:\n  backend: claude\nevent_loop:\n  max_runtime_seconds: 20\n";
    let ws = Workspace::new(config, &plan);
    let events = ended_at_the_runtime_limit(&ws, "; rate limited until 2033-05-18 03:33 UTC");
    let limited = &of_type(&events, "iteration_finished")[0]["outcome"];
    assert_eq!(limited["resets_at"], json!(1_999_999_999), "{limited}");
}

#[test]
fn with_fail_a_limit_counts_as_a_failed_iteration() {
    let config =
        "cli:\n  backend: pi\n  on_rate_limit: fail\nevent_loop:\n  max_consecutive_failures: 2\n";
    let ws = Workspace::new(config, LIMITED);
    let events = ended(&ws, &["-p", "task"], 1, "consecutive_failures");
    assert!(of_type(&events, "rate_limit_wait").is_empty());
}

/// pi as the primary, Claude Code as the one fallback.
const FAILOVER: &str = "cli:\n  backend: pi\n  on_rate_limit: failover\n  fallback: [claude]\n  rate_limit_wait_seconds: 1\n";
const CLAUDE_DONE: &str = "claude/v2.1.332_happy_ralph_args.jsonl | LOOP_COMPLETE |\n";
const CLAUDE_LIMITED: &str = "claude/v2.1.112_overloaded529_max_retries2.jsonl | | exit=1\n";

/// Each `iteration_finished` as `[iteration, backend, outcome]`.
fn attempts(events: &[Value]) -> Vec<Value> {
    of_type(events, "iteration_finished")
        .iter()
        .map(|e| json!([e["iteration"], e["backend"], e["outcome"]["status"]]))
        .collect()
}

/// Each `failover` as `[iteration, from, from_fallback, to, to_fallback]`.
fn failovers(events: &[Value]) -> Vec<Value> {
    of_type(events, "failover")
        .iter()
        .map(|e| {
            json!([
                e["iteration"],
                e["from"],
                e["from_fallback"],
                e["to"],
                e["to_fallback"]
            ])
        })
        .collect()
}

#[test]
fn a_limited_primary_fails_over_to_the_fallback_which_completes() {
    let ws = Workspace::new(FAILOVER, &format!("{LIMITED}{CLAUDE_DONE}"));
    let events = ended(&ws, &["-p", "task"], 0, "completed");
    assert_eq!(
        attempts(&events),
        [
            json!([1, "pi", "rate_limited"]),
            json!([1, "claude", "succeeded"])
        ]
    );
    assert_eq!(failovers(&events), [json!([1, "pi", 0, "claude", 1])]);
    assert!(of_type(&events, "rate_limit_wait").is_empty());
    let started: Vec<&Value> = of_type(&events, "iteration_started")
        .iter()
        .map(|e| &e["backend"])
        .collect();
    assert_eq!(started, [&json!("pi"), &json!("claude")]);
    // The history names the fallback that ran; the agents ran in that order.
    let history: Vec<Value> = ws
        .history()
        .iter()
        .map(|r| json!([r["backend"], r.get("fallback")]))
        .collect();
    assert_eq!(history, [json!(["pi", null]), json!(["claude", 1])]);
    // Each attempt's transcript names its backend.
    let backends = ["1-limited-1", "1"].map(|dir| command(&ws, dir)["backend"].clone());
    assert_eq!(backends, [json!("pi"), json!("claude")]);
    let names: Vec<String> = ws
        .agent_log()
        .iter()
        .map(|l| l.split(' ').nth(1).unwrap_or_default().to_owned())
        .collect();
    assert_eq!(names, ["pi", "claude"]);
    // Both were checked before the first iteration.
    assert_eq!(ws.version_log(), ["pi --version", "claude --version"]);
    // The text view says it.
    let ws = Workspace::new(FAILOVER, &format!("{LIMITED}{CLAUDE_DONE}"));
    let out = ws.run(&["run", "-p", "task"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("↪ rate limited on pi: iteration 1 runs on claude (fallback 1)"),
        "{text}"
    );
}

#[test]
fn each_attempt_at_a_failed_over_iteration_is_inspected_alone() {
    let ws = Workspace::new(FAILOVER, &format!("{LIMITED}{CLAUDE_DONE}"));
    ended(&ws, &["-p", "task"], 0, "completed");
    let capture = ws.run_files().dir().join("run-events.jsonl");
    let capture = capture.to_str().unwrap();
    let output = |args: &[&str]| {
        let out = ws.run(args);
        assert!(out.status.success(), "{args:?}: {out:?}");
        out.stdout
    };
    let summary = |args: &[&str]| serde_json::from_slice::<Value>(&output(args)).unwrap();
    let kept = |k: &'static str| {
        [
            "inspect",
            "--run",
            "last",
            "--iteration",
            "1",
            "--attempt",
            k,
        ]
    };
    let captured = |k: &'static str| ["inspect", "--iteration", "1", "--attempt", k, capture];
    let events = |k: &'static str| {
        output(&[
            "inspect",
            "--events",
            "--iteration",
            "1",
            "--attempt",
            k,
            capture,
        ])
    };
    for k in ["1", "2"] {
        let limited = k == "1";
        for got in [summary(&kept(k)), summary(&captured(k))] {
            assert_eq!(
                (
                    &got["agent"],
                    &got["succeeded"],
                    got["rate_limited"].is_object()
                ),
                (
                    &json!(if limited { "pi" } else { "claude" }),
                    &json!(!limited),
                    limited
                ),
                "attempt {k}: {got}"
            );
        }
        // The events kept in the capture are the ones the raw stream gives.
        assert_eq!(output(&[&kept(k)[..], &["--events"]].concat()), events(k));
    }
    // Without `--attempt`: the latest with `--run`, which says on stderr that there is an
    // earlier one, and every attempt in turn in a capture.
    assert_eq!(
        summary(&["inspect", "--run", "last", "--iteration", "1"]),
        summary(&kept("2"))
    );
    let latest = ws.run(&["inspect", "--run", "last", "--iteration", "1"]);
    assert_eq!(
        String::from_utf8_lossy(&latest.stderr),
        "ralph: note: this is iteration 1's latest attempt; it ran again after a rate limit, \
         and `--attempt K` reads the earlier one kept (1)\n"
    );
    let chosen = ws.run(&kept("2"));
    assert_eq!(String::from_utf8_lossy(&chosen.stderr), "");
    assert_eq!(
        output(&["inspect", "--events", "--iteration", "1", capture]),
        [events("1"), events("2")].concat()
    );
    // An attempt that did not run, in either, is an error that says what there is.
    let (kept_3, captured_3) = (kept("3"), captured("3"));
    for args in [&kept_3[..], &captured_3[..]] {
        let out = ws.run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(common::code(out.status), 1, "{stderr}");
        assert!(
            stderr.contains("keeps no attempt 3 of iteration 1: it keeps attempts 1 and 2")
                || stderr.contains("holds no agent events of iteration 1, attempt 3"),
            "{stderr}"
        );
    }
    // Attempts count from 1.
    let out = ws.run(&kept("0"));
    assert_eq!(common::code(out.status), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid value '0' for '--attempt <K>'"));
}

#[test]
fn the_loop_returns_to_the_primary_once_its_backoff_is_over() {
    // Claude's attempt lasts over the primary's backoff (1 s): the next iteration is pi's.
    let plan = format!(
        "{LIMITED}claude/v2.1.332_happy_ralph_args.jsonl | | sed=s/LOOP_COMPLETE/done/g hang=2\n{DONE}"
    );
    let ws = Workspace::new(FAILOVER, &plan);
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        attempts(&events),
        [
            json!([1, "pi", "rate_limited"]),
            json!([1, "claude", "succeeded"]),
            json!([2, "pi", "succeeded"])
        ]
    );
    assert_eq!(
        failovers(&events),
        [
            json!([1, "pi", 0, "claude", 1]),
            json!([2, "claude", 1, "pi", 0])
        ]
    );
}

#[test]
fn with_every_backend_limited_the_loop_waits_then_goes_on() {
    // Backoffs of 3 s and 6 s: far longer than claude's limited attempt, so the primary
    // is still limited when claude's ends.
    let config = FAILOVER.replace("wait_seconds: 1", "wait_seconds: 3");
    let ws = Workspace::new(&config, &format!("{LIMITED}{CLAUDE_LIMITED}{DONE}"));
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        attempts(&events),
        [
            json!([1, "pi", "rate_limited"]),
            json!([1, "claude", "rate_limited"]),
            json!([1, "pi", "succeeded"])
        ]
    );
    // The wait is for the primary, free first: its 3 s backoff (from the end of its
    // attempt, in whole seconds, rounded up), not claude's 6 s.
    let waits = of_type(&events, "rate_limit_wait");
    assert_eq!(waits.len(), 1);
    assert!(waits[0]["wait_secs"].as_u64().unwrap() <= 4, "{}", waits[0]);
    assert_eq!(
        failovers(&events),
        [
            json!([1, "pi", 0, "claude", 1]),
            json!([1, "claude", 1, "pi", 0])
        ]
    );
    assert_eq!(finished(&events)["totals"]["iterations"], 1);
}

#[test]
fn with_every_backend_limited_past_the_runtime_the_run_ends_saying_so() {
    let config = format!(
        "{FAILOVER}  rate_limit_wait_seconds: 60\nevent_loop:\n  max_runtime_seconds: 20\n"
    )
    .replace("  rate_limit_wait_seconds: 1\n", "");
    let ws = Workspace::new(&config, &format!("{LIMITED}{CLAUDE_LIMITED}"));
    let events =
        ended_at_the_runtime_limit(&ws, "; still rate limited (the next attempt was due at ");
    assert_eq!(attempts(&events).len(), 2);
}

#[test]
fn a_hats_own_failover_overrides_clis_wait() {
    let config = "cli:\n  backend: pi\n  rate_limit_wait_seconds: 1\nevent_loop:\n  \
                  starting_event: work.start\nhats:\n  worker:\n    \
                  description: Works\n    triggers: [work.start]\n    on_rate_limit: failover\n    \
                  fallback: [{type: claude, args: [--model, spare]}]\n";
    let ws = Workspace::new(config, &format!("{LIMITED}{CLAUDE_DONE}"));
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(failovers(&events), [json!([1, "pi", 0, "claude", 1])]);
    // The fallback's own arguments are on its command line.
    assert!(
        ws.agent_log()[1].ends_with("--model spare"),
        "{:?}",
        ws.agent_log()
    );
}

#[test]
fn an_uninstalled_fallback_is_reported_before_the_run() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n  on_rate_limit: failover\n  fallback: [codex]\n",
        DONE,
    );
    let out = ws.run(&["run", "-p", "task"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(common::code(out.status), 1, "{stderr}");
    assert!(stderr.contains("codex"), "{stderr}");
    assert!(ws.agent_log().is_empty());
}

#[test]
fn the_summary_the_closing_table_and_ralph_runs_count_a_limited_attempt_as_the_run_does() {
    let config = "cli:\n  backend: pi\n  rate_limit_wait_seconds: 1\nevent_loop:\n  \
                  starting_event: work.start\nhats:\n  worker:\n    \
                  description: Works\n    triggers: [work.start]\n";
    let ws = Workspace::new(config, &format!("{LIMITED}{DONE}"));
    let out = ws.run(&["run", "-p", "task"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(common::code(out.status), 0, "{text}");
    // A limit is not the hat failing to hand over.
    assert!(!text.contains("did not hand over"), "{text}");
    // The closing table: one iteration of the worker, as the totals line says.
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("worker "))
        .unwrap_or_else(|| panic!("no worker row: {text}"));
    assert_eq!(row.split_whitespace().nth(1), Some("1"), "{text}");
    let summary = ws.summary();
    assert!(
        summary.contains("| Iterations | 1 of ") && summary.contains("| worker | 1 | 0 |"),
        "{summary}"
    );
    // The wait, as long as it was: at least the configured second, plus the time to wake
    // up, which a loaded machine stretches (so no upper figure tighter than the run's).
    let waited = summary
        .split("| Rate limits | 1 wait of ")
        .nth(1)
        .and_then(|rest| rest.split('s').next())
        .and_then(|secs| secs.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no single wait in: {summary}"));
    assert!(
        (1.0..RUN_TIMEOUT.as_secs_f64()).contains(&waited),
        "{summary}"
    );
    let runs = ws.run(&["runs"]);
    let listed = String::from_utf8_lossy(&runs.stdout);
    assert!(
        listed.contains("worker×1") && !listed.contains("worker×2"),
        "{listed}"
    );
}

/// Longest a run may take to end after Ctrl-C during a wait (a run that was not stopped
/// would complete after its wait, with exit 0, not 130).
const QUICK_STOP: Duration = Duration::from_secs(10);

#[test]
fn ctrl_c_during_a_wait_ends_the_run_at_once_with_130_and_continue_finishes_it() {
    // Long enough that the wait is still on when Ctrl-C comes, short enough that the
    // continued run finishes it.
    let config = "cli:\n  backend: pi\n  rate_limit_wait_seconds: 4\n";
    let ws = Workspace::new(config, &format!("{LIMITED}{DONE}"));
    let child = ws.start_json(&["-p", "task"]);
    // The wait has begun once its event is in the run's record.
    let deadline = Instant::now() + RUN_TIMEOUT;
    loop {
        let started = ws.path().join(".ralph/current-run").exists();
        let record = started
            .then(|| std::fs::read_to_string(ws.run_files().dir().join("run-events.jsonl")))
            .and_then(Result::ok)
            .unwrap_or_default();
        if record.contains(r#""type":"rate_limit_wait""#) {
            break;
        }
        assert!(Instant::now() < deadline, "the wait never began");
        std::thread::sleep(Duration::from_millis(20));
    }
    let signalled = Instant::now();
    let out = ws.stop(child, Signal::SIGINT);
    let took = signalled.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(common::code(out.status), 130, "{stderr}");
    assert!(took < QUICK_STOP, "took {took:?} to stop");
    // No agent runs during the wait: none is said to be stopped.
    assert!(stderr.contains("ralph: ending the loop\n"), "{stderr}");
    assert!(!stderr.contains("the agent"), "{stderr}");
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(finished(&events)["reason"], "interrupted");
    // The limited attempt was not counted, and its event waits for the next one.
    let state = ws.saved_state();
    assert_eq!(
        (&state["state"]["iterations"], &state["state"]["pending"]),
        (
            &json!(0),
            &json!([{"topic": "task.start", "payload": null}])
        )
    );
    assert!(
        ws.summary().contains("| Rate limits | 1 wait of "),
        "{}",
        ws.summary()
    );
    // `--continue` first finishes the wait it was in (the limit is saved with the run:
    // starting at once would spend another attempt on it), then runs the iteration
    // again, and it completes; the limited attempt stays in the history (the state
    // covers it).
    let events = ended(&ws, &["--continue"], 0, "completed");
    let waits = of_type(&events, "rate_limit_wait");
    assert_eq!(
        (waits.len(), &waits[0]["iteration"]),
        (1, &json!(1)),
        "{events:?}"
    );
    assert!(waits[0]["wait_secs"].as_u64().unwrap() <= 4, "{}", waits[0]);
    assert_eq!(finished(&events)["totals"]["iterations"], 1);
    assert_eq!(ws.outcomes(), [json!("rate_limited"), json!("succeeded")]);
    // The continued run knew it was the second attempt: the first transcript is kept.
    assert_eq!(
        (
            command(&ws, "1-limited-1")["attempt"].clone(),
            command(&ws, "1")["attempt"].clone()
        ),
        (json!(1), json!(2))
    );
}

/// The `command.json` of transcript directory `dir` of the run's `iterations/`.
fn command(ws: &Workspace, dir: &str) -> Value {
    let path = ws
        .run_files()
        .dir()
        .join("iterations")
        .join(dir)
        .join("command.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_retry_delay_the_agent_announces_is_not_inactivity() {
    // pi's failed call and its `auto_retry_start` (line 10), the retry announced in 6 s;
    // the agent is silent 4 s there, twice its inactivity timeout, then retries and ends.
    let ws = Workspace::new(
        "cli:\n  backend: pi\n  idle_timeout_seconds: 2\n",
        "pi/openai/flaky.jsonl | LOOP_COMPLETE | sed=s/\"delayMs\":2000/\"delayMs\":6000/ \
         pause_at=10\n",
    );
    let child = ws.start_json(&["-p", "task", "--max-iterations", "1"]);
    common::wait_for_file(&ws.path().join(".fake/paused-10"), "the agent's pause");
    std::thread::sleep(Duration::from_secs(4));
    std::fs::write(ws.path().join(".fake/resume-10"), "").unwrap();
    let out = common::wait_output(child);
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let outcome = &of_type(&events, "iteration_finished")[0]["outcome"];
    assert_eq!(
        (outcome, &finished(&events)["reason"]),
        (&json!({"status": "succeeded"}), &json!("completed")),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
