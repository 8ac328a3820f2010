//! `ralph run` driving the REAL Codex, Gemini CLI, OpenCode and Copilot (installed by
//! scripts/install-agents.sh) against the mock model server, offline, each in its own HOME.
//!
//! Per agent, one iteration through `ralph run --output json -b AGENT`:
//! - a tool-using run: the agent runs the scripted shell command (the file it writes is
//!   checked), the call and its result arrive as normalized `tool_call_started` /
//!   `tool_call_finished` events, the final answer is the last `message_finished`, and
//!   `iteration_finished` has the tokens the mock sent and the cost: estimated from the
//!   prices configured here for Codex (which names no model: ralph takes `-m` from
//!   `cli.args`) and Gemini CLI, reported by OpenCode (from its own model prices), unknown
//!   for Copilot (no tokens, no cost);
//! - a model that answers HTTP 500 to every attempt: the agent gives up and ralph reports
//!   the iteration as failed;
//! - a model that answers HTTP 429 (with `retry-after` and the providers' rate-limit
//!   headers): ralph reports the iteration as `rate_limited` (with the reset time where the
//!   agent passes it on: OpenCode).
//!
//! And two facts ralph's command lines depend on: OpenCode (run with `--auto`) may touch a
//! file outside the workspace without its run ending on an unanswerable question, and Codex,
//! whose login shell may lose ralph's `PATH`, publishes events through `$RALPH_BIN emit`.
//!
//! A missing agent fails with the install command, unless `RALPH_SKIP_REAL_AGENTS=1`.

#[path = "real_more_agents/harness.rs"]
mod harness;

use harness::{
    Agent, COMMAND, FILE_TEXT, FINAL_TEXT, RealRun, SCRIPT, WORK_TOKENS, run_ralph, run_ralph_with,
};
use pretty_assertions::assert_eq;
use ralph_core::machine::MAX_EMPTY_CALLS_IN_A_ROW;
use ralph_test_support::{
    AgentSetup, CodexOptions, CopilotOptions, GeminiOptions, PRICE_CACHE_READ, PRICE_INPUT,
    PRICE_OUTPUT, ReplyOutcome,
};
use serde_json::{Value, json};

const CODEX: Agent = Agent {
    name: "codex",
    setup: |root, url| AgentSetup::codex(root, url, &CodexOptions::default()).expect("setup"),
    // The model Codex is configured with, said again so ralph knows which price applies.
    args: "[-m, gpt-5.5]",
    pricing: "  gpt-5.5: {input: 1.25, output: 10, cache_read: 0.125}\n",
};

const GEMINI: Agent = Agent {
    name: "gemini",
    setup: |root, url| AgentSetup::gemini(root, url, &GeminiOptions::default()).expect("setup"),
    // Gemini names its model in its stream: no model option needed.
    args: "[]",
    // Replaces the built-in list price of gemini-2.5-pro.
    pricing: "  gemini-2.5-pro: {input: 2, output: 12, cache_read: 0.5}\n",
};

const OPENCODE: Agent = Agent {
    name: "opencode",
    setup: |root, url| AgentSetup::opencode(root, url).expect("setup"),
    args: "[]",
    // OpenCode reports its own cost: ralph's prices must not touch it.
    pricing: "  mock-model: {input: 100, output: 100}\n",
};

const COPILOT: Agent = Agent {
    name: "copilot",
    setup: |root, url| AgentSetup::copilot(root, url, &CopilotOptions::default()).expect("setup"),
    args: "[]",
    // Copilot reports no tokens: there is nothing to price, whatever the table says.
    pricing: "  gpt-4.1: {input: 2, output: 8}\n",
};

/// What one agent's tool-using run must report.
struct Expected {
    tool: Value,
    tool_output: &'static str,
    tokens: Value,
    cost_usd: Value,
    cost_kind: &'static str,
}

fn work_tokens() -> Value {
    Value::Object(
        WORK_TOKENS
            .iter()
            .map(|(k, v)| ((*k).to_owned(), json!(v)))
            .collect(),
    )
}

