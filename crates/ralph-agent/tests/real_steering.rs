//! Steering the REAL agents (installed by scripts/install-agents.sh) against the mock, through
//! the handle ralph's loop uses ([`ralph_agent::LiveInput`]): pi 0.73.1 and 0.51.6 in RPC
//! mode and Claude Code on stream-json input. A steer sent while a `sleep 3` tool call runs
//! reaches the model in the same run (the mock sees it as the newest user message and answers
//! from the `steered` scenario); a stop asked for during the tool call goes out as the
//! agent's abort command, which ends its turn without a signal.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use ralph_agent::{
    AgentRun, BackendKind, CommandBuilder, Control, LiveInput, RunDeadlines, SteerRefused,
    StopRequests, Termination, run_agent,
};
use ralph_stream::AgentEvent;
use ralph_test_support::{
    ClaudeOptions, ClaudeSetup, MockServer, PiOptions, PiSetup, RecordedRequest, Script, real_agent,
};
use serde_json::Value;

/// What the steering message says; the mock routes any prompt containing it to `steered`.
const STEER: &str = "STEER-NOW: stop and say you were steered";

const SCRIPT: &str = r#"
default: task
routes:
  - contains: "STEER-NOW"
    scenario: steered
scenarios:
  task:
    - text: Running the job.
      shell: "sleep 3; echo slept"
    - text: not steered
  steered:
    - text: I was steered
"#;

/// Only a guard against a hang; no assertion is on time.
fn deadlines() -> RunDeadlines {
    RunDeadlines {
        wall: Some(Duration::from_secs(120)),
        ..RunDeadlines::default()
    }
}

/// One agent set up against a fresh mock in a temporary root.
struct Setup {
    server: MockServer,
    root: tempfile::TempDir,
    program: PathBuf,
    env: Vec<(OsString, OsString)>,
}

impl Setup {
    /// `None` when real-agent tests are skipped.
    fn new(launcher: &str) -> Option<Setup> {
        let program = real_agent(launcher).unwrap_or_else(|e| panic!("{e}"))?;
        let script = Script::parse_yaml(SCRIPT).expect("the script");
        let server = MockServer::start(script).expect("the mock");
        let root = tempfile::tempdir().expect("a temp dir");
        std::fs::create_dir(root.path().join("ws")).expect("the workspace");
        let url = server.base_url();
        let env = if launcher.starts_with("pi") {
            let setup = PiSetup::write(root.path(), &url, &PiOptions::default()).expect("pi");
            setup.env()
        } else {
            let setup = ClaudeSetup::write(root.path(), &url, ClaudeOptions::default());
            setup.expect("claude").env()
        };
        let env = env.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        Some(Setup {
            server,
            root,
            program,
            env,
        })
    }

    fn ws(&self) -> PathBuf {
        self.root.path().join("ws")
    }

    /// Runs the agent steered on "Do the task."; `on_tool` decides what happens when its
    /// tool call starts, given the handle.
    async fn run(
        &self,
        kind: BackendKind,
        on_tool: impl FnMut(&LiveInput) -> Control,
    ) -> (AgentRun, LiveInput) {
        self.run_with(kind, &[], on_tool).await
    }

    /// Like [`Self::run`], with extra arguments for the agent.
    async fn run_with(
        &self,
        kind: BackendKind,
        args: &[String],
        mut on_tool: impl FnMut(&LiveInput) -> Control,
    ) -> (AgentRun, LiveInput) {
        let program = self.program.to_str().expect("a UTF-8 path");
        let line = CommandBuilder::new(kind)
            .command_override(Some(program))
            .extra_args(args)
            .steering(true)
            .headless("Do the task.")
            .expect("a command line");
        let live = line.live.clone().expect("a steered command line");
        let format = line.output_format;
        let spec = line.into_spawn_spec(self.env.clone(), Some(self.ws()));
        let handle = live.clone();
        let run = run_agent(
            spec,
            format,
            deadlines(),
            StopRequests::never(),
            |event, _| match event {
                AgentEvent::ToolCallStarted { .. } => on_tool(&handle),
                _ => Control::Continue,
            },
        )
        .await;
        (run, live)
    }

    /// The model requests that carried the tool's result (the turns after the tool call).
    fn after_the_tool(&self) -> Vec<RecordedRequest> {
        self.server
            .model_requests()
            .into_iter()
            .filter(|r| body_text(r).contains("slept"))
            .collect()
    }
}

fn body_text(request: &RecordedRequest) -> String {
    request
        .body
        .as_ref()
        .map(Value::to_string)
        .unwrap_or_default()
}

/// The user messages of a request (`messages` of Chat Completions and Anthropic Messages),
/// as JSON text.
fn user_messages(request: &RecordedRequest) -> Vec<String> {
    let body = request.body.clone().unwrap_or_default();
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].to_string())
        .collect()
}

