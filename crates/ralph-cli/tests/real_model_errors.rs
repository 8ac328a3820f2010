//! Model errors seen through the REAL agents: an error pi retries and recovers from, an error
//! it never recovers from (pi still exits 0: ralph must see the failure in the stream), the
//! promise in the text of a failed attempt, which must never complete the loop, and Claude
//! Code recovering from a broken stream and giving up on a dead model. pi's recovering and
//! failing runs are also played on a pseudo-terminal, and the failing one with pi 0.51.6.
//! A promise pi emits before its next call is refused (401) does not complete the run
//! either: only an iteration that succeeds does.

mod real_common;

use pretty_assertions::assert_eq;
use ralph_test_support::TEST_CLAUDE_MAX_RETRIES;
use real_common::{CLAUDE, PI, PI_OLD, RealEnv, Transport};
use serde_json::{Value, json};

fn config(env: &RealEnv, transport: Transport, event_loop: &str) -> String {
    pi_config(env, PI, transport, event_loop)
}

fn pi_config(env: &RealEnv, pi: &str, transport: Transport, event_loop: &str) -> String {
    format!(
        "cli:\n  backend: pi\n  command: {}\n{}event_loop:\n{event_loop}",
        env.agent_path(pi).display(),
        transport.cli_line()
    )
}

/// Each iteration's outcome status and completion signal.
fn statuses_and_completions(run: &real_common::JsonRun) -> Vec<Value> {
    (run.iterations().iter())
        .map(|i| json!([i["outcome"]["status"], i["completion"]]))
        .collect()
}

/// Each model request as `(turn, attempt, outcome)`.
fn attempts(env: &RealEnv) -> Vec<(usize, u32, String)> {
    env.model_turns()
        .into_iter()
        .map(|(_, turn, attempt, outcome)| (turn, attempt, outcome))
        .collect()
}

/// Turn 0 fails with HTTP 500 four times: pi's SDK retries twice on its own (instantly, as
/// the mock says `retry-after-ms: 1`), so pi's first attempt fails and its auto-retry succeeds
/// at the SDK's second try. Turn 1's stream is cut once; pi retries it too.
const RECOVERS: &str = r#"
default: task
scenarios:
  task:
    - shell: echo recovered > recovered.txt
      fault: {http: 500, times: 4, retry_after_ms: 1}
    - text: "The file is there.\nLOOP_COMPLETE"
      fault: {drop_after: 1, times: 1}
"#;

/// A scenario's two tests: the agent on pipes, and on a pseudo-terminal.
macro_rules! pipes_and_pty {
    ($scenario:ident: $on_pipes:ident, $on_pty:ident) => {
        #[test]
        fn $on_pipes() {
            $scenario(Transport::Pipes);
        }

        #[test]
        fn $on_pty() {
            $scenario(Transport::Pty);
        }
    };
}

fn recovers(transport: Transport) {
    let Some(env) = RealEnv::start(RECOVERS, &[PI]) else {
        return;
    };
    env.write_config(&config(&env, transport, "  max_iterations: 2\n"));
    let run = env.run_json(&["-p", "Write recovered.txt."]);
    run.assert_ending("completed", 0, 0);
    let outcomes: Vec<&Value> = run.iterations().iter().map(|i| &i["outcome"]).collect();
    assert_eq!(outcomes, vec![&json!({"status": "succeeded"})]);
    assert_eq!(
        run.agent_story(1),
        vec![
            json!(["message_finished", "error", ""]),
            json!(["retry_started", 1]),
            json!(["message_finished", "tool_use", ""]),
            json!(["retry_finished", true]),
            json!(["tool_call_started", "bash", {"command": "echo recovered > recovered.txt"}]),
            json!(["tool_call_finished", "(no output)", false]),
            json!(["message_finished", "error", "The file is "]),
            json!(["retry_started", 1]),
            json!([
                "message_finished",
                "completed",
                "The file is there.\nLOOP_COMPLETE"
            ]),
            json!(["retry_finished", true]),
            json!(["run_finished", false]),
        ]
    );
    assert_eq!(env.file("recovered.txt"), Some("recovered\n".to_owned()));
    let s = |kind: &str| kind.to_owned();
    assert_eq!(
        attempts(&env),
        vec![
            (0, 0, s("http_error")),
            (0, 1, s("http_error")),
            (0, 2, s("http_error")),
            (0, 3, s("http_error")),
            (0, 4, s("streamed")),
            (1, 0, s("dropped")),
            (1, 1, s("streamed")),
        ]
    );
}

