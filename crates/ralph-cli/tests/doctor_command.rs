//! `ralph doctor` end to end: what it lists (every backend, the config's command lines,
//! the fallbacks and hats a run would use) and when it fails, as `ralph run` would.

mod common;

use common::{Workspace, code, stderr, stdout};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

#[test]
fn doctor_lists_every_backend_and_the_command_lines_of_the_config() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n  args: [\"--model\", \"m\"]\nevent_loop:\n  starting_event: go\n\
         hats:\n  builder:\n    description: Builds\n    triggers: [go]\n    backend: claude\n",
        "",
    );
    let out = ws.run_isolated(&["doctor", "--format", "json"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).expect("one JSON object");
    let backends: Vec<(Value, Value, Value)> = report["backends"]
        .as_array()
        .expect("backends")
        .iter()
        .map(|b| {
            (
                b["name"].clone(),
                b["installed"].clone(),
                b["version"].clone(),
            )
        })
        .collect();
    assert_eq!(
        backends,
        vec![
            (json!("claude"), json!(true), json!("claude 0.0.0-fake")),
            (json!("kiro"), json!(false), Value::Null),
            (json!("gemini"), json!(false), Value::Null),
            (json!("codex"), json!(false), Value::Null),
            (json!("amp"), json!(false), Value::Null),
            (json!("copilot"), json!(false), Value::Null),
            (json!("opencode"), json!(false), Value::Null),
            (json!("pi"), json!(true), json!("pi 0.0.0-fake")),
        ]
    );
    let fake = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake-agents");
    assert_eq!(
        report["config"]["agents"],
        json!([
            {"hat": "ralph", "fallback": null, "needed": true, "backend": "pi",
             "prompt_on_stdin": true, "problem": null,
             "command": format!("{}/pi -p --mode json --no-session --model m", fake.display())},
            {"hat": "builder", "fallback": null, "needed": true, "backend": "claude",
             "prompt_on_stdin": true, "problem": null,
             "command": format!("{}/claude -p --output-format stream-json \
                 --include-partial-messages --verbose \
                 --dangerously-skip-permissions", fake.display())},
        ])
    );
    assert_eq!(
        (report["ok"].clone(), report["config"]["files"].clone()),
        (json!(true), json!(["ralph.yml"]))
    );

    let text = ws.run_isolated(&["doctor"]);
    assert_eq!(code(text.status), 0);
    for part in [
        "✓ pi        pi 0.0.0-fake",
        "· codex     not installed: npm install -g @openai/codex",
        "✓ hat builder: claude",
        "✓ ready to run",
    ] {
        assert!(
            stdout(&text).contains(part),
            "{part:?} in\n{}",
            stdout(&text)
        );
    }
}

#[test]
fn doctor_fails_on_a_broken_config_or_a_missing_agent() {
    let ws = Workspace::new(
        "cli:\n  backend: pie\nevent_loop:\n  max_iteration: 3\n",
        "",
    );
    let out = ws.run_isolated(&["doctor", "--format", "json"]);
    assert_eq!(code(out.status), 1);
    let report: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let errors: Vec<&str> = report["config"]["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].starts_with("ralph.yml:2:12: unknown backend `pie`"),
        "{errors:?}"
    );
    assert!(
        errors[1].contains("did you mean `max_iterations`?"),
        "{errors:?}"
    );

    std::fs::write(ws.path().join("ralph.yml"), "cli:\n  backend: codex\n").expect("write");
    let out = ws.run_isolated(&["doctor"]);
    assert_eq!(code(out.status), 1);
    assert!(
        stdout(&out).contains(
            "✗ default hat: codex: `codex` is not installed: npm install -g @openai/codex"
        ),
        "{}",
        stdout(&out)
    );
}