/// Checks a run of the `work` scenario.
fn check_work(run: &RealRun, expected: &Expected) {
    let context = run.context();
    assert_eq!(
        (run.code, &run.one("loop_finished")["reason"]),
        (0, &json!("completed")),
        "{context}"
    );
    // The tool call and its result, normalized.
    let started: Vec<Value> = run
        .agent_events_of("tool_call_started")
        .into_iter()
        .map(|e| json!({"name": e["name"], "args": e["args"]}))
        .collect();
    assert_eq!(started, std::slice::from_ref(&expected.tool), "{context}");
    let finished: Vec<Value> = run
        .agent_events_of("tool_call_finished")
        .into_iter()
        .map(|e| json!({"output": e["output"], "is_error": e["is_error"]}))
        .collect();
    assert_eq!(
        finished,
        [json!({"output": expected.tool_output, "is_error": false})],
        "{context}"
    );
    // The file the command wrote.
    let written = std::fs::read_to_string(run.workspace.join("out.txt")).unwrap_or_default();
    assert_eq!(written, FILE_TEXT);
    // The final answer.
    let texts: Vec<&Value> = run
        .agent_events_of("message_finished")
        .into_iter()
        .map(|e| &e["text"])
        .collect();
    assert_eq!(texts.last(), Some(&&json!(FINAL_TEXT)), "{context}");
    // Tokens, cost, outcome.
    let iteration = run.one("iteration_finished");
    assert_eq!(
        (
            &iteration["outcome"]["status"],
            &iteration["tokens"],
            &iteration["cost_usd"],
            &iteration["cost_kind"],
        ),
        (
            &json!("succeeded"),
            &expected.tokens,
            &expected.cost_usd,
            &json!(expected.cost_kind),
        ),
        "{context}"
    );
    assert!(!iteration["completion"].is_null(), "{context}");
}

/// Checks a run of the `fail` scenario: every model request failed, and so did the
/// iteration, which ended the loop (`max_consecutive_failures: 1`); its reason holds each
/// of `reason_parts` (the exit code, and the agent's last error where it passes the mock's
/// message on).
fn check_failure(run: &RealRun, reason_parts: &[&str]) {
    let context = run.context();
    let iteration = run.one("iteration_finished");
    assert_eq!(
        (
            &iteration["outcome"]["status"],
            &run.one("loop_finished")["reason"],
            run.code,
        ),
        (&json!("failed"), &json!("consecutive_failures"), 1),
        "{context}"
    );
    let reason = iteration["outcome"]["reason"].as_str().unwrap_or_default();
    for part in reason_parts {
        assert!(
            reason.contains(part),
            "{part:?} not in {reason:?}\n{context}"
        );
    }
    let model_requests: Vec<ReplyOutcome> = run
        .server
        .requests()
        .into_iter()
        .filter_map(|r| r.routed)
        .filter(|r| r.scenario.as_deref() == Some("fail"))
        .map(|r| r.outcome)
        .collect();
    assert!(!model_requests.is_empty(), "{context}");
    assert!(
        model_requests
            .iter()
            .all(|o| *o == ReplyOutcome::HttpError { status: 500 }),
        "{context}"
    );
}

#[test]
fn codex_runs_a_tool_and_its_tokens_are_priced_as_the_model_ralph_passed() {
    let Some(run) = run_ralph(&CODEX, "work") else {
        return;
    };
    // 3000 × 1.25 + 50 × 10 + 1000 × 0.125, per million tokens.
    check_work(
        &run,
        &Expected {
            tool: json!({"name": "command_execution",
                         "args": {"command": format!("/bin/bash -lc {}", sh_quote(COMMAND))}}),
            tool_output: FILE_TEXT,
            tokens: work_tokens(),
            cost_usd: json!(0.004375),
            cost_kind: "estimated",
        },
    );
}

#[test]
fn codex_publishes_an_event_through_ralph_bin() {
    // Codex's commands run in a login shell, whose profile may reset PATH (and with it the
    // ralph that ralph put first on it); `$RALPH_BIN` survives.
    codex_publishes_work_done("emit");
}

#[test]
fn codex_runs_ralph_by_its_name_although_its_login_shell_resets_path() {
    // The profile of Codex's login shell sets PATH anew (Debian's does), so the ralph
    // that ralph put first on it is gone; the `ralph` function ralph exports to bash is
    // not, and it is what a preset's or a person's `ralph emit` runs.
    codex_publishes_work_done("emit_by_name");
}

