//! Ctrl-C while the REAL pi is inside a tool call: ralph exits 130 with the iteration marked
//! interrupted, and nothing of the run is left running: not pi, not its bash tool, not the
//! tool's `sleep`, not even a `setsid` daemon the tool started in a session of its own.
//! Checked by the pids the tool wrote and by scanning `/proc` for the test's marker, on pipes
//! and on a pseudo-terminal.

mod real_common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use real_common::{PI, RealEnv, SLEEPING_TOOL, Transport, alive, wait_for_file};
use serde_json::{Value, json};

/// How long the test waits for every process of the tool to show up in the scan.
const SCAN_PATIENCE: Duration = Duration::from_secs(5);

fn read_pid(env: &RealEnv, name: &str) -> i32 {
    wait_for_file(&env.ws().join(name))
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn ctrl_c_during_a_tool_call(transport: Transport) {
    let Some(env) = RealEnv::start(SLEEPING_TOOL, &[PI]) else {
        return;
    };
    env.write_config(&format!(
        "cli:\n  backend: pi\n{}event_loop:\n  max_iterations: 3\n",
        transport.cli_line()
    ));
    let running = env.spawn_json(&["-p", "Run the long job."]);
    let sleep = read_pid(&env, "sleep.pid");
    let tool = read_pid(&env, "tool.pid");
    let daemon = read_pid(&env, "daemon.pid");
    // The scan sees the run: pi, the tool's shell and both sleeps carry the marker. A process
    // that is between fork and exec can be missed by one scan, so scan until all are seen.
    let tool_pids = BTreeSet::from([tool, sleep, daemon]);
    let scan = || -> BTreeSet<i32> { env.marked_processes().into_iter().map(|(p, _)| p).collect() };
    let deadline = Instant::now() + SCAN_PATIENCE;
    let mut marked = scan();
    while !marked.is_superset(&tool_pids) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        marked = scan();
    }
    assert!(
        marked.is_superset(&tool_pids) && marked.len() > tool_pids.len(),
        "marked: {:?}, tool pids: {tool_pids:?}",
        env.marked_processes()
    );

    let run = running.interrupt();
    assert_eq!(env.marked_processes(), Vec::<(i32, String)>::new());
    let still_alive: Vec<i32> = tool_pids.into_iter().filter(|p| alive(*p)).collect();
    assert_eq!(still_alive, Vec::<i32>::new());
    let outcomes: Vec<Value> = run
        .iterations()
        .iter()
        .map(|i| i["outcome"].clone())
        .collect();
    assert_eq!(outcomes, vec![json!({"status": "interrupted"})]);
    let history: Vec<Value> = env.history().iter().map(|r| r["outcome"].clone()).collect();
    assert_eq!(history, vec![json!({"status": "interrupted"})]);
    // The tool call was under way: it started and never finished with a result. pi,
    // sent SIGTERM, may still report the killed call before it exits: as failed, or (its
    // bash tool takes a shell killed by a signal for one that exited quietly) as a
    // success with "(no output)".
    let tools: Vec<(&str, Value, Value)> = run
        .agent_events(1)
        .into_iter()
        .filter_map(|e| {
            let kind = e["type"].as_str()?;
            kind.starts_with("tool_call")
                .then(|| (kind, e["is_error"].clone(), e["output"].clone()))
        })
        .collect();
    let started = ("tool_call_started", Value::Null, Value::Null);
    let killed = |tool: &(&str, Value, Value)| {
        tool.0 == "tool_call_finished" && (tool.1 == json!(true) || tool.2 == json!("(no output)"))
    };
    assert!(
        match tools.as_slice() {
            [first] => *first == started,
            [first, second] => *first == started && killed(second),
            _ => false,
        },
        "tool events: {tools:?}"
    );
    assert!(
        env.summary().contains("**Stopped:** interrupted"),
        "{}",
        env.summary()
    );
}

#[test]
fn ctrl_c_during_a_pi_tool_call_leaves_no_process_behind() {
    ctrl_c_during_a_tool_call(Transport::Pipes);
}

#[test]
fn ctrl_c_during_a_pi_tool_call_on_a_terminal_leaves_no_process_behind() {
    ctrl_c_during_a_tool_call(Transport::Pty);
}
