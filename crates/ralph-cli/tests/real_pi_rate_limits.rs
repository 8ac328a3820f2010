//! The REAL pi and Claude Code hitting a provider's rate limit (the mock answers HTTP 429):
//! ralph sees the limit in the agent's stream, waits, runs the iteration again without
//! counting it, and the loop completes; with `on_rate_limit: failover`, pi's limited
//! attempt runs again at once on its fallback (pi on another model), which completes. A
//! provider that stays overloaded (HTTP 529) is waited for `OVERLOAD_WAITS` times, then each
//! overload counts as a failure and the loop ends at `max_consecutive_failures`.

mod real_common;

use pretty_assertions::assert_eq;
use ralph_core::machine::OVERLOAD_WAITS;
use ralph_test_support::PiOptions;
use real_common::{CLAUDE, PI, RealEnv};
use serde_json::{Value, json};

/// The first request is refused with 429; pi, told not to retry on its own, gives up at
/// once, so the next request is ralph's second attempt.
const SCRIPT: &str = r#"
default: task
scenarios:
  task:
    - text: "Nothing to do.\nLOOP_COMPLETE"
      fault: {http: 429, times: 1, retry_after_ms: 1}
"#;

#[test]
fn pi_hits_a_rate_limit_and_the_loop_waits_and_completes() {
    let Some(env) = RealEnv::start_with(SCRIPT, &[PI], &no_pi_retries()) else {
        return;
    };
    let run = completed_run(&env, PI, "  rate_limit_wait_seconds: 1\n");
    let outcomes: Vec<Value> = run
        .iterations()
        .iter()
        .map(|i| json!([i["iteration"], i["outcome"]["status"]]))
        .collect();
    assert_eq!(
        outcomes,
        [json!([1, "rate_limited"]), json!([1, "succeeded"])]
    );
    let waits = run.of_type("rate_limit_wait");
    assert_eq!((waits.len(), &waits[0]["wait_secs"]), (1, &json!(1)));
    assert!(
        waits[0]["message"].as_str().unwrap().starts_with("429"),
        "{}",
        waits[0]
    );
    let requests: Vec<(usize, u32)> = env
        .model_turns()
        .into_iter()
        .map(|(_, turn, attempt, _)| (turn, attempt))
        .collect();
    assert_eq!(requests, [(0, 0), (0, 1)]);
    // Both attempts keep pi's output: the limited one set aside, read back by its path.
    let run_id = env.file(".ralph/current-run").expect("current-run");
    let limited = env
        .ws()
        .join(".ralph/runs")
        .join(run_id.trim())
        .join("iterations/1-limited-1/stdout.zst");
    let inspect = |args: &[&str]| {
        let out = env.ralph(args).output().expect("ralph inspect");
        ralph_test_support::success_json(&out)
    };
    let first = inspect(&["inspect", limited.to_str().unwrap()]);
    assert_eq!(first["succeeded"], json!(false), "{first}");
    let message = first["rate_limited"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.starts_with("429"), "{first}");
    let latest = inspect(&["inspect", "--run", "last", "--iteration", "1"]);
    assert_eq!(latest["succeeded"], json!(true), "{latest}");
}

/// Every request is refused with 529, the Anthropic API's "overloaded".
const OVERLOADED_SCRIPT: &str = r#"
default: task
scenarios:
  task:
    - text: "never sent"
      fault: {http: 529, retry_after_ms: 1, message: "Overloaded"}
"#;

