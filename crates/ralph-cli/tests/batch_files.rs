//! The files that run ralph as a batch job: the GitHub Action (`action.yml` and its
//! script) with the example workflow, and the example Kubernetes Job. The script runs here
//! as GitHub would run it (its environment files, a fake agent, a local bare repository
//! for `origin`); actionlint checks the workflow and the action; the Job validates against
//! a vendored Kubernetes schema.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{Workspace, code, git, ralph_bin};
use pretty_assertions::assert_eq;
use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn yaml(path: &Path) -> Value {
    serde_saphyr::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// --- The Kubernetes Job -----------------------------------------------------------------

fn job() -> Value {
    yaml(&repo().join("docs/examples/kubernetes/ralph-job.yaml"))
}

fn job_schema() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(&read(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kubernetes/job-batch-v1.schema.json"),
    ))
    .expect("the schema is JSON");
    jsonschema::draft202012::new(&schema).expect("a valid JSON Schema")
}

fn schema_errors(validator: &jsonschema::Validator, job: &Value) -> Vec<String> {
    validator
        .iter_errors(job)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

#[test]
fn the_job_manifest_validates_against_the_kubernetes_schema() {
    let validator = job_schema();
    assert_eq!(schema_errors(&validator, &job()), Vec::<String>::new());
    // The schema has teeth: a misspelt field and a wrong type are refused.
    let mut misspelt = job();
    misspelt["spec"]["backofLimitPerIndex"] = Value::from(2);
    assert!(!schema_errors(&validator, &misspelt).is_empty());
    let mut wrong_type = job();
    wrong_type["spec"]["activeDeadlineSeconds"] = Value::from("an hour");
    assert!(!schema_errors(&validator, &wrong_type).is_empty());
}

#[test]
fn the_job_runs_one_task_per_index_and_continues_a_stopped_one_from_its_volume() {
    let job = job();
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    assert!(
        spec["backoffLimitPerIndex"]
            .as_u64()
            .is_some_and(|n| n >= 1)
    );
    let pod = &spec["template"]["spec"];
    assert_eq!(pod["restartPolicy"], "Never");
    let container = &pod["containers"][0];
    let script = container["args"][0].as_str().expect("the script");
    assert!(
        script.contains("$((JOB_COMPLETION_INDEX + 1))p"),
        "{script}"
    );
    // A retry finds the state its index left on the volume and continues it.
    assert!(script.contains("if [ -f .ralph/current-run ]"), "{script}");
    assert!(script.contains("exec ralph run --continue"), "{script}");
    let mount = container["volumeMounts"]
        .as_array()
        .expect("mounts")
        .iter()
        .find(|m| m["mountPath"] == "/state")
        .expect("the state volume");
    assert_eq!(mount["subPathExpr"], "task-$(JOB_COMPLETION_INDEX)");
    // The Job's deadline leaves the loop its whole runtime limit, and then some.
    let runtime: u64 = script
        .split("--max-runtime ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("--max-runtime N");
    let deadline = spec["activeDeadlineSeconds"].as_u64().expect("a deadline");
    assert!(deadline > runtime, "{deadline} <= {runtime}");
    // tini is PID 1 and the shell `exec`s ralph: the kubelet's SIGTERM reaches ralph.
    assert_eq!(container["command"][0], "/usr/bin/tini");
    assert!(
        script
            .lines()
            .filter(|l| l.contains("ralph run"))
            .all(|l| l.trim_start().starts_with("exec ")),
        "{script}"
    );
}

#[test]
fn the_dockerfile_runs_ralph_under_an_init_process_as_a_user_that_is_not_root() {
    let dockerfile = read(&repo().join("Dockerfile"));
    let last_user = dockerfile
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("USER "))
        .expect("a USER");
    assert!(!last_user.starts_with("root") && !last_user.starts_with('0'));
    assert!(dockerfile.contains("ENTRYPOINT [\"/usr/bin/tini\", \"--\", \"ralph\"]"));
    assert!(dockerfile.contains(" git "), "git is installed");
    // The Job runs as the image's user.
    let user = &job()["spec"]["template"]["spec"]["securityContext"]["runAsUser"];
    assert!(dockerfile.contains(&format!("--uid {user} ")), "{user}");
}

// --- actionlint -------------------------------------------------------------------------

/// actionlint, as scripts/test.sh installs it (`RALPH_ACTIONLINT`), else on PATH. `None`
/// lets a plain `cargo test` pass without it; scripts/test.sh sets
/// `RALPH_REQUIRE_TOOLS=1`, and then a missing actionlint fails the test.
fn actionlint() -> Option<PathBuf> {
    let found = std::env::var_os("RALPH_ACTIONLINT")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::split_paths(&std::env::var_os("PATH")?)
                .map(|dir| dir.join("actionlint"))
                .find(|p| p.is_file())
        });
    if found.is_none() {
        assert!(
            std::env::var("RALPH_REQUIRE_TOOLS").as_deref() != Ok("1"),
            "actionlint is required (RALPH_REQUIRE_TOOLS=1) but neither RALPH_ACTIONLINT \
             nor PATH has it"
        );
        eprintln!("skipped: no actionlint (scripts/test.sh installs it)");
    }
    found
}