async fn a_steer_during_a_tool_call_reaches_the_model_in_the_same_run(
    launcher: &str,
    kind: BackendKind,
) {
    let Some(setup) = Setup::new(launcher) else {
        return;
    };
    let mut sent = Vec::new();
    let (run, live) = setup
        .run(kind, |live| {
            sent.push(live.steer(STEER));
            Control::Continue
        })
        .await;
    assert_eq!(sent, vec![Ok(())]);
    assert!(
        run.succeeded(),
        "{:?}\n{}",
        run.outcome.termination,
        run.outcome.stderr_tail
    );
    assert_eq!(run.summary.final_text.as_deref(), Some("I was steered"));
    // One request after the tool call: it carried the result and the steer, the steer as
    // the newest user text.
    let after = setup.after_the_tool();
    assert_eq!(after.len(), 1, "{after:#?}");
    let users = user_messages(&after[0]);
    assert!(
        users.last().is_some_and(|m| m.contains("STEER-NOW")),
        "{users:#?}"
    );
    // The turn is over: the input is closed and refuses more.
    assert!(!live.is_open());
    assert_eq!(live.steer("too late"), Err(SteerRefused));
}

#[tokio::test]
async fn pi_in_rpc_mode_takes_a_steer_during_a_tool_call() {
    a_steer_during_a_tool_call_reaches_the_model_in_the_same_run("pi", BackendKind::Pi).await;
}

#[tokio::test]
async fn old_pi_in_rpc_mode_takes_a_steer_during_a_tool_call() {
    a_steer_during_a_tool_call_reaches_the_model_in_the_same_run("pi-0.51.6", BackendKind::Pi)
        .await;
}

#[tokio::test]
async fn claude_code_on_stream_json_input_takes_a_steer_during_a_tool_call() {
    a_steer_during_a_tool_call_reaches_the_model_in_the_same_run("claude", BackendKind::Claude)
        .await;
}

/// A stop during the tool call (a budget crossed, say): the abort command ends the turn,
/// the agent exits once its input ends, and no signal was needed.
async fn a_stop_aborts_the_turn_without_a_signal(launcher: &str, kind: BackendKind) {
    let Some(setup) = Setup::new(launcher) else {
        return;
    };
    let (run, live) = setup.run(kind, |_| Control::Stop).await;
    assert_eq!(run.outcome.termination, Termination::StoppedByCaller);
    assert!(run.summary.terminal_event, "{:?}", run.summary);
    assert!(!run.summary.succeeded);
    // Ended by its own exit after end of file, not by ralph's TERM: pi exits 0 on a TERM
    // too, and Claude Code 143, so only the supervisor can tell.
    assert!(!run.outcome.signalled, "{:?}", run.outcome);
    let status = run.outcome.child_status;
    assert!(
        matches!(status, Some(ralph_agent::supervise::ChildStatus::Code(_))),
        "{status:?}"
    );
    // The tool's `sleep 3` did not finish: no request carried its result.
    assert_eq!(setup.after_the_tool().len(), 0);
    assert!(!live.is_open());
}

#[tokio::test]
async fn pi_in_rpc_mode_is_aborted_by_a_stop() {
    a_stop_aborts_the_turn_without_a_signal("pi", BackendKind::Pi).await;
}

#[tokio::test]
async fn claude_code_on_stream_json_input_is_interrupted_by_a_stop() {
    a_stop_aborts_the_turn_without_a_signal("claude", BackendKind::Claude).await;
}

#[tokio::test]
async fn old_pi_in_rpc_mode_is_aborted_by_a_stop() {
    a_stop_aborts_the_turn_without_a_signal("pi-0.51.6", BackendKind::Pi).await;
}

/// pi in RPC mode outlives a failed turn (it waits for the next command): a turn it will not
/// retry (a 401) still ends the run, by pi's silence after it, while one it retries (the
/// mock's `flaky` fails once) runs on to its answer.
#[tokio::test]
async fn pi_in_rpc_mode_ends_a_failed_turn_it_does_not_retry_and_retries_the_others() {
    let Some(setup) = Setup::new("pi") else {
        return;
    };
    let model = |name: &str| vec!["--model".to_owned(), format!("mock/{name}")];
    let (refused, _) = setup
        .run_with(BackendKind::Pi, &model("error401"), |_| Control::Continue)
        .await;
    // Ended by its own exit once its input closed, not by a deadline.
    assert_eq!(refused.outcome.termination, Termination::Exited { code: 0 });
    assert!(!refused.summary.succeeded);
    assert!(
        refused.summary.errors.iter().any(|e| e.starts_with("401")),
        "{:?}",
        refused.summary.errors
    );
    let (retried, _) = setup
        .run_with(BackendKind::Pi, &model("flaky"), |_| Control::Continue)
        .await;
    assert!(
        retried.succeeded(),
        "{:?} {:?}",
        retried.outcome.termination,
        retried.summary
    );
    let text = retried.summary.final_text.unwrap_or_default();
    assert!(text.starts_with("Recovered after retry."), "{text}");
}