/// Codex runs `scenario`, which publishes `work.done`, and the iteration has it.
fn codex_publishes_work_done(scenario: &str) {
    let Some(run) = run_ralph(&CODEX, scenario) else {
        return;
    };
    let context = run.context();
    assert_eq!(
        (run.code, &run.one("events_emitted")["events"]),
        (
            0,
            &json!([{"topic": "work.done", "payload": "from the agent"}])
        ),
        "{context}"
    );
}

#[test]
fn codex_failing_model_fails_the_iteration() {
    if let Some(run) = run_ralph(&CODEX, "fail") {
        // Codex replaces a 500's message with its own ("We're currently experiencing high
        // demand...").
        check_failure(&run, &["exited with code 1", "last error: "]);
    }
}

#[test]
fn gemini_runs_a_tool_and_its_tokens_are_priced_with_the_configured_price() {
    let Some(run) = run_ralph(&GEMINI, "work") else {
        return;
    };
    // 3000 × 2 + 50 × 12 + 1000 × 0.5, per million tokens.
    check_work(
        &run,
        &Expected {
            tool: json!({"name": "run_shell_command", "args": {"command": COMMAND}}),
            tool_output: FILE_TEXT.trim_end(),
            tokens: work_tokens(),
            cost_usd: json!(0.0071),
            cost_kind: "estimated",
        },
    );
}

#[test]
fn gemini_failing_model_fails_the_iteration() {
    if let Some(run) = run_ralph(&GEMINI, "fail") {
        // Gemini CLI exits with the HTTP status modulo 256.
        check_failure(&run, &["exited with code 244", "mock outage"]);
    }
}

#[test]
fn opencode_runs_a_tool_and_reports_its_own_cost() {
    let Some(run) = run_ralph(&OPENCODE, "work") else {
        return;
    };
    // OpenCode prices each step with the model's configured prices (the mock's); its
    // arithmetic is JavaScript's, so the sum is compared to the last bit only below.
    let step = |input: f64, output: f64, cache_read: f64| {
        (input * PRICE_INPUT + output * PRICE_OUTPUT + cache_read * PRICE_CACHE_READ) / 1e6
    };
    let expected = step(1000.0, 40.0, 0.0) + step(2000.0, 10.0, 1000.0);
    let reported = run.one("iteration_finished")["cost_usd"].clone();
    let off = (reported.as_f64().unwrap_or(f64::NAN) - expected).abs();
    assert!(off < 1e-12, "cost {reported} instead of {expected}");
    // What ralph reports is exactly the sum of what OpenCode reported per step.
    let steps: f64 = run
        .agent_events_of("turn_finished")
        .iter()
        .map(|e| e["usage"]["cost_usd"].as_f64().unwrap_or(f64::NAN))
        .sum();
    check_work(
        &run,
        &Expected {
            tool: json!({"name": "bash", "args": {"command": COMMAND}}),
            tool_output: FILE_TEXT,
            tokens: work_tokens(),
            cost_usd: json!(steps),
            cost_kind: "reported",
        },
    );
}

#[test]
fn opencode_may_work_outside_the_workspace_without_a_question_ending_its_run() {
    // Without `--auto` in ralph's command line, OpenCode rejects the call (nobody can
    // approve it) and ends the run at once with exit 0, before its final answer.
    let Some(run) = run_ralph(&OPENCODE, "outside") else {
        return;
    };
    let context = run.context();
    let outside = run.workspace.parent().map(|root| root.join("outside.txt"));
    let written = outside.and_then(|path| std::fs::read_to_string(path).ok());
    assert_eq!(
        (
            run.code,
            &run.one("iteration_finished")["outcome"]["status"],
            written.as_deref()
        ),
        (0, &json!("succeeded"), Some("outside\n")),
        "{context}"
    );
}

#[test]
fn opencode_failing_model_fails_the_iteration() {
    if let Some(run) = run_ralph(&OPENCODE, "fail") {
        check_failure(&run, &["exited with code 1", "HTTP 500: mock outage"]);
    }
}