/// The composite action's steps as a reusable workflow whose inputs are the action's:
/// actionlint reads an action's metadata but does not check its steps, and this way it
/// checks their expressions and the inputs of the actions they use. JSON is YAML.
fn action_steps_as_workflow(action: &str) -> Option<String> {
    let action: Value = serde_saphyr::from_str(action).ok()?;
    let inputs: serde_json::Map<String, Value> = action["inputs"]
        .as_object()?
        .iter()
        .map(|(name, input)| {
            let mut spec = serde_json::json!({"type": "string", "required": input["required"]});
            if let Some(default) = input.get("default") {
                spec["default"] = default.clone();
            }
            (name.clone(), spec)
        })
        .collect();
    let workflow = serde_json::json!({
        "on": {"workflow_call": {"inputs": inputs}},
        "jobs": {"steps": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}},
    });
    Some(workflow.to_string())
}

/// Runs actionlint in a repository laid out as a user's would be: the action at its root,
/// the example workflow in `.github/workflows/` (so `uses: ./` is checked against
/// action.yml's inputs), and the action's steps as a workflow of their own.
fn lint(actionlint: &Path, workflow: &str, action: &str) -> Output {
    let dir = tempfile::tempdir().expect("tempdir");
    git(dir.path(), &["init", "-q"]);
    std::fs::create_dir_all(dir.path().join(".github/workflows")).expect("mkdir");
    std::fs::write(dir.path().join("action.yml"), action).expect("action");
    std::fs::write(
        dir.path().join(".github/workflows/ralph-matrix.yml"),
        workflow,
    )
    .expect("workflow");
    if let Some(steps) = action_steps_as_workflow(action) {
        std::fs::write(dir.path().join(".github/workflows/action-steps.yml"), steps)
            .expect("the action's steps");
    }
    Command::new(actionlint)
        .arg("-no-color")
        .current_dir(dir.path())
        .output()
        .expect("actionlint")
}

#[test]
fn the_action_and_the_example_workflow_pass_actionlint() {
    let Some(actionlint) = actionlint() else {
        return;
    };
    let workflow = read(&repo().join("docs/examples/github/ralph-matrix.yml"));
    let action = read(&repo().join("action.yml"));
    let out = lint(&actionlint, &workflow, &action);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // It does check them: an input the action does not have, and an action without its
    // `runs`, are both refused.
    let bad_input = workflow.replace("prompt-file:", "prompt-fil:");
    assert!(!lint(&actionlint, &bad_input, &action).status.success());
    let no_runs = action.replace("\nruns:", "\nrns:");
    assert!(!lint(&actionlint, &workflow, &no_runs).status.success());
    // The action's own steps are checked: an input it does not declare, and an input the
    // upload action does not have.
    let undeclared = action.replace("inputs.max-runtime", "inputs.max-run-time");
    assert!(!lint(&actionlint, &workflow, &undeclared).status.success());
    let bad_with = action.replace("include-hidden-files:", "include-hidden:");
    assert!(!lint(&actionlint, &workflow, &bad_with).status.success());
}

