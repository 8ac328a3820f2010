//! Cost estimates for agents that count tokens but report no cost (Codex, Gemini CLI):
//! `ralph run` prices each iteration with the config's `pricing:` on top of the built-in
//! list prices, as the model the agent's arguments ask for when its stream names none;
//! `ralph inspect --model` does the same for a captured stream. Where no price applies
//! the cost is unknown (`null`), never 0.

mod common;

use std::path::PathBuf;

use common::{Workspace, code, finished, of_type};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// The fake agent, run in place of the real binary through `cli.command`.
fn fake_agent() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fake-agents/fake-agent")
        .display()
        .to_string()
}

fn fixture(path: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(path)
        .display()
        .to_string()
}

const CODEX_HAPPY: &str = "codex/v0.169.0_json_happy.jsonl";
const GEMINI_HAPPY: &str = "gemini/v0.61.0_stream-json_happy.jsonl";

/// The Codex capture's usage, as ralph counts it (input without its cached part).
fn codex_tokens() -> Value {
    json!({"input": 1000, "output": 120, "cache_read": 2000, "cache_write": 0})
}

/// A one-iteration run of `backend` replaying `fixture`, with `args` and `pricing` (YAML
/// lines under `pricing:`, none when empty); returns the one `iteration_finished`.
fn one_iteration(backend: &str, fixture: &str, args: &str, pricing: &str) -> Value {
    one_iteration_in(backend, fixture, args, pricing).1
}

/// [`one_iteration`], and the workspace it ran in.
fn one_iteration_in(backend: &str, fixture: &str, args: &str, pricing: &str) -> (Workspace, Value) {
    let pricing = if pricing.is_empty() {
        String::new()
    } else {
        format!("pricing:\n{pricing}")
    };
    let config = format!(
        "cli:\n  backend: {backend}\n  command: {}\n  args: {args}\n\
         event_loop:\n  max_iterations: 1\n{pricing}",
        fake_agent()
    );
    let ws = Workspace::new(&config, &format!("{fixture} | |\n"));
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(
        (code, &finished(&events)["reason"]),
        (0, &json!("completed")),
        "{stderr}"
    );
    let finished = of_type(&events, "iteration_finished");
    assert_eq!(finished.len(), 1);
    let finished = finished[0].clone();
    (ws, finished)
}

fn cost(record: &Value) -> (&Value, &Value, &Value) {
    (&record["cost_usd"], &record["cost_kind"], &record["tokens"])
}

#[test]
fn a_codex_iteration_is_priced_as_the_model_its_args_ask_for() {
    let record = one_iteration(
        "codex",
        CODEX_HAPPY,
        "[-m, my-model]",
        "  my-model: {input: 2, output: 20, cache_read: 0.5}\n",
    );
    // 1000 × 2 + 120 × 20 + 2000 × 0.5, per million tokens.
    assert_eq!(
        cost(&record),
        (&json!(0.0054), &json!("estimated"), &codex_tokens())
    );
}

#[test]
fn a_run_total_that_includes_an_estimate_says_so_everywhere() {
    let (ws, record) = one_iteration_in(
        "codex",
        CODEX_HAPPY,
        "[-m, my-model]",
        "  my-model: {input: 2, output: 20, cache_read: 0.5}\n",
    );
    // The run events' totals.
    assert_eq!(
        (
            &record["totals"]["cost_usd"],
            &record["totals"]["cost_estimated"]
        ),
        (&json!(0.0054), &json!(true)),
        "{record}"
    );
    // summary.md, its hat table too.
    let summary = ws.summary();
    assert!(
        summary.contains("| Cost | ~$0.0054 (includes estimates) |"),
        "{summary}"
    );
    assert!(
        summary.contains("| ~$0.0054 (includes estimates) |"),
        "{summary}"
    );
    // `ralph runs`, as JSON and as a table.
    let out = ws.run(&["runs", "--format", "json"]);
    let row: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(
        (&row["cost_usd"], &row["cost_estimated"]),
        (&json!(0.0054), &json!(true)),
        "{row}"
    );
    let out = ws.run(&["runs"]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains(" ~$0.0054 "), "{table}");
}

