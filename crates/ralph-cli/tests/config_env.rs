//! `$RALPH_CONFIG` names the config file when `-c` is not given, as it does for
//! ralph-orchestrator: CI jobs that pick their config this way keep working.

mod common;

use common::{Workspace, code};
use serde_json::Value;

const PROJECT: &str = "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 3\n";
const CI: &str = "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 7\n";

fn workspace() -> Workspace {
    let ws = Workspace::new(PROJECT, "");
    std::fs::create_dir(ws.path().join("configs")).expect("configs dir");
    std::fs::write(ws.path().join("configs/ci.yml"), CI).expect("write ci.yml");
    ws
}

/// `ralph run --dry-run -p task <extra>` with `$RALPH_CONFIG` set to `ralph_config`.
fn dry_run_output(ws: &Workspace, ralph_config: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["run", "--dry-run", "-p", "task"];
    args.extend_from_slice(extra);
    ws.command(&args)
        .env("RALPH_CONFIG", ralph_config)
        .output()
        .expect("ralph runs")
}

fn dry_run(ws: &Workspace, ralph_config: &str, extra: &[&str]) -> String {
    let out = dry_run_output(ws, ralph_config, extra);
    assert_eq!(
        code(out.status),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn ralph_config_is_read_instead_of_ralph_yml_and_named_in_the_dump() {
    let ws = workspace();
    let dump = dry_run(&ws, "configs/ci.yml", &[]);
    let header = dump.lines().next().expect("a header");
    assert!(header.contains("configs/ci.yml"), "{header}");
    assert!(!header.contains("ralph.yml"), "{header}");
    assert!(dump.contains("max_iterations: 7"), "{dump}");
}

#[test]
fn a_config_flag_wins_over_ralph_config() {
    let ws = workspace();
    let dump = dry_run(&ws, "configs/ci.yml", &["-c", "ralph.yml"]);
    assert!(dump.contains("max_iterations: 3"), "{dump}");
}

#[test]
fn an_empty_ralph_config_means_unset() {
    let ws = workspace();
    let dump = dry_run(&ws, "", &[]);
    assert!(dump.lines().next().unwrap().contains("ralph.yml"), "{dump}");
    assert!(dump.contains("max_iterations: 3"), "{dump}");
}

#[test]
fn doctor_names_the_file_ralph_config_names() {
    let ws = workspace();
    let out = ws
        .command(&["doctor", "--format", "json"])
        .env("RALPH_CONFIG", "configs/ci.yml")
        .output()
        .expect("ralph runs");
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let files = report["config"]["files"].as_array().expect("files");
    assert_eq!(files.len(), 1, "{report}");
    assert!(
        files[0].as_str().unwrap().ends_with("configs/ci.yml"),
        "{report}"
    );
}

#[test]
fn a_missing_ralph_config_file_is_an_error_naming_it() {
    let ws = workspace();
    let out = ws
        .command(&["hooks", "validate"])
        .env("RALPH_CONFIG", "configs/gone.yml")
        .output()
        .expect("ralph runs");
    assert_eq!(code(out.status), 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("configs/gone.yml"), "{err}");
}

#[test]
fn a_config_file_ralph_config_names_that_cannot_be_read_is_said_to_come_from_it() {
    let ws = workspace();
    let stderr = |ralph_config: &str, extra: &[&str]| {
        let out = dry_run_output(&ws, ralph_config, extra);
        assert_eq!(code(out.status), 1);
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let named = stderr("nope.yml", &[]);
    assert!(
        named.contains("nope.yml: cannot read this config file")
            && named.contains("named by $RALPH_CONFIG (unset it, or pass -c FILE)"),
        "{named}"
    );
    // A `-c` the user typed is theirs: no word of the variable.
    let typed = stderr("configs/ci.yml", &["-c", "nope.yml"]);
    assert!(!typed.contains("RALPH_CONFIG"), "{typed}");
}
