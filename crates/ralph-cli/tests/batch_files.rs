//! The files that run ralph as a batch job: the GitHub Action (`action.yml`) with the
//! example workflow, and the example Kubernetes Job. actionlint checks the workflow and the
//! action; the Job validates against a vendored Kubernetes schema. The action's script
//! runs in action_script.rs.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::git;
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
