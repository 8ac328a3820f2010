//! The REAL pi (0.73.1 and 0.51.6, installed by scripts/install-agents.sh) against the mock:
//! a bash tool turn, Unicode text, a 500 that pi retries and recovers from, a persistent 500,
//! and thinking. Asserted on pi's `--mode json` stdout and on the mock's request log.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::agent_run::{json_lines, require_agent, run, stderr, workdir};
use ralph_test_support::{
    Builtin, DEFAULT_MODEL_ID, FREE_MODEL_ID, Fault, FaultKind, MockError, MockServer, Outcome,
    PiOptions, PiProvider, PiSetup, Script, Turn, UNICODE_SAMPLE,
};
use serde_json::{Value, json};

const PI_NEW: &str = "pi-0.73.1";
const PI_OLD: &str = "pi-0.51.6";
/// Characters of the `unicode` scenario's answer: the sample 8 times, then the promise.
const UNICODE_REPEAT: usize = 8;

/// One pi run: its output, its JSON lines, and where it worked.
struct PiRun {
    output: Output,
    lines: Vec<Value>,
    work: PathBuf,
    /// Owns the run's directories.
    root: tempfile::TempDir,
}

/// Runs `pi -p --mode json --no-session PROMPT` against `server`; `None` when real-agent tests
/// are skipped.
fn run_pi(
    binary: &str,
    server: &MockServer,
    provider: PiProvider,
    prompt: &str,
) -> Result<Option<PiRun>, MockError> {
    let root = tempfile::tempdir().expect("a temp dir");
    let options = PiOptions {
        provider,
        ..PiOptions::default()
    };
    run_pi_in(root, binary, server, &options, prompt, |_| {})
}

/// Like [`run_pi`], in `root` (its `work` dir is kept between runs), with `configure` applied
/// to the command last.
fn run_pi_in(
    root: tempfile::TempDir,
    binary: &str,
    server: &MockServer,
    options: &PiOptions,
    prompt: &str,
    configure: impl FnOnce(&mut Command),
) -> Result<Option<PiRun>, MockError> {
    let Some(pi) = require_agent(binary) else {
        return Ok(None);
    };
    let setup = PiSetup::write(root.path(), &server.base_url(), options)?;
    let work = workdir(root.path());
    let mut command = Command::new(pi);
    command
        .args(["-p", "--mode", "json", "--no-session", prompt])
        .current_dir(&work);
    setup.apply(&mut command);
    configure(&mut command);
    let output = run(command);
    let lines = json_lines(&output);
    Ok(Some(PiRun {
        output,
        lines,
        work,
        root,
    }))
}

fn of_type<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|line| line["type"] == kind).collect()
}

/// The last assistant `message_end`'s message.
fn last_assistant(lines: &[Value]) -> Value {
    of_type(lines, "message_end")
        .into_iter()
        .rev()
        .find(|line| line["message"]["role"] == "assistant")
        .map(|line| line["message"].clone())
        .expect("an assistant message_end")
}

/// The concatenated deltas of `kind` (`text_delta`, `thinking_delta`) across the run.
fn deltas(lines: &[Value], kind: &str) -> String {
    of_type(lines, "message_update")
        .iter()
        .filter(|line| line["assistantMessageEvent"]["type"] == kind)
        .filter_map(|line| line["assistantMessageEvent"]["delta"].as_str())
        .collect()
}

fn outcomes(server: &MockServer) -> Vec<(usize, u32, Outcome)> {
    server
        .model_requests()
        .into_iter()
        .filter_map(|request| request.routed)
        .map(|routed| (routed.turn, routed.attempt, routed.outcome))
        .collect()
}

fn tokens(usage: &Value) -> Value {
    json!([
        usage["input"],
        usage["output"],
        usage["cacheRead"],
        usage["cacheWrite"],
        usage["totalTokens"]
    ])
}

