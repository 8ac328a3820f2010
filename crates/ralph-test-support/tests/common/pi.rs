//! Running the real pi against the mock and reading its `--mode json` lines.

use std::path::PathBuf;
use std::process::{Command, Output};

use ralph_test_support::{MockError, MockServer, PiOptions, PiProvider, PiSetup, ReplyOutcome};
use serde_json::{Value, json};

use super::agent_run::{json_lines, require_agent, run, workdir};

pub(crate) const PI_NEW: &str = "pi-0.73.1";
pub(crate) const PI_OLD: &str = "pi-0.51.6";

/// One pi run: its output, its JSON lines, and where it worked.
pub(crate) struct PiRun {
    pub(crate) output: Output,
    pub(crate) lines: Vec<Value>,
    pub(crate) work: PathBuf,
    /// Owns the run's directories.
    pub(crate) root: tempfile::TempDir,
}

/// Runs `pi -p --mode json --no-session PROMPT` against `server`; `None` when real-agent tests
/// are skipped.
pub(crate) fn run_pi(
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
pub(crate) fn run_pi_in(
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

pub(crate) fn of_type<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|line| line["type"] == kind).collect()
}

/// The last assistant `message_end`'s message.
pub(crate) fn last_assistant(lines: &[Value]) -> Value {
    of_type(lines, "message_end")
        .into_iter()
        .rev()
        .find(|line| line["message"]["role"] == "assistant")
        .map(|line| line["message"].clone())
        .expect("an assistant message_end")
}

/// The concatenated deltas of `kind` (`text_delta`, `thinking_delta`) across the run.
pub(crate) fn deltas(lines: &[Value], kind: &str) -> String {
    of_type(lines, "message_update")
        .iter()
        .filter(|line| line["assistantMessageEvent"]["type"] == kind)
        .filter_map(|line| line["assistantMessageEvent"]["delta"].as_str())
        .collect()
}

pub(crate) fn outcomes(server: &MockServer) -> Vec<(usize, u32, ReplyOutcome)> {
    server
        .model_requests()
        .into_iter()
        .filter_map(|request| request.routed)
        .map(|routed| (routed.turn, routed.attempt, routed.outcome))
        .collect()
}

pub(crate) fn tokens(usage: &Value) -> Value {
    json!([
        usage["input"],
        usage["output"],
        usage["cacheRead"],
        usage["cacheWrite"],
        usage["totalTokens"]
    ])
}
