//! The `RALPH_*` variables an agent sees, ralph-orchestrator's names among them: its
//! prompts and scripts (`cd "$RALPH_WORKSPACE_ROOT"`) keep working after the switch.

mod common;

use std::collections::BTreeMap;

use common::{Workspace, code};

#[test]
fn an_agent_gets_the_incumbents_workspace_root_and_loop_id() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | LOOP_COMPLETE | | env > agent-env.txt\n",
    );
    let out = ws.run(&["run", "-q", "-p", "task"]);
    assert_eq!(
        code(out.status),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(ws.path().join("agent-env.txt")).expect("the agent ran");
    let vars: BTreeMap<&str, &str> = text
        .lines()
        .filter(|l| l.starts_with("RALPH_"))
        .filter_map(|l| l.split_once('='))
        .collect();
    let workspace = vars.get("RALPH_WORKSPACE").expect("RALPH_WORKSPACE");
    assert_eq!(vars.get("RALPH_WORKSPACE_ROOT"), Some(workspace), "{text}");
    // What `ralph emit` compares a near miss (`loop_complete`) with.
    assert_eq!(
        vars.get("RALPH_COMPLETION_PROMISE"),
        Some(&"LOOP_COMPLETE"),
        "{text}"
    );
    let run_id = vars.get("RALPH_RUN_ID").expect("RALPH_RUN_ID");
    assert_eq!(vars.get("RALPH_LOOP_ID"), Some(run_id), "{text}");
    assert!(
        ws.path().join(".ralph/runs").join(run_id).is_dir(),
        "{text}"
    );
}