fn tool_turn(binary: &str, provider: PiProvider) -> Result<(), MockError> {
    let script = Script::from_turns(vec![
        Turn::shell("printf 'made by pi' > made.txt && cat made.txt"),
        Turn::text("Saw: {{last_tool_result}}"),
    ]);
    let server = MockServer::start(script)?;
    let Some(pi) = run_pi(binary, &server, provider, "Make the file.")? else {
        return Ok(());
    };
    let made = std::fs::read_to_string(pi.work.join("made.txt")).unwrap_or_default();
    let tool_end = of_type(&pi.lines, "tool_execution_end")
        .first()
        .map(|line| {
            json!([
                line["toolName"],
                line["isError"],
                line["result"]["content"][0]["text"]
            ])
        });
    let last = last_assistant(&pi.lines);
    assert_eq!(
        (pi.output.status.code(), made.as_str(), tool_end),
        (
            Some(0),
            "made by pi",
            Some(json!(["bash", false, "made by pi"]))
        ),
        "stderr: {}",
        stderr(&pi.output)
    );
    // Turn 1: input 1000 + 200, cache read 4000; "Saw: made by pi" is 15 characters, 3 tokens.
    assert_eq!(
        (
            last["content"].clone(),
            last["stopReason"].clone(),
            tokens(&last["usage"])
        ),
        (
            json!([{"type": "text", "text": "Saw: made by pi"}]),
            json!("stop"),
            json!([1200, 3, 4000, 0, 5203])
        )
    );
    let cost = last["usage"]["cost"]["total"].as_f64().unwrap_or_default();
    let expected_cost = (1200.0 * 3.0 + 3.0 * 15.0 + 4000.0 * 0.3) / 1e6;
    assert!(
        (cost - expected_cost).abs() < 1e-12,
        "cost {cost} != {expected_cost}"
    );
    assert_eq!(
        outcomes(&server),
        vec![(0, 0, Outcome::Streamed), (1, 0, Outcome::Streamed)]
    );
    // pi sent the tool's output back in its second request.
    let second = server.model_requests()[1].body.clone().unwrap_or_default();
    assert!(second.to_string().contains("made by pi"), "{second}");
    Ok(())
}

#[test]
fn pi_new_runs_a_bash_tool_turn_on_the_openai_wire() -> Result<(), MockError> {
    tool_turn(PI_NEW, PiProvider::OpenAiCompletions)
}

#[test]
fn pi_new_runs_a_bash_tool_turn_on_the_anthropic_wire() -> Result<(), MockError> {
    tool_turn(PI_NEW, PiProvider::AnthropicMessages)
}

#[test]
fn pi_old_runs_a_bash_tool_turn_on_the_openai_wire() -> Result<(), MockError> {
    tool_turn(PI_OLD, PiProvider::OpenAiCompletions)
}

fn unicode_text(binary: &str) -> Result<(), MockError> {
    let server = MockServer::start(Script::builtin(Builtin::Unicode))?;
    let Some(pi) = run_pi(
        binary,
        &server,
        PiProvider::OpenAiCompletions,
        "Say something.",
    )?
    else {
        return Ok(());
    };
    let expected = format!("{} LOOP_COMPLETE", UNICODE_SAMPLE.repeat(UNICODE_REPEAT));
    let last = last_assistant(&pi.lines);
    assert_eq!(
        (last["content"].clone(), deltas(&pi.lines, "text_delta")),
        (
            json!([{"type": "text", "text": expected}]),
            expected.clone()
        )
    );
    Ok(())
}

#[test]
fn pi_new_receives_unicode_text_split_inside_characters() -> Result<(), MockError> {
    unicode_text(PI_NEW)
}

#[test]
fn pi_old_receives_unicode_text_split_inside_characters() -> Result<(), MockError> {
    unicode_text(PI_OLD)
}

/// A 500 with `retry-after-ms: 1`, so the SDK's own retries inside pi do not wait.
fn fast_500() -> Fault {
    Fault {
        kind: FaultKind::Http {
            status: 500,
            retry_after_s: None,
            retry_after_ms: Some(1),
            should_retry: None,
        },
        times: None,
        message: Some("mock internal server error".to_owned()),
    }
}

/// Requests per pi attempt: the first, then the SDK's two retries.
const REQUESTS_PER_PI_ATTEMPT: u32 = 3;

fn recovers_from_500(binary: &str) -> Result<(), MockError> {
    let turn = Turn::text("Recovered.").with_fault(fast_500().times(REQUESTS_PER_PI_ATTEMPT));
    let server = MockServer::start(Script::from_turns(vec![turn]))?;
    let Some(pi) = run_pi(binary, &server, PiProvider::OpenAiCompletions, "Try.")? else {
        return Ok(());
    };
    let retry_start = of_type(&pi.lines, "auto_retry_start")
        .iter()
        .map(|line| json!([line["attempt"], line["errorMessage"]]))
        .collect::<Vec<_>>();
    let retry_end = of_type(&pi.lines, "auto_retry_end")
        .iter()
        .map(|line| line["success"].clone())
        .collect::<Vec<_>>();
    assert_eq!(
        (
            pi.output.status.code(),
            retry_start,
            retry_end,
            last_assistant(&pi.lines)["content"].clone()
        ),
        (
            Some(0),
            vec![json!([1, "500 mock internal server error"])],
            vec![json!(true)],
            json!([{"type": "text", "text": "Recovered."}])
        )
    );
    let error = Outcome::HttpError { status: 500 };
    assert_eq!(
        outcomes(&server),
        vec![
            (0, 0, error.clone()),
            (0, 1, error.clone()),
            (0, 2, error),
            (0, 3, Outcome::Streamed)
        ]
    );
    // The SDK numbers its own retries; pi's retry starts a new request.
    let retry_counts: Vec<Option<String>> = server
        .model_requests()
        .iter()
        .map(|request| request.header("x-stainless-retry-count").map(str::to_owned))
        .collect();
    assert_eq!(
        retry_counts,
        ["0", "1", "2", "0"].map(|n| Some(n.to_owned())).to_vec()
    );
    Ok(())
}