pipes_and_pty!(recovers:
    pi_retries_failed_model_calls_and_the_iteration_succeeds,
    pi_on_a_terminal_retries_failed_model_calls_and_the_iteration_succeeds
);

/// Every attempt fails with HTTP 500 (each pi attempt is three requests: the SDK retries
/// twice).
const NEVER_RECOVERS: &str = r#"
default: task
scenarios:
  task:
    - text: never sent
      fault: {http: 500, retry_after_ms: 1, message: the model is down}
"#;

fn never_recovers(pi: &str, transport: Transport) {
    let Some(env) = RealEnv::start(NEVER_RECOVERS, &[pi]) else {
        return;
    };
    // pi by itself: exit 0, and only its last JSON line says that every attempt failed.
    let alone = env.run_agent(pi, &["-p", "--mode", "json", "--no-session", "Hi."]);
    let last: Value = String::from_utf8_lossy(&alone.stdout)
        .lines()
        .last()
        .map(|l| serde_json::from_str(l).expect("pi's last line is JSON"))
        .unwrap_or_default();
    assert_eq!(
        (alone.status.code(), &last["type"], &last["success"]),
        (Some(0), &json!("auto_retry_end"), &json!(false))
    );
    env.server.reset();

    env.write_config(&pi_config(
        &env,
        pi,
        transport,
        "  max_iterations: 5\n  max_consecutive_failures: 2\n",
    ));
    let run = env.run_json(&["-p", "Do the task."]);
    run.assert_ending("consecutive_failures", 1, 1);
    let failed =
        json!({"status": "failed", "reason": "the agent reported an error: 500 the model is down"});
    let finished: Vec<Value> = run
        .iterations()
        .iter()
        .map(|i| {
            json!([
                i["outcome"],
                i["turns"],
                i["completion"],
                i["totals"]["tokens"]
            ])
        })
        .collect();
    let no_tokens = json!({"input": 0, "output": 0, "cache_read": 0, "cache_write": 0});
    assert_eq!(
        finished,
        vec![
            json!([failed, 0, null, no_tokens]),
            json!([failed, 0, null, no_tokens])
        ]
    );
    // The hat gets its event back after each failure.
    let requeued: Vec<Value> = run.fields("notice", &["iteration", "notice", "topics"]);
    assert_eq!(
        requeued,
        vec![
            json!([1, "events_requeued", ["task.start"]]),
            json!([2, "events_requeued", ["task.start"]])
        ]
    );
    // pi's four attempts (one plus three auto-retries) of three requests each, twice.
    assert_eq!(env.model_turns().len(), 2 * 4 * 3);
    // The verdict says why the last one failed: pi's exhausted retries.
    let message = run.finished()["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.starts_with("2 iterations in a row failed (the last: ") && message.contains("500"),
        "{message}"
    );
    assert!(
        env.summary()
            .contains("**Stopped:** 2 iterations in a row failed"),
        "{}",
        env.summary()
    );
}

#[test]
fn a_model_error_pi_never_recovers_from_fails_the_iteration_although_pi_exits_0() {
    never_recovers(PI, Transport::Pipes);
}

#[test]
fn a_model_error_old_pi_never_recovers_from_fails_the_iteration_although_pi_exits_0() {
    never_recovers(PI_OLD, Transport::Pipes);
}

#[test]
fn on_a_terminal_a_model_error_pi_never_recovers_from_fails_the_iteration() {
    never_recovers(PI, Transport::Pty);
}

/// The first delta ends with the promise on its own line, then the stream is cut: the failed
/// attempt's text ends with the promise. The full answer (sent when pi retries, unless the
/// fault hits every attempt) ends with another line.
fn promise_in_failed_attempt(times: &str) -> String {
    // Two deltas of 24 characters each: "Checking.\nLOOP_COMPLETE\n" and the last line.
    format!(
        r#"
default: task
scenarios:
  task:
    - text: "Checking.\nLOOP_COMPLETE\nNot yet: two tests fail."
      deltas: 2
      fault: {{drop_after: 1{times}}}
"#
    )
}

/// One iteration of [`promise_in_failed_attempt`] (its faults hit `times`), which must
/// end the loop at its iteration limit; `None` when pi is not installed.
fn one_iteration_ending_at_its_limit(times: &str) -> Option<(RealEnv, real_common::JsonRun)> {
    let env = RealEnv::start(&promise_in_failed_attempt(times), &[PI])?;
    env.write_config(&config(&env, Transport::Pipes, "  max_iterations: 1\n"));
    let run = env.run_json(&["-p", "Fix the tests."]);
    run.assert_ending("max_iterations", 2, 2);
    Some((env, run))
}

#[test]
fn the_promise_in_a_failed_attempt_does_not_complete_when_the_retry_succeeds() {
    let Some((_env, run)) = one_iteration_ending_at_its_limit(", times: 1") else {
        return;
    };
    assert_eq!(
        run.agent_story(1),
        vec![
            json!(["message_finished", "error", "Checking.\nLOOP_COMPLETE\n"]),
            json!(["retry_started", 1]),
            json!([
                "message_finished",
                "completed",
                "Checking.\nLOOP_COMPLETE\nNot yet: two tests fail."
            ]),
            json!(["retry_finished", true]),
            json!(["run_finished", false]),
        ]
    );
    let finished: Vec<Value> = run
        .iterations()
        .iter()
        .map(|i| json!([i["outcome"], i["completion"]]))
        .collect();
    assert_eq!(finished, vec![json!([{"status": "succeeded"}, null])]);
}

#[test]
fn the_promise_in_failed_attempts_does_not_complete_when_every_attempt_fails() {
    let Some((_env, run)) = one_iteration_ending_at_its_limit("") else {
        return;
    };
    let failed_texts: Vec<&Value> = run
        .agent_events(1)
        .into_iter()
        .filter(|e| e["type"] == "message_finished")
        .map(|e| &e["text"])
        .collect();
    // pi's first attempt and its three retries, each cut right after the promise.
    assert_eq!(failed_texts, vec![&json!("Checking.\nLOOP_COMPLETE\n"); 4]);
    assert_eq!(
        statuses_and_completions(&run),
        vec![json!(["failed", null])]
    );
}

/// pi emits the promise through its bash tool (leaving a note in the scratchpad, which the
/// next prompt shows), then its next call is refused with a 401: the iteration fails. The
/// next iteration's prompt carries the note, and pi emits the promise and finishes.
const PROMISE_THEN_401: &str = r#"
default: claim
routes:
  - {contains: "claimed once already", scenario: again}
scenarios:
  claim:
    - shell: mkdir -p .ralph/agent && echo "I claimed once already." >> .ralph/agent/scratchpad.md && ralph emit LOOP_COMPLETE
    - text: never sent
      fault: {http: 401, message: invalid x-api-key}
  again:
    - shell: ralph emit LOOP_COMPLETE
    - text: Done.
"#;

#[test]
fn a_promise_pi_emits_before_a_401_does_not_complete_and_the_next_clean_one_does() {
    let Some(env) = RealEnv::start(PROMISE_THEN_401, &[PI]) else {
        return;
    };
    env.write_config(&config(&env, Transport::Pipes, "  max_iterations: 3\n"));
    let run = env.run_json(&["-p", "Fix the tests."]).expect_completed();
    assert_eq!(
        statuses_and_completions(&run),
        vec![json!(["failed", null]), json!(["succeeded", "event"])]
    );
    let dropped: Vec<Value> = run
        .of_type("notice")
        .into_iter()
        .filter(|n| n["notice"] == "promise_failed")
        .map(|n| json!([n["iteration"], n["promise"], n["outcome"]]))
        .collect();
    assert_eq!(dropped, vec![json!([1, "LOOP_COMPLETE", "failed"])]);
    let scenarios: Vec<String> = env.model_turns().into_iter().map(|t| t.0).collect();
    assert_eq!(scenarios.first().map(String::as_str), Some("claim"));
    assert_eq!(scenarios.last().map(String::as_str), Some("again"));
}

/// Claude's first answer breaks off with an SSE error; Claude asks again without streaming.
const CLAUDE_RECOVERS: &str = r#"
default: task
scenarios:
  task:
    - text: "Whole answer.\nLOOP_COMPLETE"
      fault: {sse_error_after: 1, times: 1}
"#;

fn claude_recovers(transport: Transport) {
    let Some(env) = RealEnv::start(CLAUDE_RECOVERS, &[CLAUDE]) else {
        return;
    };
    env.write_config(&format!(
        "cli:\n  backend: claude\n{}event_loop:\n  max_iterations: 2\n",
        transport.cli_line()
    ));
    let run = env.run_json(&["-p", "Answer."]);
    run.assert_ending("completed", 0, 0);
    let finished: Vec<Value> = run
        .iterations()
        .iter()
        .map(|i| json!([i["backend"], i["outcome"], i["completion"]]))
        .collect();
    assert_eq!(
        finished,
        vec![json!(["claude", {"status": "succeeded"}, "final_text"])]
    );
    let s = |kind: &str| kind.to_owned();
    assert_eq!(
        attempts(&env),
        vec![(0, 0, s("sse_error")), (0, 1, s("json"))]
    );
}

pipes_and_pty!(claude_recovers:
    claude_recovers_from_a_broken_stream_and_the_iteration_completes,
    claude_on_a_terminal_recovers_from_a_broken_stream_and_the_iteration_completes
);

/// Every request fails; Claude retries `CLAUDE_CODE_MAX_RETRIES` times, then exits 1.
const CLAUDE_GIVES_UP: &str = r#"
default: task
scenarios:
  task:
    - text: never sent
      fault: {http: 500, retry_after_ms: 1}
"#;

#[test]
fn claude_giving_up_on_a_dead_model_fails_the_iteration() {
    let Some(env) = RealEnv::start(CLAUDE_GIVES_UP, &[CLAUDE]) else {
        return;
    };
    env.write_config(
        "cli:\n  backend: claude\nevent_loop:\n  max_iterations: 3\n  max_consecutive_failures: 1\n",
    );
    let run = env.run_json(&["-p", "Answer."]);
    run.assert_ending("consecutive_failures", 1, 1);
    let finished: Vec<Value> = run
        .iterations()
        .iter()
        .map(|i| json!([i["backend"], i["outcome"]["status"], i["completion"]]))
        .collect();
    assert_eq!(finished, vec![json!(["claude", "failed", null])]);
    let reason = run.iterations()[0]["outcome"]["reason"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    // Claude exits 1; its last error names the status and the mock's message.
    assert!(
        reason
            .starts_with("exited with code 1 (last error: API Error: 500 mock injected HTTP 500."),
        "{reason}"
    );
    // One request and `CLAUDE_CODE_MAX_RETRIES` retries.
    let expected: Vec<(usize, u32, String)> = (0..=TEST_CLAUDE_MAX_RETRIES)
        .map(|attempt| (0, attempt, "http_error".to_owned()))
        .collect();
    assert_eq!(attempts(&env), expected);
}
