//! One run, several real agents: hats with their own backends (pi on the Chat Completions
//! wire, Claude Code, pi on the Anthropic wire through the hat's args), and the cost and
//! tokens in ralph's totals, checked against the usage the mock scripted and against what pi
//! and Claude report when run by themselves.

mod real_common;

use pretty_assertions::assert_eq;
use ralph_agent::{BackendKind, BackendProfile};
use ralph_test_support::{PRICE_CACHE_READ, PRICE_CACHE_WRITE, PRICE_INPUT, PRICE_OUTPUT};
use real_common::{CLAUDE, PI, RealEnv, three_hats_script};
use serde_json::{Value, json};

/// The reviewer's args switch pi to the Anthropic wire. `--provider` alone would not: pi
/// (0.73.1) keeps the default model of `settings.json` with that model's own provider.
const HATS_CONFIG: &str = "\
cli:
  backend: pi
event_loop:
  starting_event: work.start
  max_iterations: 5
hats:
  planner:
    name: Planner
    description: Plans
    triggers: [work.start]
    publishes: [plan.ready]
    instructions: You are the planner.
  builder:
    name: Builder
    description: Builds
    triggers: [plan.ready]
    publishes: [build.done]
    backend: claude
    instructions: You are the builder.
  reviewer:
    name: Reviewer
    description: Reviews
    triggers: [build.done]
    publishes: [review.approved, LOOP_COMPLETE]
    backend: {type: pi, args: [--provider, mock-anthropic, --model, mock-model]}
    instructions: You are the reviewer.
";

#[test]
fn hats_hand_over_between_pi_and_claude_code_in_one_run() {
    let Some(env) = RealEnv::start(&three_hats_script("hello from claude\n"), &[PI, CLAUDE]) else {
        return;
    };
    env.write_config(HATS_CONFIG);
    let run = env.run_json(&["-p", "Say hello in hello.txt."]);
    run.assert_ending("completed", 0, 0);
    let iterations: Vec<Value> = env
        .history()
        .iter()
        .map(|r| json!([r["hat"], r["backend"], r["outcome"]["status"], r["events"]]))
        .collect();
    assert_eq!(
        iterations,
        vec![
            json!(["planner", "pi", "succeeded",
                [{"topic": "plan.ready", "payload": "write hello.txt"}]]),
            json!(["builder", "claude", "succeeded",
                [{"topic": "build.done", "payload": "wrote hello.txt in iteration 2"}]]),
            json!(["reviewer", "pi", "succeeded",
                [{"topic": "review.approved", "payload": "hello.txt says hello from claude"},
                 {"topic": "LOOP_COMPLETE", "payload": null}]]),
        ]
    );
    // Each hat's agent spoke its own wire, and Claude used its own tool names.
    let wires: Vec<(String, String)> = env
        .server
        .model_requests()
        .into_iter()
        .filter_map(|r| r.routed.map(|routed| (routed, r.path)))
        .filter_map(|(routed, path)| routed.scenario.map(|s| (s, path)))
        .collect();
    let expected_wires: Vec<(String, String)> = [
        ("planner", "/v1/chat/completions"),
        ("planner", "/v1/chat/completions"),
        ("builder", "/v1/messages?beta=true"),
        ("builder", "/v1/messages?beta=true"),
        ("builder", "/v1/messages?beta=true"),
        ("reviewer", "/v1/messages"),
        ("reviewer", "/v1/messages"),
        ("reviewer", "/v1/messages"),
    ]
    .iter()
    .map(|(s, p)| ((*s).to_owned(), (*p).to_owned()))
    .collect();
    assert_eq!(wires, expected_wires);
    let claude_tools: Vec<&Value> = run
        .agent_events(2)
        .into_iter()
        .filter(|e| e["type"] == "tool_call_started")
        .map(|e| &e["name"])
        .collect();
    assert_eq!(claude_tools, vec![&json!("Write"), &json!("Bash")]);
    assert_eq!(
        env.file("hello.txt"),
        Some("hello from claude\n".to_owned())
    );
}

/// Usage scripted turn by turn, so the totals are known in advance.
const COUNTED: &str = r#"
routes:
  - {contains: "You are the counter", scenario: counter}
  - {contains: "You are the checker", scenario: checker}
scenarios:
  counter:
    - shell: ralph emit counted
      usage: {input: 1200, output: 30, cache_read: 0, cache_write: 600}
    - text: Counted.
      usage: {input: 1500, output: 8, cache_read: 1100, cache_write: 0}
  checker:
    - shell: ralph emit LOOP_COMPLETE
      usage: {input: 2000, output: 40, cache_read: 300, cache_write: 700}
    - text: Checked.
      usage: {input: 2100, output: 5, cache_read: 3000, cache_write: 0}
"#;

const COUNTED_CONFIG: &str = "\
cli:
  backend: pi
event_loop:
  starting_event: count.start
  max_iterations: 4
hats:
  counter:
    name: Counter
    description: Counts
    triggers: [count.start]
    publishes: [counted]
    instructions: You are the counter.
  checker:
    name: Checker
    description: Checks
    triggers: [counted]
    publishes: [LOOP_COMPLETE]
    backend: claude
    instructions: You are the checker.
