//! The README's first command, `scripts/demo.sh`, plays `scripts/demo/model.yaml` through the
//! real pi under `scripts/demo/ralph.yml`. This runs the same loop with the same files (minus
//! the release build and the terminal view), so the demo cannot rot unnoticed.

mod real_common;

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use real_common::{PI, RealEnv};
use serde_json::{Value, json};

fn demo_file(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts/demo")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_demo_loop_plans_builds_and_tests_hello_py() {
    let Some(env) = RealEnv::start(&demo_file("model.yaml"), &[PI]) else {
        return;
    };
    env.write_config(&demo_file("ralph.yml"));
    let run = env.run_json(&[]);
    run.assert_ending("completed", 0, 0);
    let hand_overs: Vec<Value> = env
        .history()
        .iter()
        .map(|r| json!([r["hat"], r["outcome"]["status"], r["events"]]))
        .collect();
    assert_eq!(
        hand_overs,
        vec![
            json!(["planner", "succeeded",
                [{"topic": "plan.ready", "payload": "hello.py and test_hello.py, see PLAN.md"}]]),
            json!(["builder", "succeeded",
                [{"topic": "build.done", "payload": "hello.py prints hello"}]]),
            json!(["tester", "succeeded",
                [{"topic": "tests.passed", "payload": "unittest says OK"},
                 {"topic": "LOOP_COMPLETE", "payload": null}]]),
        ]
    );
    assert_eq!(
        (env.file("hello.py"), env.file("test_hello.py").is_some()),
        (Some("print(\"hello\")\n".to_owned()), true)
    );
    let plan = env.file("PLAN.md").unwrap_or_default();
    assert!(plan.starts_with("# Plan\n"), "{plan}");
}