#[test]
fn pi_new_retries_an_http_500_and_recovers() -> Result<(), MockError> {
    recovers_from_500(PI_NEW)
}

#[test]
fn pi_old_retries_an_http_500_and_recovers() -> Result<(), MockError> {
    recovers_from_500(PI_OLD)
}

fn persistent_500(binary: &str) -> Result<(), MockError> {
    let server = MockServer::start(Script::from_turns(vec![
        Turn::default().with_fault(fast_500()),
    ]))?;
    let Some(pi) = run_pi(binary, &server, PiProvider::OpenAiCompletions, "Try.")? else {
        return Ok(());
    };
    let last_line = pi.lines.last().cloned().unwrap_or_default();
    let last = last_assistant(&pi.lines);
    // pi exits 0 in json mode even when every attempt failed; the stream says it failed.
    assert_eq!(
        (
            pi.output.status.code(),
            of_type(&pi.lines, "auto_retry_start").len(),
            json!([last_line["type"], last_line["success"]]),
            json!([last["stopReason"], last["errorMessage"]]),
        ),
        (
            Some(0),
            3,
            json!(["auto_retry_end", false]),
            json!(["error", "500 mock internal server error"])
        )
    );
    let attempts = (1 + 3) * REQUESTS_PER_PI_ATTEMPT as usize;
    let statuses: Vec<Outcome> = outcomes(&server).into_iter().map(|o| o.2).collect();
    assert_eq!(statuses, vec![Outcome::HttpError { status: 500 }; attempts]);
    Ok(())
}

#[test]
fn pi_new_gives_up_on_a_persistent_500_and_still_exits_0() -> Result<(), MockError> {
    persistent_500(PI_NEW)
}

#[test]
fn pi_old_gives_up_on_a_persistent_500_and_still_exits_0() -> Result<(), MockError> {
    persistent_500(PI_OLD)
}

fn thinking(binary: &str, provider: PiProvider) -> Result<(), MockError> {
    let server = MockServer::start(Script::builtin(Builtin::Thinking))?;
    let Some(pi) = run_pi(binary, &server, provider, "Think first.")? else {
        return Ok(());
    };
    let thought = "The user wants a short answer. I should reply and signal completion.";
    let last = last_assistant(&pi.lines);
    let blocks: Vec<Value> = last["content"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|block| json!([block["type"], block["thinking"], block["text"]]))
        .collect();
    assert_eq!(
        (blocks, deltas(&pi.lines, "thinking_delta")),
        (
            vec![
                json!(["thinking", thought, null]),
                json!([
                    "text",
                    null,
                    "Thought about it. Task finished. LOOP_COMPLETE"
                ]),
            ],
            thought.to_owned()
        )
    );
    Ok(())
}

#[test]
fn pi_new_streams_thinking_on_the_openai_wire() -> Result<(), MockError> {
    thinking(PI_NEW, PiProvider::OpenAiCompletions)
}

#[test]
fn pi_new_streams_thinking_on_the_anthropic_wire() -> Result<(), MockError> {
    thinking(PI_NEW, PiProvider::AnthropicMessages)
}

#[test]
fn pi_old_streams_thinking_on_the_openai_wire() -> Result<(), MockError> {
    thinking(PI_OLD, PiProvider::OpenAiCompletions)
}

/// `[input, output, cacheRead, cacheWrite, cost.total]` of the only turn of a `text` run.
fn text_turn_usage(
    binary: &str,
    provider: PiProvider,
    model: &str,
) -> Result<Option<Value>, MockError> {
    let server = MockServer::start(Script::builtin(Builtin::Text))?;
    let options = PiOptions {
        provider,
        model: model.to_owned(),
        ..PiOptions::default()
    };
    let root = tempfile::tempdir().expect("a temp dir");
    let Some(pi) = run_pi_in(root, binary, &server, &options, "Hi.", |_| {})? else {
        return Ok(None);
    };
    let usage = &last_assistant(&pi.lines)["usage"];
    Ok(Some(json!([
        usage["input"],
        usage["output"],
        usage["cacheRead"],
        usage["cacheWrite"],
        usage["cost"]["total"]
    ])))
}

