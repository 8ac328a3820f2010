//! Running `ralph run --output json -b AGENT` against a real agent CLI and the mock model
//! server, in an isolated root (HOME, XDG directories, TMPDIR, workspace), and reading what
//! the run reported.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use ralph_test_support::{AgentSetup, MockServer, Script, real_agent};
use serde_json::Value;

/// Only a guard against a hang: the slowest run here (OpenCode's start, Gemini's and
/// Copilot's retries) takes about ten seconds.
const RUN_TIMEOUT: Duration = Duration::from_secs(300);

/// The mock's script: `work` (the default) runs one shell command, then answers with the
/// promise; `outside` does the same with a file outside the workspace (`../outside.txt`);
/// `emit` publishes an event with `$RALPH_BIN emit`, `emit_by_name` with `ralph emit`; `fail` answers HTTP 500 to every
/// attempt; `limit` answers 429 with a reset in an hour (`retry-after` and the providers'
/// rate-limit headers) and `x-should-retry: false`; `html` answers `200 text/html` (a
/// wrong base URL, a captive portal) to the first ten attempts, ralph's
/// `MAX_EMPTY_CALLS_IN_A_ROW`, and the model's answer after them, so that only a stop at
/// the tenth empty answer is a stop for empty answers. `retry-after-ms: 1` makes the
/// agents that obey it (OpenCode, Copilot) retry at once instead of backing off.
pub(crate) const SCRIPT: &str = r#"
default: work
scenarios:
  work:
    - text: "I will write the file."
      shell: "echo hello from the agent > out.txt && cat out.txt"
      usage: {input: 1000, output: 40, cache_read: 0, cache_write: 0}
    - text: "Wrote out.txt.\n\nLOOP_COMPLETE"
      usage: {input: 2000, output: 10, cache_read: 1000, cache_write: 0}
  outside:
    - shell: "echo outside > ../outside.txt && cat ../outside.txt"
    - text: "Done.\n\nLOOP_COMPLETE"
  emit:
    - shell: "\"$RALPH_BIN\" emit work.done \"from the agent\""
    - text: "Emitted.\n\nLOOP_COMPLETE"
  emit_by_name:
    - shell: "ralph emit work.done \"from the agent\""
    - text: "Emitted.\n\nLOOP_COMPLETE"
  fail:
    - text: "never sent"
      fault: {http: 500, retry_after: 0, retry_after_ms: 1, message: "mock outage"}
  limit:
    - text: "never sent"
      fault: {http: 429, retry_after: 3600, retry_after_ms: 1, limit_reset: 3600,
              should_retry: false, message: "mock rate limit exceeded"}
  html:
    - text: "An answer, after the pages."
      fault: {html_page: true, times: 10}
"#;

/// The command the `work` scenario runs.
pub(crate) const COMMAND: &str = "echo hello from the agent > out.txt && cat out.txt";
/// What it prints and writes.
pub(crate) const FILE_TEXT: &str = "hello from the agent\n";
/// The `work` scenario's final answer.
pub(crate) const FINAL_TEXT: &str = "Wrote out.txt.\n\nLOOP_COMPLETE";

/// The usage the `work` scenario's two turns add up to, as ralph counts tokens (input
/// without its cached part): 1000 + 2000 input, 1000 cache reads, 40 + 10 output.
pub(crate) const WORK_TOKENS: [(&str, u64); 4] = [
    ("input", 3000),
    ("output", 50),
    ("cache_read", 1000),
    ("cache_write", 0),
];

/// One real agent under test.
pub(crate) struct Agent {
    /// The backend name, which is also the launcher's name in the install cache.
    pub(crate) name: &'static str,
    /// Writes the agent's configuration for a mock at `base_url` into `root`.
    pub(crate) setup: fn(&Path, &str) -> AgentSetup,
    /// `cli.args`.
    pub(crate) args: &'static str,
    /// The `pricing:` section of ralph.yml (YAML lines under it).
    pub(crate) pricing: &'static str,
}

