//! Commands typed in a project's subdirectory: `ralph run`, `plan` and `doctor` take the
//! directory they run in, so they say when the project's ralph.yml lies above and is not
//! read; and a run refused there leaves no `.ralph/` of its own, which would hide the
//! project's runs from the commands that read them. A `ralph.yaml` beside no ralph.yml is
//! named too.

mod common;

use std::path::Path;
use std::process::Output;

use common::{Workspace, code, wait_output};
use serde_json::Value;

/// A checkout (a `.git` marks its top) with ralph.yml at the top and a `sub/` directory.
fn project() -> Workspace {
    let ws = Workspace::new("cli:\n  backend: pi\n", "pi/anthropic/text.jsonl | |\n");
    std::fs::create_dir(ws.path().join(".git")).expect(".git");
    std::fs::create_dir(ws.path().join("sub")).expect("sub");
    ws
}

fn run_in(ws: &Workspace, dir: &Path, args: &[&str]) -> Output {
    let child = ws
        .command(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn ralph");
    wait_output(child)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const HINT: &str = "../ralph.yml is the project's config";

#[test]
fn a_refused_run_in_a_subdirectory_names_the_project_file_and_leaves_no_ralph_dir() {
    let ws = project();
    let sub = ws.path().join("sub");
    std::fs::write(ws.path().join("PROMPT.md"), "the task\n").expect("PROMPT.md");

    let out = run_in(&ws, &sub, &["run"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no task to work on"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains(HINT) && stderr(&out).contains("pass `-c ../ralph.yml`"),
        "{}",
        stderr(&out)
    );
    assert!(
        !sub.join(".ralph").exists(),
        "a refused run left sub/.ralph"
    );

    // A run in the project, then `--continue` typed in the subdirectory: refused, and
    // `ralph runs` there still finds the project's run.
    let out = ws.run(&["run", "-p", "task"]);
    assert!(out.status.code().is_some(), "{}", stderr(&out));
    let id = std::fs::read_to_string(ws.path().join(".ralph/current-run")).expect("a run");
    let out = run_in(&ws, &sub, &["run", "--continue"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no run to continue"),
        "{}",
        stderr(&out)
    );
    assert!(
        !sub.join(".ralph").exists(),
        "a refused --continue left sub/.ralph"
    );
    let out = run_in(&ws, &sub, &["runs"]);
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.contains(id.trim()), "{listed}{}", stderr(&out));
}

#[test]
fn a_run_refused_for_a_missing_agent_removes_the_ralph_dir_it_made() {
    let ws = project();
    let sub = ws.path().join("sub");
    let out = run_in(&ws, &sub, &["run", "-b", "kiro", "-p", "task"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("kiro-cli"), "{}", stderr(&out));
    assert!(!sub.join(".ralph").exists(), "sub/.ralph was left behind");

    // One that was there before stays, with what it holds.
    std::fs::create_dir(ws.path().join("sub/.ralph")).expect(".ralph");
    std::fs::write(ws.path().join("sub/.ralph/notes.md"), "mine").expect("notes");
    let out = run_in(&ws, &sub, &["run", "-b", "kiro", "-p", "task"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(sub.join(".ralph/notes.md").is_file());
}

#[test]
fn doctor_in_a_subdirectory_names_the_project_file_it_does_not_read() {
    let ws = project();
    let sub = ws.path().join("sub");
    let out = run_in(&ws, &sub, &["doctor"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("! {HINT}")), "{text}");
    let out = run_in(&ws, &sub, &["doctor", "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let warnings = report["config"]["warnings"].as_array().expect("warnings");
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().starts_with(HINT)),
        "{report}"
    );
    // At the top, or with `-c`, there is nothing to say.
    let out = ws.run(&["doctor"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains(HINT));
    let out = run_in(&ws, &sub, &["doctor", "-c", "../ralph.yml"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains(HINT));
}

#[test]
fn a_project_file_under_another_name_is_named_by_run_and_doctor() {
    let ws = Workspace::new("", "");
    std::fs::write(
        ws.path().join("ralph.yaml"),
        "cli:\n  backend: codex\nevent_loop:\n  prompt: from yaml\n",
    )
    .expect("ralph.yaml");
    let said = "ralph.yaml: ralph does not read this file, it reads ralph.yml";
    let out = ws.run(&["run"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("warning: {said}")),
        "{}",
        stderr(&out)
    );
    let out = ws.run(&["doctor"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("! {said}")), "{text}");
}

#[test]
fn plan_in_a_subdirectory_names_the_project_file_too() {
    let ws = project();
    let out = run_in(
        &ws,
        &ws.path().join("sub"),
        &["plan", "--dry-run", "an idea"],
    );
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("warning: {HINT}")),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_stray_ralph_dir_in_a_subdirectory_does_not_hide_the_project_s_runs() {
    let ws = project();
    let out = ws.run(&["run", "-q", "-p", "x", "--max-iterations", "1"]);
    assert!(ws.path().join(".ralph/runs").is_dir(), "{}", stderr(&out));
    // An old `.ralph/` left in `sub/`: no ralph.yml beside it, no run in it.
    std::fs::create_dir_all(ws.path().join("sub/.ralph/agent")).unwrap();
    std::fs::write(
        ws.path().join("sub/.ralph/agent/memories.md"),
        "# Memories\n",
    )
    .unwrap();
    let out = run_in(&ws, &ws.path().join("sub"), &["runs", "--format", "json"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 0, "{err}");
    let rows: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(
        rows.len(),
        1,
        "the project's run, seen from sub/: {rows:?}\n{err}"
    );
    assert!(err.contains("sub/.ralph` has neither a ralph.yml"), "{err}");
}
