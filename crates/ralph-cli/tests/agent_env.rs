//! The `RALPH_*` variables an agent sees, ralph-orchestrator's names among them: its
//! prompts and scripts (`cd "$RALPH_WORKSPACE_ROOT"`) keep working after the switch.

mod common;

use std::collections::BTreeMap;

use common::{Workspace, code};

#[test]
fn an_agent_gets_the_incumbents_workspace_root_and_loop_id() {
    let ws = completed_run("cli:\n  backend: pi\n");
    let text = std::fs::read_to_string(ws.path().join("agent-env.txt")).expect("the agent ran");
    let vars = ralph_vars(&text);
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

/// A loop with `config` whose one pi iteration dumps its environment to `agent-env.txt`
/// and completes.
fn completed_run(config: &str) -> Workspace {
    let ws = Workspace::new(
        config,
        "pi/anthropic/text.jsonl | LOOP_COMPLETE | | env > agent-env.txt\n",
    );
    let out = ws.run(&["run", "-q", "-p", "task"]);
    assert_eq!(
        code(out.status),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    ws
}

/// The `RALPH_*` lines of an `env` dump.
fn ralph_vars(text: &str) -> BTreeMap<&str, &str> {
    text.lines()
        .filter(|l| l.starts_with("RALPH_"))
        .filter_map(|l| l.split_once('='))
        .collect()
}

#[test]
fn hooks_and_gates_get_the_agents_run_variables_and_their_iteration() {
    let config = "cli:\n  backend: pi\n\
        gates:\n  - name: env\n    run: 'env > gate-env.txt'\n\
        hooks:\n  enabled: true\n  events:\n\
        \x20   pre.loop.start:\n      - {name: start, command: 'env > start-env.txt', on_error: block}\n\
        \x20   pre.iteration.start:\n      - {name: each, command: 'env > iteration-env.txt', on_error: block}\n";
    let ws = completed_run(config);
    let read = |name: &str| {
        std::fs::read_to_string(ws.path().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let (agent, start, iteration, gate) = (
        read("agent-env.txt"),
        read("start-env.txt"),
        read("iteration-env.txt"),
        read("gate-env.txt"),
    );
    let agent = ralph_vars(&agent);
    let run_wide = |vars: &BTreeMap<&str, &str>, text: &str| {
        for name in [
            "RALPH_BIN",
            "RALPH_RUN_ID",
            "RALPH_LOOP_ID",
            "RALPH_WORKSPACE",
            "RALPH_WORKSPACE_ROOT",
            "RALPH_COMPLETION_PROMISE",
        ] {
            assert_eq!(vars.get(name), agent.get(name), "{name}: {text}");
            assert!(vars.contains_key(name), "{name}: {text}");
        }
    };
    let start_vars = ralph_vars(&start);
    run_wide(&start_vars, &start);
    // A loop's boundary is no iteration's, and a hook reports through its exit and
    // `mutate`, not the inbox.
    for name in ["RALPH_ITERATION", "RALPH_HAT", "RALPH_EVENTS_FILE"] {
        assert!(!start_vars.contains_key(name), "{name}: {start}");
    }
    let iteration_vars = ralph_vars(&iteration);
    run_wide(&iteration_vars, &iteration);
    for name in ["RALPH_ITERATION", "RALPH_HAT"] {
        assert_eq!(
            iteration_vars.get(name),
            agent.get(name),
            "{name}: {iteration}"
        );
        assert!(iteration_vars.contains_key(name), "{name}: {iteration}");
    }
    assert!(
        !iteration_vars.contains_key("RALPH_EVENTS_FILE"),
        "{iteration}"
    );
    let gate_vars = ralph_vars(&gate);
    run_wide(&gate_vars, &gate);
    for name in ["RALPH_ITERATION", "RALPH_HAT"] {
        assert_eq!(gate_vars.get(name), agent.get(name), "{name}: {gate}");
        assert!(gate_vars.contains_key(name), "{name}: {gate}");
    }
}