#[test]
fn doctor_checks_the_fallback_backends_a_run_checks() {
    // `ralph run` refuses this config (amp is not installed): doctor must not call it ready.
    let ws = Workspace::new(
        "cli:\n  backend: pi\n  on_rate_limit: failover\n  fallback: [claude, amp]\n",
        "",
    );
    let out = ws.run_isolated(&["doctor", "--format", "json"]);
    assert_eq!(code(out.status), 1, "{}", stdout(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let agents: Vec<(Value, Value, bool)> = report["config"]["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .map(|a| {
            (
                a["fallback"].clone(),
                a["backend"].clone(),
                a["problem"].is_null(),
            )
        })
        .collect();
    assert_eq!(
        agents,
        vec![
            (Value::Null, json!("pi"), true),
            (json!(1), json!("claude"), true),
            (json!(2), json!("amp"), false),
        ]
    );
    let text = stdout(&ws.run_isolated(&["doctor"]));
    assert!(
        text.contains("✓ default hat, fallback 1: claude")
            && text.contains("✗ default hat, fallback 2: amp: `amp` is not installed")
            && text.contains("✗ not ready"),
        "{text}"
    );

    // Without failover the fallbacks are never used, and not checked: doctor says the
    // list is dead, where it is, rather than pass over it.
    std::fs::write(
        ws.path().join("ralph.yml"),
        "cli:\n  backend: pi\n  fallback: [amp]\n",
    )
    .expect("write");
    let out = ws.run_isolated(&["doctor", "--format", "json"]);
    assert_eq!(code(out.status), 0, "{}", stdout(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let warnings = report["config"]["warnings"].to_string();
    assert!(
        warnings.contains("ralph.yml:3:13: `cli.fallback` is never used")
            && warnings.contains("`cli.on_rate_limit` is `wait` here"),
        "{warnings}"
    );
}

#[test]
fn doctor_warns_about_a_missing_agent_of_a_hat_that_never_runs() {
    // A hat without triggers never runs, and `ralph run` does not check its backend.
    let ws = Workspace::new(
        "cli:\n  backend: pi\nevent_loop:\n  prompt: x\n\
         hats:\n  idle:\n    description: Never triggered\n    backend: kiro\n",
        "",
    );
    let out = ws.run_isolated(&["doctor", "--format", "json"]);
    assert_eq!(code(out.status), 0, "{}", stdout(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    let idle = &report["config"]["agents"][1];
    assert_eq!(
        (idle["hat"].clone(), idle["needed"].clone()),
        (json!("idle"), json!(false))
    );
    assert!(idle["problem"].is_string(), "{idle}");
    let text = stdout(&ws.run_isolated(&["doctor"]));
    assert!(
        text.contains("! hat idle: kiro: `kiro-cli` is not installed")
            && text.contains("it never runs")
            && text.contains("✓ ready to run"),
        "{text}"
    );
}

#[test]
fn run_names_the_hat_whose_agent_is_missing_as_doctor_does() {
    // With hats, "`kiro-cli` was not found" alone does not say whose `backend:` to change.
    let ws = Workspace::new(
        "cli:\n  backend: pi\nevent_loop:\n  prompt: x\n\
         hats:\n  tester:\n    description: Tests\n    triggers: [work.start]\n    backend: kiro\n",
        "",
    );
    let out = ws.run_isolated(&["run"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("ralph: hat tester: the `kiro` backend needs `kiro-cli`"),
        "{}",
        stderr(&out)
    );
    // A fallback is named as the fallback it is.
    std::fs::write(
        ws.path().join("ralph.yml"),
        "cli:\n  backend: pi\n  on_rate_limit: failover\n  fallback: [kiro]\n\
         event_loop:\n  prompt: x\n",
    )
    .expect("write");
    let out = ws.run_isolated(&["run"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("ralph: default hat, fallback 1: the `kiro` backend needs"),
        "{}",
        stderr(&out)
    );
    // Without hats the run's own agent needs no name.
    std::fs::write(
        ws.path().join("ralph.yml"),
        "cli:\n  backend: kiro\nevent_loop:\n  prompt: x\n",
    )
    .expect("write");
    let out = ws.run_isolated(&["run"]);
    assert!(
        stderr(&out).contains("ralph: the `kiro` backend needs"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn doctor_on_a_broken_config_lists_only_the_files_it_read_and_keeps_the_warnings() {
    let config = |ws: &Workspace, args: &[&str]| {
        let mut all = vec!["doctor", "--format", "json"];
        all.extend_from_slice(args);
        let out = ws.run_isolated(&all);
        assert_eq!(code(out.status), 1, "{}", stderr(&out));
        let report: Value = serde_json::from_str(&stdout(&out)).expect("one JSON object");
        report["config"].clone()
    };
    // A valid user config that warns, under a broken project file.
    let ws = Workspace::new("cli:\n  backend: pie\n", "");
    let user = ws.path().join(".fake/config/ralph/config.yml");
    std::fs::create_dir_all(user.parent().unwrap()).expect("mkdir");
    std::fs::write(
        &user,
        "hooks:\n  events:\n    pre.loop.start:\n      - {name: a, command: [a], on_error: warn}\n",
    )
    .expect("write the user config");
    let report = config(&ws, &[]);
    assert_eq!(
        report["files"],
        json!([user.display().to_string(), "ralph.yml"])
    );
    let warnings = report["warnings"].as_array().expect("warnings");
    assert!(
        warnings.len() == 1
            && warnings[0]
                .as_str()
                .unwrap()
                .contains("no hook runs unless"),
        "{report}"
    );

    // A broken user config and no ralph.yml: only the user file was read.
    std::fs::remove_file(ws.path().join("ralph.yml")).expect("rm ralph.yml");
    std::fs::write(&user, "cli:\n  backend: pie\n").expect("write the user config");
    let report = config(&ws, &[]);
    assert_eq!(report["files"], json!([user.display().to_string()]));

    // A hats file that does not exist was not read.
    std::fs::remove_file(&user).expect("rm the user config");
    std::fs::write(ws.path().join("ralph.yml"), "cli:\n  backend: pi\n").expect("write");
    let report = config(&ws, &["-H", "nope.yml"]);
    assert_eq!(report["files"], json!(["ralph.yml"]), "{report}");
    assert!(
        report["errors"][0]
            .as_str()
            .unwrap()
            .starts_with("nope.yml: "),
        "{report}"
    );
}