#[test]
fn inspect_prices_a_kept_codex_transcript_as_the_run_did() {
    let (ws, record) = one_iteration_in(
        "codex",
        CODEX_HAPPY,
        "[-m, my-model]",
        "  my-model: {input: 2, output: 20, cache_read: 0.5}\n",
    );
    let inspect = |ws: &Workspace| {
        let out = ws.run(&["inspect", "--run", "last", "--iteration", "1"]);
        let summary: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (code(out.status), summary, stderr)
    };
    let (status, summary, stderr) = inspect(&ws);
    assert_eq!((status, cost(&summary)), (0, cost(&record)), "{stderr}");
    assert_eq!(stderr, "");

    // A config broken since the run leaves the transcript readable, at built-in prices
    // (which have no my-model), and says so.
    std::fs::write(ws.path().join("ralph.yml"), "pricing: [\n").expect("write ralph.yml");
    let (status, summary, stderr) = inspect(&ws);
    assert_eq!(
        (status, &summary["cost_usd"], &summary["cost_kind"]),
        (0, &Value::Null, &json!("unknown")),
        "{stderr}"
    );
    assert!(
        stderr.contains("ralph.yml:")
            && stderr.contains("ralph: warning: the config cannot be loaded, so this transcript is priced at the built-in prices"),
        "{stderr}"
    );
}

#[test]
fn a_codex_iteration_without_a_priced_model_has_an_unknown_cost_not_zero() {
    // No model option: Codex's stream does not say which model worked.
    let record = one_iteration(
        "codex",
        CODEX_HAPPY,
        "[]",
        "  gpt-5: {input: 1, output: 1}\n",
    );
    assert_eq!(
        cost(&record),
        (&Value::Null, &json!("unknown"), &codex_tokens())
    );
    // A model option naming a model nobody priced.
    let record = one_iteration("codex", CODEX_HAPPY, "[--model, gpt-5.5]", "");
    assert_eq!(
        cost(&record),
        (&Value::Null, &json!("unknown"), &codex_tokens())
    );
}

#[test]
fn runs_shows_a_run_whose_agent_reported_no_cost_as_unknown_not_free() {
    let config = format!(
        "cli:\n  backend: codex\n  command: {}\nevent_loop:\n  max_iterations: 1\n",
        fake_agent()
    );
    let ws = Workspace::new(&config, &format!("{CODEX_HAPPY} | |\n"));
    let (code, _, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 0, "{stderr}");
    let out = ws.run(&["runs", "--format", "json"]);
    let row: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(
        (&row["cost_usd"], &row["cost_complete"]),
        (&Value::Null, &json!(false))
    );
    let out = ws.run(&["runs"]);
    let table = String::from_utf8_lossy(&out.stdout);
    let cost = table
        .lines()
        .nth(1)
        .and_then(|row| row.split_whitespace().nth(6));
    assert_eq!(cost, Some("unknown"), "{table}");
}

#[test]
fn configured_prices_replace_the_built_in_price_of_a_model_the_stream_names() {
    // Gemini names its model (gemini-2.5-pro) itself; no model option is needed.
    let record = one_iteration(
        "gemini",
        GEMINI_HAPPY,
        "[]",
        "  gemini-2.5-pro: {input: 10, output: 100, cache_read: 1}\n",
    );
    // 800 × 10 + 124 × 100 + 1600 × 1, per million tokens.
    assert_eq!(
        cost(&record),
        (
            &json!(0.022),
            &json!("estimated"),
            &json!({"input": 800, "output": 124, "cache_read": 1600, "cache_write": 0})
        )
    );
}

