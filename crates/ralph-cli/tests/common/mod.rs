//! A temporary workspace with a ralph.yml, a plan for the fake agents, and helpers to
//! run the real `ralph` binary in it and read what the run left behind.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

use ralph_test_support::RunFiles;
use serde_json::Value;

pub mod stderr_watch;
pub mod tmux;

/// How long any ralph run in these tests may take before the test gives up on it. Only
/// a guard against hanging: no test asserts on time.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// A pi config with one gate, `slow`, that starts a background `sleep` (its pid in
/// `gate-child`), writes its own pid to `gate.pid` (the sign that both run), and waits.
pub const SLOW_GATE: &str = "\
cli:
  backend: pi
gates:
  - name: slow
    run: \"sleep 300 & echo $! > gate-child; echo $$ > gate.pid; wait\"
";

/// A three-hat loop (planner, builder on claude, reviewer on pi with its own model) that
/// needs `review.approved` before it completes.
pub const THREE_HATS: &str = "\
cli:
  backend: pi
event_loop:
  starting_event: work.start
  required_events: [review.approved]
  max_iterations: 10
hats:
  planner:
    name: Planner
    description: Splits the task into steps
    triggers: [work.start]
    publishes: [plan.ready]
    instructions: Write the plan and emit plan.ready.
  builder:
    name: Builder
    description: Implements the plan
    triggers: [plan.ready]
    publishes: [build.done]
    backend: claude
    instructions: Build it and emit build.done.
  reviewer:
    name: Reviewer
    description: Reviews the build
    triggers: [build.done]
    publishes: [review.approved, LOOP_COMPLETE]
    backend: {type: pi, args: [\"--model\", \"reviewer-model\"]}
";

pub struct Workspace {
    dir: tempfile::TempDir,
}

/// A validator for docs/run-events.schema.json, the contract of `ralph run --output json`.
pub fn run_events_validator() -> jsonschema::Validator {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/run-events.schema.json");
    let text = std::fs::read_to_string(&path).expect("docs/run-events.schema.json");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::draft202012::new(&schema).expect("the schema is a valid JSON Schema")
}

pub fn ralph_bin() -> &'static str {
    env!("CARGO_BIN_EXE_ralph")
}

fn fake_agents() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fake-agents")
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

impl Workspace {
    /// A workspace with `config` as ralph.yml (none when empty) and `plan` for the fake
    /// agents (one line per invocation, see tests/fake-agents/fake-agent).
    pub fn new(config: &str, plan: &str) -> Workspace {
        Workspace::new_in(&std::env::temp_dir(), config, plan)
    }

    /// [`Workspace::new`] in a directory under `parent` (a small file system, say).
    pub fn new_in(parent: &Path, config: &str, plan: &str) -> Workspace {
        let dir = tempfile::tempdir_in(parent).expect("tempdir");
        if !config.is_empty() {
            std::fs::write(dir.path().join("ralph.yml"), config).expect("write ralph.yml");
        }
        std::fs::create_dir(dir.path().join(".fake")).expect("state dir");
        std::fs::write(dir.path().join(".fake/plan"), plan).expect("write plan");
        Workspace { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The user cache directory the runs get (the probe cache lives under it).
    pub fn cache_dir(&self) -> PathBuf {
        self.path().join(".fake/cache")
    }

    /// The `--version` calls the fake agents answered, in order (`pi --version`).
    pub fn version_log(&self) -> Vec<String> {
        std::fs::read_to_string(self.state().join("version-log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn state(&self) -> PathBuf {
        self.path().join(".fake")
    }

    /// `ralph <args>` in the workspace, with the fake agents first on PATH and no user
    /// config.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(ralph_bin());
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![fake_agents()];
        dirs.extend(std::env::split_paths(&path));
        cmd.args(args)
            .current_dir(self.path())
            .env("PATH", std::env::join_paths(dirs).expect("PATH"))
            .env("HOME", self.path().join(".fake"))
            .env("XDG_CONFIG_HOME", self.path().join(".fake/config"))
            .env("XDG_CACHE_HOME", self.cache_dir())
            .env("FAKE_STATE", self.state())
            .env("FAKE_PLAN", self.state().join("plan"))
            .env("FAKE_FIXTURES", fixtures())
            .env_remove("RALPH_EVENTS_FILE")
            // `ralph emit` names its sender by it: the test's commands come from outside
            // any agent, even when the tests run under an agent of their own.
            .env_remove("RALPH_AGENT_RUN")
            .env_remove("RALPH_CONFIG")
            // Where `-H NAME`'s hint looks: the test's presets only.
            .env_remove("RALPH_PRESETS_DIR")
            .env_remove("AUTOLOOP_PRESETS_DIR")
            // Under GitHub Actions ralph would add annotations and a step summary.
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .stdin(Stdio::null());
        cmd
    }

    /// Runs `ralph <args>` to the end.
    /// `ralph <args>` where only the fake agents (and the system's tools) are on PATH, so
    /// what is "installed" does not depend on the machine.
    pub fn run_isolated(&self, args: &[&str]) -> Output {
        let child = self
            .command(args)
            .env("PATH", format!("{}:/usr/bin:/bin", fake_agents().display()))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn ralph");
        wait_output(child)
    }

    pub fn run(&self, args: &[&str]) -> Output {
        wait_output(self.start(args))
    }

    /// Starts `ralph <args>` without waiting, its output piped (collect it with
    /// [`wait_output`] or [`Workspace::stop`]).
    pub fn start(&self, args: &[&str]) -> Child {
        self.command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn ralph")
    }

    /// Starts `ralph run --output json <args>` like [`Workspace::start`].
    pub fn start_json(&self, args: &[&str]) -> Child {
        let mut all = vec!["run", "--output", "json"];
        all.extend_from_slice(args);
        self.start(&all)
    }

    /// Sends `signal` to a ralph started with [`Workspace::start`] and waits for it.
    pub fn stop(&self, child: Child, signal: nix::sys::signal::Signal) -> Output {
        let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid"));
        nix::sys::signal::kill(pid, signal).expect("signal ralph");
        wait_output(child)
    }

    /// Runs `ralph run --output json <args>`: the exit code and every stdout line
    /// parsed as JSON (the test fails if one is not JSON).
    pub fn run_json(&self, args: &[&str]) -> (i32, Vec<Value>, String) {
        let out = wait_output(self.start_json(args));
        let stdout = String::from_utf8(out.stdout).expect("utf-8 stdout");
        let events = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
            .collect();
        (
            code(out.status),
            events,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// The fake agents' log, one line per invocation.
    /// `ralph tools task ARGS`: its exit code, stdout and stderr.
    pub fn tools_task(&self, args: &[&str]) -> (i32, String, String) {
        let mut all = vec!["tools", "task"];
        all.extend_from_slice(args);
        let out = self.run(&all);
        (
            code(out.status),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    pub fn agent_log(&self) -> Vec<String> {
        std::fs::read_to_string(self.state().join("log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The prompt of the `n`th agent invocation (1-based).
    pub fn prompt(&self, n: usize) -> String {
        std::fs::read_to_string(self.state().join(format!("prompt-{n}.txt"))).expect("prompt")
    }

    /// The files of the workspace's current run.
    pub fn run_files(&self) -> RunFiles {
        RunFiles::current(self.path())
    }

    /// The history log's records.
    pub fn history(&self) -> Vec<Value> {
        self.run_files().history()
    }

    /// Each history record's outcome status (`"succeeded"`, `"interrupted"`, ...).
    pub fn outcomes(&self) -> Vec<Value> {
        self.history()
            .iter()
            .map(|r| r["outcome"]["status"].clone())
            .collect()
    }

    pub fn summary(&self) -> String {
        self.run_files().summary()
    }

    pub fn saved_state(&self) -> Value {
        self.run_files().saved_state()
    }

    /// Waits until the fake agents have been started `n` times.
    pub fn wait_for_agent(&self, n: usize) {
        let deadline = Instant::now() + RUN_TIMEOUT;
        while self.agent_log().len() < n {
            assert!(Instant::now() < deadline, "the agent never started");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Waits until `path` holds a whole line (a pid a test's process wrote) and returns it
/// as a number; fails the test after [`RUN_TIMEOUT`] (`what` says what never started).
pub fn wait_for_pid(path: &Path, what: &str) -> i32 {
    let deadline = Instant::now() + RUN_TIMEOUT;
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.ends_with('\n')
        {
            return text.trim().parse().expect("a pid");
        }
        assert!(Instant::now() < deadline, "{what} never started");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until `path` exists (a marker a fake agent or a script makes).
pub fn wait_for_file(path: &Path, what: &str) {
    let deadline = Instant::now() + RUN_TIMEOUT;
    while !path.exists() {
        assert!(Instant::now() < deadline, "{what} never happened");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// How long [`gone`] waits for a process ralph stopped to go: a guard against hanging,
/// not a measure.
const GONE_WAIT: Duration = Duration::from_secs(10);

/// Whether process `pid` runs: it exists and is not dead waiting for its reaper (a
/// zombie runs nothing).
pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with(['Z', 'X']))
    })
}

/// Whether process `pid` is gone (see [`alive`]), waiting briefly for it.
pub fn gone(pid: i32) -> bool {
    let until = Instant::now() + GONE_WAIT;
    while alive(pid) {
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// Ctrl-C to a `ralph run --output json` started with [`Workspace::start_json`], which
/// must then exit with 130: its events.
pub fn interrupt_json(ws: &Workspace, child: Child) -> Vec<Value> {
    let out = ws.stop(child, nix::sys::signal::Signal::SIGINT);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(code(out.status), 130, "{stderr}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// Waits for every child, each of which must exit 0 (the test fails with its stderr).
pub fn wait_all_ok(children: Vec<Child>) {
    for child in children {
        let out = child.wait_with_output().expect("wait");
        assert_eq!(
            code(out.status),
            0,
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Waits for `child` (killing it after [`RUN_TIMEOUT`]) and collects its output.
pub fn wait_output(child: Child) -> Output {
    ralph_test_support::wait_output(child, RUN_TIMEOUT)
}

/// `git <args>` in `dir` as a configured user, which must succeed: its trimmed stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t.invalid"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .trim()
        .to_owned()
}

/// A command's stdout, as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A command's stderr, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn code(status: ExitStatus) -> i32 {
    status.code().unwrap_or(-1)
}

/// The events of one `type` in a JSON-lines output.
pub fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

/// The `loop_finished` event (there must be exactly one, last).
pub fn finished(events: &[Value]) -> &Value {
    let last = events.last().expect("no output");
    assert_eq!(last["type"], "loop_finished", "last event: {last}");
    assert_eq!(of_type(events, "loop_finished").len(), 1);
    last
}
