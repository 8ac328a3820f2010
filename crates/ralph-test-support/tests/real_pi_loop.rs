//! The REAL pi in the roles ralph gives it: a three-iteration loop with hats where each
//! iteration emits its event through pi's bash tool, and the usage and cost pi reports per
//! version and wire (what ralph's totals must add up).

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::pi::{PI_NEW, PI_OLD, last_assistant, run_pi_in};
use ralph_test_support::{
    Builtin, DEFAULT_MODEL_ID, FREE_MODEL_ID, MockError, MockServer, PiOptions, PiProvider, Script,
};
use serde_json::{Value, json};

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