";

/// `[input, output, cache_read, cache_write]`.
fn tokens(t: &Value) -> [u64; 4] {
    ["input", "output", "cache_read", "cache_write"].map(|k| t[k].as_u64().unwrap_or(u64::MAX))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn cost_and_tokens_in_the_totals_are_what_the_agents_reported() {
    let Some(env) = RealEnv::start(COUNTED, &[PI, CLAUDE]) else {
        return;
    };
    env.write_config(COUNTED_CONFIG);
    let run = env.run_json(&["-p", "Count."]);
    run.assert_ending("completed", 0, 0);
    let pi_tokens = [1200 + 1500, 30 + 8, 1100, 600];
    let claude_tokens = [2000 + 2100, 40 + 5, 300 + 3000, 700];
    let pi_cost = (pi_tokens[0] as f64 * PRICE_INPUT
        + pi_tokens[1] as f64 * PRICE_OUTPUT
        + pi_tokens[2] as f64 * PRICE_CACHE_READ
        + pi_tokens[3] as f64 * PRICE_CACHE_WRITE)
        / 1e6;
    let iterations = run.iterations();
    let per_iteration: Vec<(&Value, [u64; 4], &Value)> = iterations
        .iter()
        .map(|i| (&i["backend"], tokens(&i["tokens"]), &i["cost_kind"]))
        .collect();
    assert_eq!(
        per_iteration,
        vec![
            (&json!("pi"), pi_tokens, &json!("reported")),
            (&json!("claude"), claude_tokens, &json!("reported")),
        ]
    );
    let ralph_pi_cost = iterations[0]["cost_usd"].as_f64().unwrap_or_default();
    let ralph_claude_cost = iterations[1]["cost_usd"].as_f64().unwrap_or_default();
    assert!(
        close(ralph_pi_cost, pi_cost),
        "{ralph_pi_cost} vs {pi_cost}"
    );

    // pi and Claude by themselves, on the same scenarios, report the same.
    let pi_alone = env.run_agent(
        PI,
        &[
            "-p",
            "--mode",
            "json",
            "--no-session",
            "You are the counter.",
        ],
    );
    let (pi_alone_tokens, pi_alone_cost) = pi_usage(&pi_alone.stdout);
    assert_eq!(pi_alone_tokens, pi_tokens);
    assert!(close(pi_alone_cost, ralph_pi_cost), "{pi_alone_cost}");
    // With ralph's own arguments (its profile's, so they cannot drift), the prompt after them.
    let claude_args = BackendProfile::of(BackendKind::Claude).headless_args;
    let claude_alone = env.run_agent(CLAUDE, &[claude_args, &["You are the checker."]].concat());
    let streamed = String::from_utf8_lossy(&claude_alone.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .any(|line| line["type"] == "stream_event");
    assert!(
        streamed,
        "Claude Code wrote no stream_event: not run as ralph runs it"
    );
    let (claude_alone_tokens, claude_alone_cost) = claude_usage(&claude_alone.stdout);
    assert_eq!(claude_alone_tokens, claude_tokens);
    assert!(
        claude_alone_cost > 0.0 && close(claude_alone_cost, ralph_claude_cost),
        "claude says {claude_alone_cost}, ralph {ralph_claude_cost}"
    );

    let totals = &run.finished()["totals"];
    let sum: [u64; 4] = std::array::from_fn(|k| pi_tokens[k] + claude_tokens[k]);
    assert_eq!(
        (
            tokens(&totals["tokens"]),
            &totals["iterations"],
            &totals["cost_complete"]
        ),
        (sum, &json!(2), &json!(true))
    );
    let total_cost = totals["cost_usd"].as_f64().unwrap_or_default();
    assert!(
        close(total_cost, pi_cost + claude_alone_cost),
        "{total_cost}"
    );
}

/// Tokens and cost summed over pi's assistant messages (`--mode json`).
fn pi_usage(stdout: &[u8]) -> ([u64; 4], f64) {
    let mut tokens = [0; 4];
    let mut cost = 0.0;
    for line in String::from_utf8_lossy(stdout).lines() {
        let v: Value = serde_json::from_str(line).expect("pi JSON line");
        if v["type"] == "message_end" && v["message"]["role"] == "assistant" {
            let u = &v["message"]["usage"];
            for (k, key) in ["input", "output", "cacheRead", "cacheWrite"]
                .iter()
                .enumerate()
            {
                tokens[k] += u[key].as_u64().unwrap_or_default();
            }
            cost += u["cost"]["total"].as_f64().unwrap_or_default();
        }
    }
    (tokens, cost)
}

/// Tokens and cost of Claude's `result` line (`stream-json`).
fn claude_usage(stdout: &[u8]) -> ([u64; 4], f64) {
    let text = String::from_utf8_lossy(stdout);
    let result: Value = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "result")
        .unwrap_or_else(|| panic!("no result line in:\n{text}"));
    let u = &result["usage"];
    let tokens = [
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    ]
    .map(|k| u[k].as_u64().unwrap_or(u64::MAX));
    (
        tokens,
        result["total_cost_usd"].as_f64().unwrap_or_default(),
    )
}
