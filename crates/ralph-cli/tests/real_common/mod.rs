//! The real-agent harness: the real `ralph` binary driving the real pi and Claude Code (as
//! installed by `scripts/install-agents.sh`) against this test's own offline mock model
//! server, in a fresh temporary root:
//!
//! ```text
//! ROOT/ws        the workspace (ralph.yml, the agent's files, .ralph/)
//! ROOT/home      HOME of ralph and its agents (Claude's state lands here)
//! ROOT/pi-agent  pi's models.json and settings.json, pointing at the mock
//! ```
//!
//! Every process of the run carries a marker variable unique to the test, so a test can scan
//! `/proc` for anything the run left behind. The agents reach nothing but 127.0.0.1: their
//! configuration names only the mock, and variables that would send them elsewhere are removed.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use ralph_test_support::{
    ClaudeOptions, ClaudeSetup, MockServer, PiOptions, PiSetup, Routed, RunFiles, Script,
    agents_bin_dir, real_agent,
};
use serde_json::Value;

/// pi 0.73.1, the current release (`pi` in the launcher dir).
pub const PI: &str = "pi";
/// pi 0.51.6, the pi of early 2026.
pub const PI_OLD: &str = "pi-0.51.6";
/// Claude Code (`claude` in the launcher dir).
pub const CLAUDE: &str = "claude";

/// The variable every process of a run carries, set to the test's own marker.
pub const MARKER_VAR: &str = "RALPH_REAL_AGENT_TEST";

/// Only a guard against a hang: a real-agent run here takes seconds. No test asserts on time.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(180);
const POLL: Duration = Duration::from_millis(20);

/// How the agent's output reaches ralph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Pipes, the default.
    Pipes,
    /// A pseudo-terminal (`cli.pty: true`).
    Pty,
}

impl Transport {
    /// The `cli:` line that selects this transport.
    pub fn cli_line(self) -> &'static str {
        match self {
            Transport::Pipes => "  pty: false\n",
            Transport::Pty => "  pty: true\n",
        }
    }
}

/// A temporary root, a mock server and the agents' configuration for one test.
pub struct RealEnv {
    root: tempfile::TempDir,
    pub server: MockServer,
    pi: PiSetup,
    claude: ClaudeSetup,
    pub marker: String,
}

/// What `ralph run --output json` printed, and how it exited.
#[derive(Debug)]
pub struct JsonRun {
    pub code: i32,
    pub events: Vec<Value>,
    pub stderr: String,
}

impl RealEnv {
    /// A fresh root and a mock playing `script` (YAML, see the mock's README), for a test that
    /// runs the agents named in `agents`. `None` when real-agent tests are skipped
    /// (`RALPH_SKIP_REAL_AGENTS=1`); a missing agent panics with the install command.
    pub fn start(script: &str, agents: &[&str]) -> Option<RealEnv> {
        Self::start_with(script, agents, &PiOptions::default())
    }

    /// Like [`Self::start`], with pi's settings.
    pub fn start_with(script: &str, agents: &[&str], pi_options: &PiOptions) -> Option<RealEnv> {
        for name in agents {
            real_agent(name).unwrap_or_else(|error| panic!("{error}"))?;
        }
        let script = Script::parse_yaml(script).unwrap_or_else(|e| panic!("bad script: {e}"));
        let server = MockServer::start(script).expect("the mock starts");
        let root = tempfile::tempdir().expect("a temp dir");
        let pi = PiSetup::write(root.path(), &server.base_url(), pi_options).expect("pi config");
        let claude = ClaudeSetup::write(root.path(), &server.base_url(), ClaudeOptions::default())
            .expect("claude config");
        std::fs::create_dir(root.path().join("ws")).expect("the workspace");
        let marker = unique_marker();
        Some(RealEnv {
            root,
            server,
            pi,
            claude,
            marker,
        })
    }

    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// The workspace ralph runs in.
    pub fn ws(&self) -> PathBuf {
        self.root().join("ws")
    }

    /// The launcher of agent `name` (`pi`, `pi-0.51.6`, `claude`).
    pub fn agent_path(&self, name: &str) -> PathBuf {
        agents_bin_dir().join(name)
    }

    /// Writes the workspace's `ralph.yml`.
    pub fn write_config(&self, yaml: &str) {
        std::fs::write(self.ws().join("ralph.yml"), yaml).expect("write ralph.yml");
    }

    /// Writes a `ralph.yml` that runs the pinned pi, then `rest` (more `cli` keys, each
    /// indented under it, or other sections).
    pub fn write_pi_config(&self, rest: &str) {
        self.write_config(&format!(
            "cli:\n  backend: pi\n  command: {}\n{rest}",
            self.agent_path(PI).display()
        ));
    }