#[test]
fn opencode_asking_a_web_page_again_and_again_is_stopped_quickly() {
    // OpenCode 1.18.33 takes the page for an empty step and asks again, about four times a
    // second, until something stops it: here only the timeout, were ralph not counting.
    // The mock sends the page to the first `MAX_EMPTY_CALLS_IN_A_ROW` calls only, and the
    // model's answer to any after them: ralph's stop for empty answers can only come at
    // the last page, however many calls OpenCode still has under way when it lands.
    assert!(
        SCRIPT.contains(&format!(
            "html_page: true, times: {MAX_EMPTY_CALLS_IN_A_ROW}}}"
        )),
        "the `html` scenario's pages must be as many as the empty calls that stop an agent"
    );
    let timeout_secs = 120;
    let cli = format!("  iteration_timeout_seconds: {timeout_secs}\n");
    let Some(run) = run_ralph_with(&OPENCODE, "html", &cli) else {
        return;
    };
    let context = run.context();
    let finished = run.one("iteration_finished");
    let reason = finished["outcome"]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with(&format!(
            "the agent's model gave {MAX_EMPTY_CALLS_IN_A_ROW} empty answers in a row"
        )) && reason.contains("check the agent's base URL"),
        "{finished}\n{context}"
    );
    assert_eq!(run.code, 1, "{context}");
    // Every page the mock has was asked for, and ralph saw each as an empty call before it
    // decided: the calls it reported, up to the first that said something, are the pages.
    let pages = run
        .server
        .requests()
        .into_iter()
        .filter_map(|r| r.routed)
        .filter(|r| r.outcome == ReplyOutcome::HtmlPage)
        .count();
    assert_eq!(pages, MAX_EMPTY_CALLS_IN_A_ROW as usize, "{context}");
    let empty_before_an_answer = run
        .agent_events()
        .into_iter()
        .take_while(|e| !(e["type"] == "message_finished" && e["text"] != ""))
        .filter(|e| e["type"] == "turn_finished")
        .count();
    assert_eq!(
        empty_before_an_answer, MAX_EMPTY_CALLS_IN_A_ROW as usize,
        "{context}"
    );
    // And quickly: about two seconds of pages, far from the timeout.
    let took = finished["duration_ms"].as_u64().unwrap_or(u64::MAX);
    assert!(took < timeout_secs * 1000 / 2, "{took} ms\n{context}");
}

#[test]
fn copilot_runs_a_tool_and_its_cost_stays_unknown() {
    let Some(run) = run_ralph(&COPILOT, "work") else {
        return;
    };
    check_work(
        &run,
        &Expected {
            tool: json!({"name": "bash", "args": {"command": COMMAND}}),
            tool_output: "hello from the agent\n<shellId: 0 completed with exit code 0>",
            tokens: json!({"input": 0, "output": 0, "cache_read": 0, "cache_write": 0}),
            cost_usd: Value::Null,
            cost_kind: "unknown",
        },
    );
}

#[test]
fn copilot_failing_model_fails_the_iteration() {
    if let Some(run) = run_ralph(&COPILOT, "fail") {
        check_failure(&run, &["exited with code 1", "500 mock outage"]);
    }
}

/// `text` as one single-quoted POSIX shell word, the way Codex shows a command.
fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Runs the `limit` scenario (`on_rate_limit: fail`, so the one iteration is all) and
/// checks that ralph saw a provider's limit, not another failure; returns the outcome.
fn limited(agent: &Agent) -> Option<Value> {
    let run = run_ralph_with(agent, "limit", "  on_rate_limit: fail\n")?;
    let context = run.context();
    let outcome = run.one("iteration_finished")["outcome"].clone();
    assert_eq!(outcome["status"], json!("rate_limited"), "{context}");
    let refused = run
        .server
        .requests()
        .into_iter()
        .filter_map(|r| r.routed)
        .filter(|r| r.outcome == ReplyOutcome::HttpError { status: 429 })
        .count();
    assert!(refused > 0, "{context}");
    Some(outcome)
}

#[test]
fn each_agents_rate_limit_is_reported_as_one() {
    // Run one after the other: Gemini CLI's and Copilot's own retries make this the slow
    // part, and the agents would only compete for the two cores.
    for agent in [&CODEX, &GEMINI, &COPILOT] {
        if let Some(outcome) = limited(agent) {
            assert_eq!(
                outcome["resets_at"],
                Value::Null,
                "{}: {outcome}",
                agent.name
            );
        }
    }
    if let Some(outcome) = limited(&OPENCODE) {
        // The error line's time plus the provider's `retry-after` (an hour).
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let resets_at = outcome["resets_at"].as_u64().unwrap_or_default();
        assert!(
            (now + 3500..=now + 3600).contains(&resets_at),
            "{outcome}, now {now}"
        );
    }
}