#[test]
fn pi_on_a_provider_that_stays_overloaded_waits_so_many_times_then_fails() {
    let Some(env) = RealEnv::start_with(OVERLOADED_SCRIPT, &[PI], &no_pi_retries()) else {
        return;
    };
    // Waited for as a rate limit, the overload would double the wait until the runtime
    // limit ended the loop (after about a minute here).
    env.write_pi_config(
        "  rate_limit_wait_seconds: 1\n\
         event_loop:\n  max_iterations: 10\n  max_consecutive_failures: 2\n  \
         max_runtime_seconds: 120\n",
    );
    let run = env.run_json(&["-p", "Finish."]);
    run.assert_ending("consecutive_failures", 1, 1);
    // Three waits that back off, not counted (iteration 1 each time); then two overloads
    // counted as failures, with the first backoff's rest between them.
    let waits: Vec<Value> = run.fields("rate_limit_wait", &["iteration", "wait_secs"]);
    assert_eq!(OVERLOAD_WAITS, 3);
    assert_eq!(
        waits,
        [json!([1, 1]), json!([1, 2]), json!([1, 4]), json!([2, 1])]
    );
    let iterations: Vec<Value> = run
        .iterations()
        .iter()
        .map(|i| json!([i["iteration"], i["outcome"]["status"]]))
        .collect();
    assert_eq!(
        iterations,
        [1, 1, 1, 1, 2].map(|n| json!([n, "rate_limited"]))
    );
    let message = run.finished()["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("2 iterations in a row failed (the last: rate limited: 529")
            && message.contains("; overloaded 5 times in a row: past the first 3,"),
        "{message}"
    );
    assert_eq!(env.model_turns().len(), 5);
}

/// pi told not to retry on its own: its first refused request ends its run.
fn no_pi_retries() -> PiOptions {
    PiOptions {
        max_retries: 0,
        provider_max_retries: Some(0),
        ..PiOptions::default()
    }
}

/// One iteration (`-p Finish.`) with `agent` as the backend (its `cli` section's other
/// lines in `cli`), which must complete.
fn completed_run(env: &RealEnv, agent: &str, cli: &str) -> real_common::JsonRun {
    env.write_config(&format!(
        "cli:\n  backend: {agent}\n  command: {}\n{cli}event_loop:\n  max_iterations: 1\n",
        env.agent_path(agent).display()
    ));
    env.run_json(&["-p", "Finish."]).expect_completed()
}

/// Each `iteration_finished` as `[iteration, backend, outcome]`.
fn attempts(run: &real_common::JsonRun) -> Vec<Value> {
    run.iterations()
        .iter()
        .map(|i| json!([i["iteration"], i["backend"], i["outcome"]["status"]]))
        .collect()
}

/// The first request is refused with 429 and `x-should-retry: false` (the Anthropic SDK
/// in Claude Code then gives up at once) and the providers' rate-limit headers.
const CLAUDE_SCRIPT: &str = r#"
default: task
scenarios:
  task:
    - text: "Nothing to do.\nLOOP_COMPLETE"
      fault: {http: 429, times: 1, retry_after_ms: 1, should_retry: false, limit_reset: 1}
"#;

#[test]
fn claude_hits_a_rate_limit_and_the_loop_waits_and_completes() {
    let Some(env) = RealEnv::start(CLAUDE_SCRIPT, &[CLAUDE]) else {
        return;
    };
    let run = completed_run(&env, CLAUDE, "  rate_limit_wait_seconds: 1\n");
    assert_eq!(
        attempts(&run),
        [
            json!([1, "claude", "rate_limited"]),
            json!([1, "claude", "succeeded"])
        ]
    );
    let waits = run.of_type("rate_limit_wait");
    assert_eq!((waits.len(), &waits[0]["wait_secs"]), (1, &json!(1)));
    let refused = env
        .model_turns()
        .into_iter()
        .filter(|(_, _, _, kind)| kind == "http_error")
        .count();
    assert_eq!(refused, 1);
}

/// The primary's model is the mock's built-in `error429` scenario (a 429 on every
/// request); the fallback, pi on the default model, plays `task`.
const FAILOVER_SCRIPT: &str = r#"
default: task
scenarios:
  task:
    - text: "Nothing to do.\nLOOP_COMPLETE"
"#;

#[test]
fn pi_fails_over_to_its_fallback_and_the_loop_completes() {
    let Some(env) = RealEnv::start_with(FAILOVER_SCRIPT, &[PI], &no_pi_retries()) else {
        return;
    };
    let run = completed_run(
        &env,
        PI,
        "  args: [--model, mock/error429]\n  on_rate_limit: failover\n  \
         fallback: [{type: pi, args: [--model, mock/mock-model]}]\n",
    );
    assert_eq!(
        attempts(&run),
        [
            json!([1, "pi", "rate_limited"]),
            json!([1, "pi", "succeeded"])
        ]
    );
    let failovers = run.of_type("failover");
    assert_eq!(
        failovers
            .iter()
            .map(|f| json!([f["from_fallback"], f["to_fallback"]]))
            .collect::<Vec<_>>(),
        [json!([0, 1])]
    );
    assert!(run.of_type("rate_limit_wait").is_empty());
    let scenarios: Vec<String> = env
        .model_turns()
        .into_iter()
        .map(|(scenario, _, _, _)| scenario)
        .collect();
    assert_eq!(scenarios, ["error429", "task"]);
    let history = env.history();
    assert_eq!(
        history
            .iter()
            .map(|r| r.get("fallback").cloned())
            .collect::<Vec<_>>(),
        [None, Some(json!(1))]
    );
}

#[test]
fn pi_fails_over_to_claude_code_and_the_loop_completes() {
    let Some(env) = RealEnv::start_with(FAILOVER_SCRIPT, &[PI, CLAUDE], &no_pi_retries()) else {
        return;
    };
    // Claude Code is found on PATH (the launcher directory comes first there).
    let run = completed_run(
        &env,
        PI,
        "  args: [--model, mock/error429]\n  on_rate_limit: failover\n  fallback: [claude]\n",
    );
    assert_eq!(
        attempts(&run),
        [
            json!([1, "pi", "rate_limited"]),
            json!([1, "claude", "succeeded"])
        ]
    );
    let failover = run.of_type("failover");
    assert_eq!(
        (failover.len(), &failover[0]["from"], &failover[0]["to"]),
        (1, &json!("pi"), &json!("claude"))
    );
}
