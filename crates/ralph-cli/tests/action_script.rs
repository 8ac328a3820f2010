//! The GitHub Action's script, `scripts/action-run.sh`, run step by step as the action
//! runs it: GitHub's environment files pointed at temporary ones, a fake agent, and a
//! local bare repository for `origin`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{Workspace, code, git, ralph_bin};
use pretty_assertions::assert_eq;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Where the action downloads the task's artifact, under `RUNNER_TEMP`.
const RESTORED: &str = "ralph-state-task-1";

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
            .env("RALPH_RESTORED", self.file(RESTORED))
            .stdin(std::process::Stdio::null());
        cmd
    }

    /// The job run again on another runner ("Re-run failed jobs"): a fresh clone of main,
    /// this job's `.ralph/` downloaded as its artifact where action.yml puts it (beside the
    /// checkout, under `RUNNER_TEMP`), and the fake agents' files.
    fn rerun(self) -> ActionRun {
        let second = Workspace::new("", "");
        std::fs::remove_dir_all(second.path()).expect("empty");
        let url = self.origin.path().display().to_string();
        let status = Command::new("git")
            .args(["clone", "-q", "-b", "main", &url])
            .arg(second.path())
            .status()
            .expect("clone");
        assert!(status.success());
        let github = tempfile::tempdir().expect("github files");
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
        copy(
            &self.ws.path().join(".ralph"),
            &github.path().join(RESTORED),
        );
        copy(&self.ws.path().join(".fake"), second.path());
        ActionRun {
            ws: second,
            origin: self.origin,
            github,
        }
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

    // The re-run, with the artifact restored.
    let resumed = first.rerun();
    // This time the loop may finish.
    std::fs::write(resumed.ws.path().join("ralph.yml"), "cli:\n  backend: pi\n").expect("config");
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
fn a_resumed_job_whose_branch_tracks_files_under_ralph_takes_the_artifacts_copy() {
    // The first job's agent commits with `git add -A` in a repository that does not
    // ignore `.ralph/`: the pushed branch tracks `.ralph/.gitignore` and `.ralph/agent/`.
    let first = ActionRun::new(
        "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 1\n",
        "pi/anthropic/text.jsonl | | write=step1.md\npi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    std::fs::write(first.ws.path().join(".gitignore"), ".fake/\n").expect("ignore");
    git(first.ws.path(), &["commit", "-q", "-am", "version .ralph/"]);
    git(first.ws.path(), &["push", "-q", "origin", "main"]);
    assert_eq!(code(first.step("prepare").status), 0);
    assert_eq!(code(first.step("run").status), 2);
    let scratchpad = first.ws.path().join(".ralph/agent/scratchpad.md");
    std::fs::create_dir_all(scratchpad.parent().unwrap()).expect("agent dir");
    std::fs::write(&scratchpad, "committed\n").expect("scratchpad");
    // Committed, then deleted before the job ended: the artifact does not have them. Two
    // are links to what the repository keeps outside `.ralph/`, a file and a directory.
    let agent = first.ws.path().join(".ralph/agent");
    std::fs::write(agent.join("stale.md"), "done long ago\n").expect("stale");
    std::fs::create_dir(first.ws.path().join("kept")).expect("kept");
    std::fs::write(first.ws.path().join("kept/inner.txt"), "kept\n").expect("inner");
    std::fs::write(first.ws.path().join("kept.txt"), "kept\n").expect("kept file");
    std::os::unix::fs::symlink("../../kept", agent.join("dir-link")).expect("link");
    std::os::unix::fs::symlink("../../kept.txt", agent.join("file-link")).expect("link");
    git(first.ws.path(), &["add", "-A"]);
    git(first.ws.path(), &["commit", "-q", "-m", "step one"]);
    let tracked = git(first.ws.path(), &["ls-files", ".ralph"]);
    assert!(tracked.contains(".ralph/.gitignore"), "{tracked}");
    assert!(tracked.contains(".ralph/agent/dir-link"), "{tracked}");
    for gone in ["stale.md", "dir-link", "file-link"] {
        std::fs::remove_file(agent.join(gone)).expect("delete");
    }
    // Written after the commit: the artifact, saved when the job ends, has it.
    std::fs::write(&scratchpad, "after the commit\n").expect("scratchpad");
    assert_eq!(code(first.step("push").status), 0);

    let resumed = first.rerun();
    std::fs::write(resumed.ws.path().join("ralph.yml"), "cli:\n  backend: pi\n").expect("config");
    let out = resumed.step("prepare");
    assert_eq!(code(out.status), 0, "{out:?}");
    let ralph = resumed.ws.path().join(".ralph");
    assert!(
        ralph.join("current-run").is_file(),
        "the run's state is back"
    );
    assert_eq!(
        read(&ralph.join("agent/scratchpad.md")),
        "after the commit\n"
    );
    // What the artifact lacks is gone, links as links: what they led to stays.
    for gone in ["stale.md", "dir-link", "file-link"] {
        let path = ralph.join("agent").join(gone);
        assert!(
            path.symlink_metadata().is_err(),
            "{} is back",
            path.display()
        );
    }
    assert_eq!(read(&resumed.ws.path().join("kept/inner.txt")), "kept\n");
    assert_eq!(read(&resumed.ws.path().join("kept.txt")), "kept\n");
    assert!(
        !resumed.file(RESTORED).exists(),
        "moved in, not left behind"
    );
    let out = resumed.step("run");
    assert_eq!(code(out.status), 0, "{out:?}");
    assert_eq!(
        resumed.outputs(),
        ["branch=ralph/task-1", "status=completed", "exit-code=0"]
    );
}

#[test]
fn the_action_downloads_the_artifact_where_prepare_looks_for_it() {
    let action: serde_json::Value =
        serde_saphyr::from_str(&read(&repo().join("action.yml"))).expect("action.yml");
    let steps = action["runs"]["steps"].as_array().expect("steps");
    let download = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/download-artifact@"))
        })
        .expect("the download step");
    let prepare = steps
        .iter()
        .find(|s| s["id"] == "prepare")
        .expect("the prepare step");
    let place = &download["with"]["path"];
    assert_eq!(place, &prepare["env"]["RALPH_RESTORED"]);
    // Beside the checkout, not in it: git would refuse to check out over it.
    let place = place.as_str().expect("a path");
    assert!(place.starts_with("${{ runner.temp }}/"), "{place}");
}