    /// A file the agent produced in the workspace, or `None`.
    pub fn file(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.ws().join(name)).ok()
    }

    /// Gives `command` the agents' isolated environment: HOME, pi's agent dir, Claude's
    /// variables, the launcher dir first on PATH, the marker; no user config of ralph.
    pub fn apply_env(&self, command: &mut Command) {
        self.pi.apply(command);
        self.claude.apply(command);
        let mut dirs = vec![agents_bin_dir()];
        if let Some(path) = std::env::var_os("PATH") {
            dirs.extend(std::env::split_paths(&path));
        }
        command
            .env("PATH", std::env::join_paths(dirs).expect("PATH"))
            .env("XDG_CONFIG_HOME", self.root().join("home/.config"))
            .env(MARKER_VAR, &self.marker)
            .env_remove("RALPH_EVENTS_FILE")
            .env_remove("RALPH_BIN");
    }

    /// `ralph <args>` in the workspace, stdin at end of file.
    pub fn ralph(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ralph"));
        command
            .args(args)
            .current_dir(self.ws())
            .stdin(Stdio::null());
        self.apply_env(&mut command);
        command
    }

    /// Runs `ralph run --output json <args>` to the end.
    pub fn run_json(&self, args: &[&str]) -> JsonRun {
        json_run(wait_output(self.start_json(args)))
    }

    /// `ralph run --output json <args>`, started with its output piped.
    fn start_json(&self, args: &[&str]) -> Child {
        let mut all = vec!["run", "--output", "json"];
        all.extend_from_slice(args);
        self.ralph(&all)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn ralph")
    }

    /// Starts `ralph run --output json <args>` without waiting for it; its output is read
    /// as it comes, so it never blocks on a full pipe.
    pub fn spawn_json(&self, args: &[&str]) -> Running {
        let child = self.start_json(args);
        let pid = i32::try_from(child.id()).expect("pid");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(wait_output(child));
        });
        Running { pid, output: rx }
    }

    /// Runs agent `name` by itself in the workspace with `args`, as a user would, outside
    /// ralph: to compare what it reports with what ralph made of it.
    pub fn run_agent(&self, name: &str, args: &[&str]) -> Output {
        let mut command = Command::new(self.agent_path(name));
        command
            .args(args)
            .current_dir(self.ws())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        self.apply_env(&mut command);
        wait_output(command.spawn().expect("spawn the agent"))
    }

    /// The run's history records.
    pub fn history(&self) -> Vec<Value> {
        RunFiles::current(&self.ws()).history()
    }

    pub fn summary(&self) -> String {
        RunFiles::current(&self.ws()).summary()
    }

    /// `(scenario, turn, attempt, outcome kind)` of every model request, in order.
    pub fn model_turns(&self) -> Vec<(String, usize, u32, String)> {
        self.server
            .model_requests()
            .into_iter()
            .filter_map(|r| r.routed)
            .map(
                |Routed {
                     scenario,
                     turn,
                     attempt,
                     outcome,
                     ..
                 }| {
                    let kind = serde_json::to_value(&outcome).expect("outcome JSON")["kind"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned();
                    (scenario.unwrap_or_default(), turn, attempt, kind)
                },
            )
            .collect()
    }

    /// Pids of live processes that carry this test's marker (zombies have no environment
    /// left and are not counted: they are dead).
    pub fn marked_processes(&self) -> Vec<(i32, String)> {
        processes_with_env(&format!("{MARKER_VAR}={}", self.marker))
    }
}

/// The mock's script for three hats (planner, builder, reviewer) that hand over through events
/// the agent emits with `ralph emit` in its shell tool: the builder writes `hello.txt` with
/// `content`, the reviewer reads it back and emits the promise as its last event.
pub fn three_hats_script(content: &str) -> String {
    let content = content.escape_default();
    format!(
        r#"
routes:
  - {{contains: "You are the planner", scenario: planner}}
  - {{contains: "You are the builder", scenario: builder}}
  - {{contains: "You are the reviewer", scenario: reviewer}}
scenarios:
  planner:
    - shell: ralph emit plan.ready "write hello.txt"
    - text: Plan published.
  builder:
    - write: {{path: hello.txt, content: "{content}"}}
      text: Writing the file.
    - shell: ralph emit build.done "wrote hello.txt in iteration $RALPH_ITERATION"
    - text: Built.
  reviewer:
    - read: {{path: hello.txt}}
    - shell: ralph emit review.approved "hello.txt says {{{{last_tool_result}}}}" && ralph emit LOOP_COMPLETE
    - text: Approved.
"#
    )
}

/// A tool call that records its shell's pid, starts a daemon in a new session and a plain
/// child, records theirs (the last file written, `sleep.pid`, is the signal that all three
/// exist), and waits; the second turn is never reached.
pub const SLEEPING_TOOL: &str = r#"
default: task
scenarios:
  task:
    - text: Running the long job.
      shell: "echo $$ > tool.pid; setsid sleep 31 & echo $! > daemon.pid; sleep 30 & echo $! > sleep.pid; wait"
    - text: never reached
"#;

/// A `ralph run` in progress.
pub struct Running {
    pub pid: i32,
    output: std::sync::mpsc::Receiver<Output>,
}

impl Running {
    /// Waits for the end (at most [`RUN_TIMEOUT`], enforced by the reader thread).
    pub fn finish(self) -> JsonRun {
        json_run(self.output.recv().expect("ralph's output"))
    }

