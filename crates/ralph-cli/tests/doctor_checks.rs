//! `ralph doctor` says what `ralph run` would only find at its start: a hook whose command
//! cannot start (as `ralph hooks validate` finds it), and a skills directory that is not
//! there (as `ralph run` warns), and a task a run would not have (as `ralph run` refuses it).

mod common;

use common::{Workspace, code};
use serde_json::Value;

fn doctor(ws: &Workspace) -> (i32, Value, String) {
    let out = ws.run(&["doctor", "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let text = ws.run(&["doctor"]);
    (
        code(out.status),
        report,
        String::from_utf8_lossy(&text.stdout).into_owned(),
    )
}

fn with_hook(on_error: &str) -> Workspace {
    Workspace::new(
        &format!(
            "cli:\n  backend: pi\nhooks:\n  enabled: true\n  events:\n    pre.loop.start:\n      \
             - name: env-guard\n        command: [./scripts/env-guard.sh]\n        \
             on_error: {on_error}\n"
        ),
        "",
    )
}

#[test]
fn a_blocking_hook_that_cannot_start_makes_doctor_fail() {
    let ws = with_hook("block");
    let (status, report, text) = doctor(&ws);
    assert_eq!(status, 1, "{report}");
    assert_eq!(report["ok"], false, "{report}");
    let errors = report["config"]["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 1, "{report}");
    let error = errors[0].as_str().unwrap();
    assert!(
        error.starts_with("hook `env-guard` (pre.loop.start, on_error: block) cannot start: ")
            && error.contains("env-guard.sh"),
        "{error}"
    );
    assert!(!text.contains("ready to run"), "{text}");
}

#[test]
fn a_warning_hook_that_cannot_start_is_a_warning() {
    let ws = with_hook("warn");
    let (status, report, _) = doctor(&ws);
    assert_eq!(status, 0, "{report}");
    let warnings = report["config"]["warnings"].as_array().expect("warnings");
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().starts_with("hook `env-guard`")),
        "{report}"
    );
}

#[test]
fn a_hook_whose_script_exists_is_no_problem() {
    let ws = with_hook("block");
    let script = ws.path().join("scripts/env-guard.sh");
    std::fs::create_dir_all(script.parent().unwrap()).unwrap();
    std::fs::write(&script, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let (status, report, _) = doctor(&ws);
    assert_eq!(status, 0, "{report}");
    assert_eq!(report["config"]["errors"], Value::Array(Vec::new()));
}

/// A script a setup hook writes does not exist before the run: doctor cannot know whether
/// the earlier hook will write it, so it says so instead of failing. The same script with
/// no hook before it fails, and a script that exists but cannot run fails either way.
#[test]
fn a_script_an_earlier_hook_may_create_is_a_note_not_a_failure() {
    let config = |first: &str| {
        format!(
            "cli:\n  backend: pi\nhooks:\n  enabled: true\n  events:\n{first}\
             \x20   pre.iteration.start:\n      - name: check\n        \
             command: [./scripts/check.sh]\n        on_error: block\n"
        )
    };
    let setup = "    pre.loop.start:\n      - name: setup\n        \
                 command: 'mkdir -p scripts && printf \"#!/bin/sh\\n\" > scripts/check.sh \
                 && chmod +x scripts/check.sh'\n        on_error: block\n";
    let ws = Workspace::new(&config(setup), "");
    let (status, report, text) = doctor(&ws);
    assert_eq!(status, 0, "{report}");
    assert_eq!(
        report["config"]["errors"],
        Value::Array(Vec::new()),
        "{report}"
    );
    let warnings = report["config"]["warnings"].as_array().expect("warnings");
    assert!(
        warnings.iter().any(|w| {
            let w = w.as_str().unwrap();
            w.starts_with("hook `check` (pre.iteration.start, on_error: block) cannot start now: ")
                && w.contains("check.sh")
                && w.contains("hook `setup` (pre.loop.start) runs before it and may create it")
        }),
        "{report}"
    );
    assert!(text.contains("ready to run"), "{text}");

    // Nothing runs before it: the run would fail there.
    let ws = Workspace::new(&config(""), "");
    let (status, report, _) = doctor(&ws);
    assert_eq!(status, 1, "{report}");
    let errors = report["config"]["errors"].as_array().expect("errors");
    assert!(
        errors[0]
            .as_str()
            .unwrap()
            .starts_with("hook `check` (pre.iteration.start, on_error: block) cannot start: "),
        "{report}"
    );

    // There but not executable: no earlier hook excuses that.
    let ws = Workspace::new(&config(setup), "");
    std::fs::create_dir_all(ws.path().join("scripts")).unwrap();
    std::fs::write(ws.path().join("scripts/check.sh"), "#!/bin/sh\n").unwrap();
    let (status, report, _) = doctor(&ws);
    assert_eq!(status, 1, "{report}");
    let errors = report["config"]["errors"].as_array().expect("errors");
    assert!(
        errors[0].as_str().unwrap().contains("is not executable"),
        "{report}"
    );
}

#[test]
fn a_missing_skills_directory_is_a_warning_in_doctor_as_in_run() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\nskills:\n  dirs: [.claude/skills]\n",
        "",
    );
    let (status, report, text) = doctor(&ws);
    assert_eq!(status, 0, "{report}");
    let warnings = report["config"]["warnings"].as_array().expect("warnings");
    assert!(
        warnings.iter().any(|w| {
            let w = w.as_str().unwrap();
            w.contains(".claude/skills") && w.contains("does not exist")
        }),
        "{report}"
    );
    assert!(text.contains("does not exist"), "{text}");
}

#[test]
fn doctor_says_when_a_run_would_have_no_task_but_does_not_fail_for_it() {
    // `ralph run` would refuse this one ("no task to work on") unless given `-p`.
    let ws = Workspace::new("cli:\n  backend: pi\n", "");
    let (status, report, text) = doctor(&ws);
    assert_eq!(status, 0, "{report}");
    assert_eq!(report["config"]["task"], Value::Null, "{report}");
    let note = report["config"]["task_note"].as_str().expect("a note");
    assert!(
        note.starts_with(
            "no task: a run needs `-p TEXT` or `-P FILE`, or the task written in PROMPT.md"
        ),
        "{note}"
    );
    assert!(text.contains(&format!("! {note}")), "{text}");
    assert!(text.contains("✓ ready to run, given a task"), "{text}");

    // A blank PROMPT.md is no task either; a written one is the task.
    std::fs::write(ws.path().join("PROMPT.md"), "\n").expect("PROMPT.md");
    let (_, report, _) = doctor(&ws);
    let note = report["config"]["task_note"].as_str().expect("a note");
    assert!(note.starts_with("`PROMPT.md` holds no task"), "{note}");
    std::fs::write(ws.path().join("PROMPT.md"), "fix it\n").expect("PROMPT.md");
    let (status, report, text) = doctor(&ws);
    assert_eq!(status, 0, "{report}");
    assert_eq!(report["config"]["task"], "PROMPT.md", "{report}");
    assert_eq!(report["config"]["task_note"], Value::Null, "{report}");
    assert!(text.contains("✓ ready to run\n"), "{text}");
}