#[test]
fn the_config_input_is_read_instead_of_ralph_yml_as_its_description_says() {
    // ralph.yml would stop the loop after one iteration; the input's file has no limit.
    let run = ActionRun::new(
        "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 1\n",
        "pi/anthropic/text.jsonl | | write=step1.md\npi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    std::fs::write(run.ws.path().join("ci.yml"), "cli:\n  backend: pi\n").expect("ci.yml");
    assert_eq!(code(run.step("prepare").status), 0);
    let out = run.command("run").env("RALPH_CONFIG", "ci.yml").output();
    let out = out.expect("the action's script");
    assert_eq!(code(out.status), 0, "{out:?}");
    assert_eq!(run.ws.history().len(), 2, "ralph.yml's limit did not apply");
    let action: serde_json::Value =
        serde_saphyr::from_str(&read(&repo().join("action.yml"))).expect("action.yml");
    let description = action["inputs"]["config"]["description"]
        .as_str()
        .expect("a description");
    assert!(
        description.contains("instead of ralph.yml") && !description.contains("layered"),
        "{description}"
    );
}

/// The `::warning` lines of a step's stdout.
fn warnings(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("::warning"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_limited_run_says_to_raise_the_limit_before_running_the_job_again() {
    // A limit in ralph.yml: raised on the pushed branch, a re-run reads it.
    let run = ActionRun::new(
        "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 1\n",
        "pi/anthropic/text.jsonl | | write=step1.md\npi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    assert_eq!(code(run.step("prepare").status), 0);
    let out = run.step("run");
    assert_eq!(code(out.status), 2, "{out:?}");
    let said = warnings(&out);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains("raise event_loop.max_iterations in ralph.yml on the branch ralph/task-1"),
        "{said:?}"
    );
    // Run again as it is, it does stop at once, as the warning says.
    let out = run.step("run");
    assert_eq!(code(out.status), 2, "{out:?}");
    assert_eq!(run.ws.history().len(), 1);
}

/// The action's `max-runtime` input, in seconds: long enough for an iteration's start on
/// a busy machine, short enough for the test.
const JOB_RUNTIME: &str = "3";

#[test]
fn the_max_runtime_input_is_each_jobs_so_a_rerun_after_a_runtime_stop_goes_on() {
    let first = ActionRun::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | | hang=60\npi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    assert_eq!(code(first.step("prepare").status), 0);
    let job = |run: &ActionRun| {
        let mut script = run.command("run");
        script.env("RALPH_MAX_RUNTIME", JOB_RUNTIME);
        script.output().expect("the action's script")
    };
    let out = job(&first);
    assert_eq!(code(out.status), 2, "{out:?}");
    let said = warnings(&out);
    assert!(
        said[0].contains(&format!(
            "running the job again continues the run for up to {JOB_RUNTIME} s more"
        )),
        "{said:?}"
    );

    // Re-run with the same inputs: the run has used its first job's max-runtime, and this
    // job gets as much again, so the loop goes on (it used to stop at once).
    let resumed = first.rerun();
    assert_eq!(code(resumed.step("prepare").status), 0);
    let out = job(&resumed);
    assert_eq!(code(out.status), 0, "{out:?}");
    assert!(warnings(&out).is_empty(), "{out:?}");
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
        // A max-runtime far beyond the test: a re-run gets all of it again.
        .env("RALPH_MAX_RUNTIME", "600")
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
        warnings(&out),
        [
            "::warning title=ralph task-1::the loop on task-1 was interrupted (exit 130); \
          running the job again continues it for up to its max-runtime of 600 s more"
        ]
    );
    assert_eq!(
        run.ws.saved_state()["state"]["pending"],
        serde_json::json!([{"topic": "task.start", "payload": null}])
    );
}