    /// Sends ralph SIGINT (Ctrl-C) and waits for the end, which must be an interrupted run.
    pub fn interrupt(self) -> JsonRun {
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.pid),
            nix::sys::signal::Signal::SIGINT,
        )
        .expect("signal ralph");
        let run = self.finish();
        run.assert_ending("interrupted", 130, 130);
        run
    }
}

/// A marker no other test, and no other run of this test, carries.
fn unique_marker() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{}-{}-{nanos}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Live processes whose environment contains exactly `entry` (`NAME=value`), with their
/// command lines.
pub fn processes_with_env(entry: &str) -> Vec<(i32, String)> {
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for proc_entry in dir.flatten() {
        let Some(pid) = proc_entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(environ) = std::fs::read(proc_entry.path().join("environ")) else {
            continue;
        };
        if environ
            .split(|b| *b == 0)
            .any(|var| var == entry.as_bytes())
        {
            let cmdline = std::fs::read(proc_entry.path().join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            found.push((pid, cmdline.trim().to_owned()));
        }
    }
    found
}

/// Whether `pid` is a live process (not a zombie, not gone).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses, which may contain spaces.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// Parses a finished ralph's JSON lines (the test fails if one is not JSON).
pub fn json_run(out: Output) -> JsonRun {
    let stdout = String::from_utf8(out.stdout).expect("utf-8 stdout");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let events = stdout
        .lines()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}\n{stderr}"))
        })
        .collect();
    JsonRun {
        code: out.status.code().unwrap_or(-1),
        events,
        stderr,
    }
}

/// Waits for `child` (killing it after [`RUN_TIMEOUT`]) and collects its output.
pub fn wait_output(child: Child) -> Output {
    ralph_test_support::wait_output(child, RUN_TIMEOUT)
}

/// Waits until `path` exists and is non-empty (a file the agent's tool writes).
pub fn wait_for_file(path: &Path) -> String {
    let deadline = Instant::now() + RUN_TIMEOUT;
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && !text.trim().is_empty()
        {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(POLL);
    }
}

impl JsonRun {
    /// The events of one `type`.
    pub fn of_type(&self, kind: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["type"] == kind).collect()
    }

    /// For each event of one `type`, the values of `keys`, as a JSON array.
    pub fn fields(&self, kind: &str, keys: &[&str]) -> Vec<Value> {
        self.of_type(kind)
            .iter()
            .map(|e| keys.iter().map(|k| e[*k].clone()).collect())
            .collect()
    }

    /// The `loop_finished` event, which must be the only one and the last line.
    pub fn finished(&self) -> &Value {
        let last = self.events.last().unwrap_or_else(|| {
            panic!("ralph printed nothing; stderr:\n{}", self.stderr);
        });
        assert_eq!(last["type"], "loop_finished", "last event: {last}");
        assert_eq!(self.of_type("loop_finished").len(), 1);
        last
    }

    /// `(reason, exit_code)` of the loop, and the process's exit code.
    pub fn ending(&self) -> (String, i64, i32) {
        let end = self.finished();
        (
            end["reason"].as_str().unwrap_or_default().to_owned(),
            end["exit_code"].as_i64().unwrap_or(-1),
            self.code,
        )
    }

    /// Checks the loop's ending: its reason and exit code, and the process's exit code
    /// (stderr shown when they differ).
    pub fn assert_ending(&self, reason: &str, exit_code: i64, code: i32) {
        assert_eq!(
            self.ending(),
            (reason.to_owned(), exit_code, code),
            "stderr:\n{}",
            self.stderr
        );
    }

    /// The run itself, after checking that it completed (exit code 0); stderr otherwise.
    pub fn expect_completed(self) -> Self {
        self.assert_ending("completed", 0, 0);
        self
    }

    /// The normalized agent events of iteration `n`, in order.
    pub fn agent_events(&self, n: u64) -> Vec<&Value> {
        self.of_type("agent")
            .into_iter()
            .filter(|e| e["iteration"] == n)
            .map(|e| &e["event"])
            .collect()
    }

    /// Agent events of iteration `n` that are not streaming deltas, as compact values: the
    /// parts a test can state exactly (tool names and outputs, stops, retries).
    pub fn agent_story(&self, n: u64) -> Vec<Value> {
        self.agent_events(n)
            .into_iter()
            .filter_map(|e| {
                let t = e["type"].as_str().unwrap_or_default();
                Some(match t {
                    "tool_call_started" => serde_json::json!([t, e["name"], e["args"]]),
                    "tool_call_finished" => {
                        serde_json::json!([t, e["output"], e["is_error"]])
                    }
                    "message_finished" => serde_json::json!([t, e["stop"], e["text"]]),
                    "retry_started" => serde_json::json!([t, e["attempt"]]),
                    "retry_finished" => serde_json::json!([t, e["success"]]),
                    "run_finished" => serde_json::json!([t, e["is_error"]]),
                    _ => return None,
                })
            })
            .collect()
    }

    /// Every `iteration_finished` event.
    pub fn iterations(&self) -> Vec<&Value> {
        self.of_type("iteration_finished")
    }
}