/// `ralph inspect ARGS` in a workspace holding `ralph_yml` (none when empty): exit code,
/// stdout parsed as the one summary object, stderr.
fn inspect(ralph_yml: &str, args: &[&str]) -> (i32, Value, String) {
    let ws = Workspace::new(ralph_yml, "");
    let mut all = vec!["inspect"];
    all.extend_from_slice(args);
    let out = ws.run(&all);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary = serde_json::from_str(stdout.trim()).unwrap_or(Value::Null);
    (
        code(out.status),
        summary,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn inspect_prices_a_codex_capture_as_the_model_given() {
    let codex = fixture(CODEX_HAPPY);
    let (status, summary, _) = inspect("", &["--model", "gpt-5", &codex]);
    // Built-in gpt-5: 1000 × 1.25 + 120 × 10 + 2000 × 0.125, per million tokens.
    assert_eq!(
        (status, &summary["cost_usd"], &summary["cost_kind"]),
        (0, &json!(0.0027), &json!("estimated"))
    );
    let (status, summary, _) = inspect("", &[&codex]);
    assert_eq!(
        (status, &summary["cost_usd"], &summary["cost_kind"]),
        (0, &Value::Null, &json!("unknown"))
    );
}

#[test]
fn inspect_reads_the_prices_of_ralph_yml_or_of_the_file_given_with_c() {
    let codex = fixture(CODEX_HAPPY);
    let yml = "pricing:\n  gpt-5.5: {input: 2, output: 20, cache_read: 0.5}\n";
    let (status, summary, stderr) = inspect(yml, &["--model", "gpt-5.5", &codex]);
    assert_eq!(
        (status, &summary["cost_usd"], &summary["cost_kind"]),
        (0, &json!(0.0054), &json!("estimated")),
        "{stderr}"
    );

    let ws = Workspace::new("", "");
    std::fs::write(
        ws.path().join("prices.yml"),
        "pricing:\n  gpt-5.5: {input: 0, output: 0}\n",
    )
    .expect("write prices.yml");
    let out = ws.run(&["inspect", "-c", "prices.yml", "--model", "gpt-5.5", &codex]);
    let summary: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(
        (
            code(out.status),
            &summary["cost_usd"],
            &summary["cost_kind"]
        ),
        (0, &json!(0.0), &json!("estimated"))
    );
}

#[test]
fn inspect_reports_a_pricing_mistake_at_its_place() {
    let codex = fixture(CODEX_HAPPY);
    let yml = "pricing:\n  gpt-5.5: {input: 2}\n";
    let (status, summary, stderr) = inspect(yml, &["--model", "gpt-5.5", &codex]);
    assert_eq!((status, summary), (1, Value::Null));
    assert!(
        stderr.contains(
            "ralph.yml:2:3: `pricing.gpt-5.5.output` is missing: give it in US dollars per \
             million tokens"
        ),
        "{stderr}"
    );
}

#[test]
fn claude_stopped_after_its_model_answered_is_billed_at_least_not_free() {
    // Claude Code reports usage only in its final `result`: stopped after two tool calls
    // (line 12), it reported none, yet its model answered twice.
    let ws = Workspace::new(
        "cli:\n  backend: claude\n",
        "claude/v2.1.332_rich.jsonl | | pause_at=12\n",
    );
    let child = ws.start_json(&["-p", "task"]);
    common::wait_for_file(&ws.path().join(".fake/paused-12"), "the agent's pause");
    let events = common::interrupt_json(&ws, child);
    let totals = &common::finished(&events)["totals"];
    assert_eq!(totals["cost_complete"], json!(false), "{totals}");
    let out = ws.run(&["runs", "--format", "json"]);
    let row: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(row["cost_complete"], json!(false), "{row}");
}

#[test]
fn a_custom_agent_stopped_after_it_answered_has_an_unknown_cost_not_zero() {
    let ws = Workspace::new(
        "cli:\n  backend: custom\n  command: sh\n  args: [-c, 'echo working on it; touch \
         started; exec sleep 60']\n",
        "",
    );
    let child = ws.start_json(&["-p", "task"]);
    common::wait_for_file(&ws.path().join("started"), "the agent's start");
    let events = common::interrupt_json(&ws, child);
    let totals = &finished(&events)["totals"];
    assert_eq!(totals["cost_complete"], json!(false), "{totals}");
}

#[test]
fn claude_stopped_before_its_result_costs_its_estimate_where_its_model_is_priced() {
    // As above, with a price for the model: each call's tokens at $1 a million.
    let ws = Workspace::new(
        "cli:\n  backend: claude\npricing:\n  claude-opus-5-5: \
         {input: 1, output: 1, cache_read: 1, cache_write: 1}\n",
        "claude/v2.1.332_rich.jsonl | | pause_at=12\n",
    );
    let child = ws.start_json(&["-p", "task"]);
    common::wait_for_file(&ws.path().join(".fake/paused-12"), "the agent's pause");
    let events = common::interrupt_json(&ws, child);
    let finished = of_type(&events, "iteration_finished");
    let record = finished.first().expect("one iteration_finished");
    let tokens: u64 = ["input", "output", "cache_read", "cache_write"]
        .iter()
        .map(|part| record["tokens"][part].as_u64().unwrap_or_default())
        .sum();
    assert!(tokens > 0, "{record}");
    // Stopped before its `result`, the counts are the least it used: its second
    // response's output count never came (its `message_delta`), so it is not called whole.
    assert_eq!(
        (
            &record["tokens_known"],
            &record["totals"]["tokens_complete"]
        ),
        (&json!(false), &json!(false)),
        "{record}"
    );
    let estimate = tokens as f64 / 1e6;
    assert_eq!(
        (&record["cost_usd"], &record["cost_kind"]),
        (&json!(estimate), &json!("estimated")),
        "{record}"
    );
    // `ralph inspect` prices the kept transcript the same way.
    let out = ws.run(&["inspect", "--run", "last", "--iteration", "1"]);
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(
        (&summary["cost_usd"], &summary["cost_kind"]),
        (&json!(estimate), &json!("estimated")),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn claude_stopped_while_its_model_answers_costs_the_estimate_of_its_message_start() {
    // Stopped after the first text delta (line 5): the call's `message_start` gave its
    // model and input (1000 tokens, 500 written to the cache, the output placeholder of 1),
    // and no `assistant` line came.
    let ws = Workspace::new(
        "cli:\n  backend: claude\npricing:\n  claude-opus-5-5: \
         {input: 1, output: 1, cache_read: 1, cache_write: 1}\n",
        "claude/v2.1.332_partial_text.jsonl | | pause_at=5\n",
    );
    let child = ws.start_json(&["-p", "task"]);
    common::wait_for_file(&ws.path().join(".fake/paused-5"), "the agent's pause");
    let events = common::interrupt_json(&ws, child);
    let finished = of_type(&events, "iteration_finished");
    let record = finished.first().expect("one iteration_finished");
    let estimate = 1501.0 / 1e6;
    assert_eq!(
        (
            &record["cost_usd"],
            &record["cost_kind"],
            &record["tokens_known"]
        ),
        (&json!(estimate), &json!("estimated"), &json!(false)),
        "{record}"
    );
    // The run's total is that estimate, whole and marked so, not "at least" a known part.
    let totals = &record["totals"];
    assert_eq!(
        (
            &totals["cost_usd"],
            &totals["cost_complete"],
            &totals["cost_estimated"]
        ),
        (&json!(estimate), &json!(true), &json!(true)),
        "{totals}"
    );
    let summary = ws.summary();
    assert!(
        summary.contains("| Cost | ~$0.0015 (includes estimates) |"),
        "{summary}"
    );
}

#[test]
fn pi_stopped_in_its_second_call_costs_at_least_its_first_in_every_view() {
    // pi priced its first call ($0.00525, line 24) and was stopped two text deltas into its
    // second (line 37): that call was billed and priced nowhere.
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/openai/tool.jsonl | | pause_at=37\n",
    );
    let child = ws.start_json(&["-p", "task"]);
    common::wait_for_file(&ws.path().join(".fake/paused-37"), "the agent's pause");
    let events = common::interrupt_json(&ws, child);
    let finished = of_type(&events, "iteration_finished");
    let record = finished.first().expect("one iteration_finished");
    assert_eq!(
        (&record["cost_usd"], &record["cost_kind"]),
        (&json!(0.00525), &json!("unknown")),
        "{record}"
    );
    let totals = &record["totals"];
    assert_eq!(
        (&totals["cost_usd"], &totals["cost_complete"]),
        (&json!(0.00525), &json!(false)),
        "{totals}"
    );
    let summary = ws.summary();
    assert!(
        summary
            .contains("| Cost | at least $0.0053 (1 iteration reported only part of its cost) |"),
        "{summary}"
    );
    let out = ws.run(&["runs", "--format", "json"]);
    let row: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(row["cost_complete"], json!(false), "{row}");
    let out = ws.run(&["runs"]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains(" at least $0.0053 "), "{table}");
}

#[test]
fn pi_stopped_by_the_budget_between_its_calls_costs_exactly_what_it_priced() {
    // pi prices its first call ($0.00525, line 24), which crosses the budget, and is
    // stopped running its tool (paused after line 26). Killed, pi writes no `agent_end`,
    // but no call was in flight: its cost is whole, and the budget was not overrun.
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/openai/tool.jsonl | | pause_at=26\n",
    );
    let (code, events, stderr) = ws.run_json(&["-p", "task", "--max-cost", "0.001"]);
    assert_eq!(
        (code, &finished(&events)["reason"]),
        (2, &json!("max_cost")),
        "{stderr}"
    );
    let record = of_type(&events, "iteration_finished")[0].clone();
    assert_eq!(
        (
            &record["cost_usd"],
            &record["cost_kind"],
            &record["tokens_known"]
        ),
        (&json!(0.00525), &json!("reported"), &json!(true)),
        "{record}"
    );
    assert_eq!(record["totals"]["cost_complete"], json!(true), "{record}");
    let notices: Vec<&Value> = of_type(&events, "notice")
        .into_iter()
        .filter(|n| n["notice"] == "cost_unknown")
        .collect();
    assert_eq!(notices, Vec::<&Value>::new());
    let summary = ws.summary();
    assert!(summary.contains("| Cost | $0.0053 |"), "{summary}");
}