#[test]
fn pi_versions_differ_in_how_they_read_cache_writes_and_the_free_model_costs_nothing()
-> Result<(), MockError> {
    // Turn 0: input 1000, cache write 500; "Hello from the mock model. LOOP_COMPLETE" is 10
    // tokens. Cost = (1000 × 3 + 10 × 15 + 500 × 3.75) / 1e6 = 0.005025.
    let got = [
        text_turn_usage(PI_NEW, PiProvider::OpenAiCompletions, DEFAULT_MODEL_ID)?,
        text_turn_usage(PI_NEW, PiProvider::AnthropicMessages, DEFAULT_MODEL_ID)?,
        // pi 0.51.6 reads the Chat Completions `cached_tokens` as cache reads only, so the
        // write is priced as a read: (1000 × 3 + 10 × 15 + 500 × 0.3) / 1e6 = 0.0033.
        text_turn_usage(PI_OLD, PiProvider::OpenAiCompletions, DEFAULT_MODEL_ID)?,
        text_turn_usage(PI_OLD, PiProvider::AnthropicMessages, DEFAULT_MODEL_ID)?,
        text_turn_usage(PI_NEW, PiProvider::OpenAiCompletions, FREE_MODEL_ID)?,
    ];
    if got.iter().any(Option::is_none) {
        return Ok(());
    }
    let expected = [
        json!([1000, 10, 0, 500, 0.005025]),
        json!([1000, 10, 0, 500, 0.005025]),
        json!([1000, 10, 500, 0, 0.0033]),
        json!([1000, 10, 0, 500, 0.005025]),
        json!([1000, 10, 0, 500, 0]),
    ]
    .map(Some);
    assert_eq!(got, expected);
    Ok(())
}

/// A stand-in `ralph` that records each `ralph emit` call, one line per call, each argument in
/// brackets, in `emits.log` next to itself.
fn stub_ralph(dir: &std::path::Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("stub-bin");
    std::fs::create_dir_all(&bin).expect("the stub dir is created");
    let log = dir.join("emits.log");
    let script = format!(
        "#!/bin/sh\nfor arg in \"$@\"; do printf '[%s]' \"$arg\"; done >> '{}'\necho >> '{}'\n",
        log.display(),
        log.display()
    );
    let path = bin.join("ralph");
    std::fs::write(&path, script).expect("the stub is written");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    bin
}

#[test]
fn pi_plays_a_three_hat_loop_emitting_one_event_per_iteration() -> Result<(), MockError> {
    let hats = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/hats.yaml");
    let server = MockServer::start(Script::load(&hats)?)?;
    let root = tempfile::tempdir().expect("a temp dir");
    let root_path = root.path().to_owned();
    let stub = stub_ralph(&root_path);
    let path = format!(
        "{}:{}",
        stub.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let prompts = [
        "You are the planner. Make a plan.",
        "You are the builder. Event plan.ready: write hello.txt",
        "You are the reviewer. Event build.done: wrote hello.txt",
    ];
    let mut root = root;
    let mut finals = Vec::new();
    for prompt in prompts {
        // Every iteration works in the same directory, as ralph's would.
        let path = path.clone();
        let configure = |command: &mut Command| {
            command.env("PATH", path);
        };
        let options = PiOptions::default();
        let Some(pi) = run_pi_in(root, PI_NEW, &server, &options, prompt, configure)? else {
            return Ok(());
        };
        finals.push(last_assistant(&pi.lines)["content"][0]["text"].clone());
        root = pi.root;
    }
    let emits = std::fs::read_to_string(root_path.join("emits.log")).unwrap_or_default();
    let hello = std::fs::read_to_string(root_path.join("work/hello.txt")).unwrap_or_default();
    assert_eq!(
        (emits.as_str(), hello.as_str(), finals),
        (
            "[emit][plan.ready][write hello.txt]\n[emit][build.done][wrote hello.txt]\n\
             [emit][review.approved][hello.txt says hello]\n",
            "hello\n",
            vec![
                json!("Plan published."),
                json!("Built."),
                json!("Approved. LOOP_COMPLETE")
            ]
        )
    );
    let scenarios: Vec<(Option<String>, usize)> = server
        .model_requests()
        .into_iter()
        .filter_map(|request| request.routed.map(|routed| (routed.scenario, routed.turn)))
        .collect();
    let expected: Vec<(Option<String>, usize)> = [
        ("planner", 0),
        ("planner", 1),
        ("builder", 0),
        ("builder", 1),
        ("builder", 2),
        ("reviewer", 0),
        ("reviewer", 1),
        ("reviewer", 2),
    ]
    .iter()
    .map(|(name, turn)| (Some((*name).to_owned()), *turn))
    .collect();
    assert_eq!(scenarios, expected);
    Ok(())
}