/// What `ralph run` reported, and where it ran.
pub(crate) struct RealRun {
    pub(crate) code: i32,
    /// Every stdout line, parsed.
    pub(crate) events: Vec<Value>,
    pub(crate) stderr: String,
    pub(crate) workspace: PathBuf,
    pub(crate) server: MockServer,
    _root: tempfile::TempDir,
}

impl RealRun {
    /// The normalized agent events, in order.
    pub(crate) fn agent_events(&self) -> Vec<&Value> {
        self.events
            .iter()
            .filter(|e| e["type"] == "agent")
            .map(|e| &e["event"])
            .collect()
    }

    /// The agent events of one type.
    pub(crate) fn agent_events_of(&self, kind: &str) -> Vec<&Value> {
        self.agent_events()
            .into_iter()
            .filter(|e| e["type"] == kind)
            .collect()
    }

    /// The one run event of `kind`.
    pub(crate) fn one(&self, kind: &str) -> &Value {
        let found: Vec<&Value> = self.events.iter().filter(|e| e["type"] == kind).collect();
        assert_eq!(
            found.len(),
            1,
            "{kind} events: {found:?}\nstderr:\n{}",
            self.stderr
        );
        found[0]
    }

    /// A description to print when an assertion fails.
    pub(crate) fn context(&self) -> String {
        let requests: Vec<String> = self
            .server
            .requests()
            .iter()
            .map(|r| format!("{} {} {:?}", r.method, r.path, r.routed))
            .collect();
        format!(
            "exit {}\nrequests:\n{}\nstderr:\n{}",
            self.code,
            requests.join("\n"),
            self.stderr
        )
    }
}

/// Runs one iteration of `agent` through `ralph run` with the prompt marked for `scenario`;
/// `None` when real-agent tests are skipped (`RALPH_SKIP_REAL_AGENTS=1`).
pub(crate) fn run_ralph(agent: &Agent, scenario: &str) -> Option<RealRun> {
    run_ralph_with(agent, scenario, "")
}

/// [`run_ralph`] with more lines under `cli:` (each indented by two spaces).
pub(crate) fn run_ralph_with(agent: &Agent, scenario: &str, cli: &str) -> Option<RealRun> {
    let launcher = match real_agent(agent.name) {
        Ok(Some(path)) => path,
        Ok(None) => return None,
        Err(e) => panic!("{e}"),
    };
    let script = Script::parse_yaml(SCRIPT).expect("the script is valid");
    let server = MockServer::start(script).expect("the mock starts");
    let root = tempfile::tempdir().expect("a temp dir");
    let setup = (agent.setup)(root.path(), &server.base_url());
    let workspace = root.path().join("work");
    std::fs::create_dir_all(&workspace).expect("the workspace is created");
    let config = format!(
        "cli:\n  backend: {name}\n  command: {launcher}\n  args: {args}\n{cli}\
         event_loop:\n  max_iterations: 1\n  max_consecutive_failures: 1\n\
         pricing:\n{pricing}",
        name = agent.name,
        launcher = launcher.display(),
        args = agent.args,
        pricing = agent.pricing,
    );
    std::fs::write(workspace.join("ralph.yml"), config).expect("ralph.yml is written");
    let prompt = format!("Write out.txt with the shell. [[scenario:{scenario}]]");
    let mut command = Command::new(env!("CARGO_BIN_EXE_ralph"));
    command
        .args(["run", "--output", "json", "-b", agent.name, "-p", &prompt])
        .current_dir(&workspace)
        .env_remove("RALPH_EVENTS_FILE");
    setup.apply(&mut command);
    let output = run(command);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let events = stdout
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("ralph printed a line that is not JSON ({e}): {line}"))
        })
        .collect();
    Some(RealRun {
        code: output.status.code().unwrap_or(-1),
        events,
        stderr,
        workspace,
        server,
        _root: root,
    })
}

/// Runs `command` to the end with stdin closed, reading both pipes as output arrives.
fn run(mut command: Command) -> Output {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = command.spawn().expect("ralph starts");
    ralph_test_support::wait_output(child, RUN_TIMEOUT)
}