#[test]
fn the_example_workflow_cannot_run_in_this_repository() {
    assert!(!repo().join(".github/workflows/ralph-matrix.yml").exists());
    let workflow = yaml(&repo().join("docs/examples/github/ralph-matrix.yml"));
    let job = &workflow["jobs"]["loop"];
    assert_eq!(job["strategy"]["fail-fast"], false);
    assert!(job["strategy"]["max-parallel"].as_u64().is_some());
    let group = job["concurrency"]["group"].as_str().expect("a group");
    assert!(group.contains("matrix.task"), "{group}");
    // The job's limit is above the loop's, which stops first and saves its state.
    let minutes = job["timeout-minutes"].as_u64().expect("timeout-minutes");
    let step = job["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .find(|s| s["uses"] == "./")
        .expect("the ralph step");
    let runtime: u64 = step["with"]["max-runtime"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("max-runtime");
    assert!(minutes * 60 > runtime, "{minutes} min <= {runtime} s");
}

// --- The action's script ----------------------------------------------------------------

/// A workspace for the action: a git repository whose `origin` is a local bare one, and
/// GitHub's environment files.
struct ActionRun {
    ws: Workspace,
    origin: tempfile::TempDir,
    github: tempfile::TempDir,
}

impl ActionRun {
    fn new(config: &str, plan: &str) -> ActionRun {
        let ws = Workspace::new(config, plan);
        let origin = tempfile::tempdir().expect("origin");
        git(origin.path(), &["init", "-q", "--bare", "-b", "main"]);
        git(ws.path(), &["init", "-q", "-b", "main"]);
        std::fs::write(ws.path().join(".gitignore"), ".fake/\n.ralph/\n").expect("ignore");
        std::fs::create_dir(ws.path().join("tasks")).expect("tasks");
        std::fs::write(ws.path().join("tasks/task-1.md"), "Do task one.\n").expect("task");
        git(ws.path(), &["add", "-A"]);
        git(ws.path(), &["commit", "-q", "-m", "start"]);
        let url = origin.path().display().to_string();
        git(ws.path(), &["remote", "add", "origin", &url]);
        git(ws.path(), &["push", "-q", "origin", "main"]);
        let github = tempfile::tempdir().expect("github files");
        ActionRun { ws, origin, github }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.github.path().join(name)
    }

    /// `scripts/action-run.sh <step>` as the action runs it.
    fn step(&self, step: &str) -> Output {
        self.command(step).output().expect("the action's script")
    }

    fn command(&self, step: &str) -> Command {
        let mut cmd = Command::new("bash");
        cmd.arg(repo().join("scripts/action-run.sh")).arg(step);
        // The fake agents' environment, as the tests' ralph runs get it.
        for (key, value) in self.ws.command(&[]).get_envs() {
            match value {
                Some(v) => cmd.env(key, v),
                None => cmd.env_remove(key),
            };
        }
        cmd.current_dir(self.ws.path())
            .env("RALPH_BIN", ralph_bin())
            .env("RALPH_TASK", "task-1")
            .env("RALPH_PROMPT_FILE", "tasks/task-1.md")
            .env("RUNNER_TEMP", self.github.path())
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_OUTPUT", self.file("output"))
            .env("GITHUB_STEP_SUMMARY", self.file("summary"))
            .stdin(std::process::Stdio::null());
        cmd
    }

    fn outputs(&self) -> Vec<String> {
        read(&self.file("output"))
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

#[test]
fn the_action_runs_the_loop_sets_its_outputs_and_pushes_the_task_branch() {
    let run = ActionRun::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | LOOP_COMPLETE | write=done.md\n",
    );
    for step in ["install", "prepare"] {
        let out = run.step(step);
        assert_eq!(code(out.status), 0, "{step}: {out:?}");
    }
    let out = run.step("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(code(out.status), 0, "{out:?}");
    assert!(!stdout.contains("::error"), "{stdout}");
    assert_eq!(
        run.outputs(),
        ["branch=ralph/task-1", "status=completed", "exit-code=0"]
    );
    let summary = read(&run.file("summary"));
    assert!(summary.contains("### ralph: completed"), "{summary}");
    assert!(summary.contains("| branch | ralph/task-1 |"), "{summary}");
    // What the agent did is committed by the job's own steps (here: by hand), then pushed.
    git(run.ws.path(), &["add", "done.md"]);
    git(run.ws.path(), &["commit", "-q", "-m", "task one"]);
    let out = run.step("push");
    assert_eq!(code(out.status), 0, "{out:?}");
    assert_eq!(
        git(run.origin.path(), &["rev-parse", "refs/heads/ralph/task-1"]),
        git(run.ws.path(), &["rev-parse", "HEAD"])
    );
}

#[test]
fn a_failed_run_fails_the_step_with_its_code_an_annotation_and_its_outputs() {
    let run = ActionRun::new(
        "cli:\n  backend: pi\nevent_loop:\n  max_consecutive_failures: 1\n",
        "pi/anthropic/text.jsonl | | exit=3\n",
    );
    assert_eq!(code(run.step("prepare").status), 0);
    let out = run.step("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(code(out.status), 1, "{out:?}");
    let errors: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("::error"))
        .collect();
    assert_eq!(errors.len(), 1, "{stdout}");
    assert!(errors[0].contains("ended failed (exit 1)"), "{stdout}");
    assert_eq!(
        run.outputs(),
        ["branch=ralph/task-1", "status=failed", "exit-code=1"]
    );
    // The push after a failure still keeps the work (the step runs `if: always()`).
    assert_eq!(code(run.step("push").status), 0);
    git(run.origin.path(), &["rev-parse", "refs/heads/ralph/task-1"]);
}

#[test]
fn a_resumed_job_starts_from_the_pushed_branch_and_continues_the_restored_run() {
    // The first job: stopped by a limit after one iteration, state kept, branch pushed.
    let first = ActionRun::new(
        "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 1\n",
        "pi/anthropic/text.jsonl | | write=step1.md\npi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    assert_eq!(code(first.step("prepare").status), 0);
    let out = first.step("run");
    assert_eq!(code(out.status), 2, "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("::warning"));
    git(first.ws.path(), &["add", "step1.md"]);
    git(first.ws.path(), &["commit", "-q", "-m", "step one"]);
    assert_eq!(code(first.step("push").status), 0);

    // The re-run: a fresh clone of main elsewhere, `.ralph/` restored from the artifact.
    let second = Workspace::new("", "");
    std::fs::remove_dir_all(second.path()).expect("empty");
    let url = first.origin.path().display().to_string();
    let status = Command::new("git")
        .args(["clone", "-q", "-b", "main", &url])
        .arg(second.path())
        .status()
        .expect("clone");
    assert!(status.success());
    let copy = |from: &Path, to: &Path| {
        let ok = Command::new("cp")
            .arg("-a")
            .arg(from)
            .arg(to)
            .status()
            .expect("cp")
            .success();
        assert!(ok);
    };
    copy(&first.ws.path().join(".ralph"), second.path());
    copy(&first.ws.path().join(".fake"), second.path());
    // This time the loop may finish.
    std::fs::write(second.path().join("ralph.yml"), "cli:\n  backend: pi\n").expect("config");
    let resumed = ActionRun {
        ws: second,
        origin: first.origin,
        github: tempfile::tempdir().expect("github files"),
    };
    assert_eq!(code(resumed.step("prepare").status), 0);
    assert!(
        resumed.ws.path().join("step1.md").is_file(),
        "the pushed work is there"
    );
    let out = resumed.step("run");
    assert_eq!(code(out.status), 0, "{out:?}");
    assert_eq!(resumed.ws.history().len(), 2);
    assert_eq!(
        resumed.outputs(),
        ["branch=ralph/task-1", "status=completed", "exit-code=0"]
    );
}

#[test]
fn a_cancelled_job_signals_only_the_script_and_ralph_still_stops_in_time() {
    use std::time::{Duration, Instant};

    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;

    // GitHub signals the step's entry process (the script) and nothing else, until it
    // kills the tree 10 s after the first signal.
    let run = ActionRun::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | | ignore_term hang=60\n",
    );
    assert_eq!(code(run.step("prepare").status), 0);
    let mut script = run
        .command("run")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let ready = run.ws.path().join(".fake/ignoring-term-1");
    let deadline = Instant::now() + common::RUN_TIMEOUT;
    while !ready.exists() {
        assert!(Instant::now() < deadline, "the agent never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    let pid = Pid::from_raw(i32::try_from(script.id()).expect("pid"));
    let sent = Instant::now();
    kill(pid, Signal::SIGINT).expect("SIGINT");
    while script.try_wait().expect("wait").is_none() {
        // GitHub's SIGTERM would come at 7.5 s: ralph must be gone well before.
        assert!(
            sent.elapsed() < Duration::from_millis(7500),
            "still running"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = sent.elapsed();
    let out = script.wait_with_output().expect("output");
    assert_eq!(code(out.status), 130, "{out:?}");
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert_eq!(
        run.outputs(),
        ["branch=ralph/task-1", "status=interrupted", "exit-code=130"]
    );
    assert_eq!(
        run.ws.saved_state()["state"]["pending"],
        serde_json::json!([{"topic": "task.start", "payload": null}])
    );
}
