//! `event_loop.max_cost_usd` with the REAL Claude Code against the offline mock model.
//! Claude Code prices its session only in its last line (`result`), so each model call
//! counts at ralph's estimate (its tokens at the model's list price) until then: ralph stops
//! it at the call that crosses the budget, as it stops pi, and says "stopped at the cost
//! limit" only of a run that the stop cut short.

mod real_common;

use pretty_assertions::assert_eq;
use real_common::{CLAUDE, RealEnv};
use serde_json::{Value, json};

/// Each call costs $0.012 at claude-sonnet-4-5's list price ($3 input, $15 output, $3.75
/// cache write per million): 1000 × 3 + 100 × 15 + 2000 × 3.75 = 12,000 millionths.
const SCRIPT: &str = r#"
default: task
scenarios:
  task:
    - {shell: 'echo 1', usage: {input: 1000, output: 100, cache_read: 0, cache_write: 2000}}
    - {shell: 'echo 2', usage: {input: 1000, output: 100, cache_read: 0, cache_write: 2000}}
    - {shell: 'echo 3', usage: {input: 1000, output: 100, cache_read: 0, cache_write: 2000}}
    - {shell: 'echo 4', usage: {input: 1000, output: 100, cache_read: 0, cache_write: 2000}}
    - {shell: 'echo 5', usage: {input: 1000, output: 100, cache_read: 0, cache_write: 2000}}
    - {text: "Done.", usage: {input: 1000, output: 100, cache_read: 0, cache_write: 2000}}
"#;

/// Runs Claude Code on claude-sonnet-4-5 with a budget of `max_cost`, which must end the
/// loop on the cost limit (exit 2): the iterations' outcomes, and how many of the script's
/// model calls the mock served.
fn run_to_the_budget(max_cost: &str) -> Option<(Vec<Value>, usize)> {
    let env = RealEnv::start(SCRIPT, &[CLAUDE])?;
    env.write_config(&format!(
        "cli:\n  backend: claude\n  args: [--model, claude-sonnet-4-5]\n\
         event_loop:\n  max_iterations: 2\n  max_cost_usd: {max_cost}\n"
    ));
    let run = env.run_json(&["-p", "Run the steps."]);
    assert_eq!(
        (run.ending().0.as_str(), run.code),
        ("max_cost", 2),
        "stderr:\n{}",
        run.stderr
    );
    let outcomes = env.history().iter().map(|r| r["outcome"].clone()).collect();
    let calls = env
        .model_turns()
        .iter()
        .filter(|(scenario, ..)| scenario == "task")
        .count();
    Some((outcomes, calls))
}

#[test]
fn the_cost_budget_stops_claude_at_the_call_that_crosses_it() {
    let Some((outcomes, served)) = run_to_the_budget("0.02") else {
        return;
    };
    assert_eq!(outcomes, vec![json!({"status": "stopped_at_cost_limit"})]);
    // The second call crossed $0.02. Claude Code asks for the third as soon as the second's
    // tool is done, which may reach the mock before the stop does; never more.
    assert!((2..=3).contains(&served), "{served} calls served");
}

#[test]
fn a_budget_crossed_by_claudes_last_call_is_not_called_a_stop() {
    // Six calls, $0.072: the last one crosses $0.07, with the run's end.
    let Some((outcomes, served)) = run_to_the_budget("0.07") else {
        return;
    };
    assert_eq!(outcomes, vec![json!({"status": "succeeded"})]);
    assert_eq!(served, 6);
}
