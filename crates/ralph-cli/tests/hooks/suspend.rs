//! `on_error: suspend`: the loop waits until `ralph hooks resume`, then goes on or runs
//! the hook again (`wait_then_retry`); Ctrl-C while it waits ends the run.

use pretty_assertions::assert_eq;

use super::*;

/// Waits until a hook suspends the loop in `ws`.
pub(crate) fn wait_suspended(ws: &Workspace) {
    let marker = ws.path().join(".ralph/hook-suspended");
    let deadline = Instant::now() + RUN_TIMEOUT;
    while !marker.exists() {
        assert!(Instant::now() < deadline, "the loop never suspended");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_suspending_hook_holds_the_loop_until_ralph_hooks_resume() {
    let ws = Workspace::new(
        &one_hook(
            "pre.loop.start",
            "{name: approval, command: 'test -f approved', on_error: suspend}",
        ),
        TWO_ITERATIONS,
    );
    // Nothing waits yet, even with a marker a dead loop left: resume says so.
    std::fs::create_dir(ws.path().join(".ralph")).expect(".ralph");
    std::fs::write(
        ws.path().join(".ralph/hook-suspended"),
        "pre.loop.start x\n",
    )
    .expect("marker");
    let idle = ws.run(&["hooks", "resume"]);
    assert_eq!(code(idle.status), 1);
    assert!(String::from_utf8_lossy(&idle.stderr).contains("no loop"));
    assert!(!ws.path().join(".ralph/resume-requested").exists());
    std::fs::remove_file(ws.path().join(".ralph/hook-suspended")).expect("remove the marker");

    let child = ws.start(&["run", "--output", "json", "-p", "task"]);
    wait_suspended(&ws);
    assert!(
        ws.agent_log().is_empty(),
        "the loop must wait before the agent"
    );
    let resumed = ws.run(&["hooks", "resume"]);
    assert_eq!(code(resumed.status), 0);
    assert_eq!(
        String::from_utf8_lossy(&resumed.stdout),
        "resuming the loop held by hook `approval` (pre.loop.start)\n"
    );
    let out = wait_output(child);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(code(out.status), 0, "{stdout}");
    assert!(stdout.contains(r#""action":"suspend""#), "{stdout}");
    assert_eq!(ws.agent_log().len(), 2);
    assert!(!ws.path().join(".ralph/hook-suspended").exists());
    assert_eq!(code(ws.run(&["hooks", "resume"]).status), 1);
}

#[test]
fn wait_then_retry_runs_the_hook_again_after_resume() {
    let ws = Workspace::new(
        &config(
            "  enabled: true
  defaults: {suspend_mode: wait_then_retry}
  events:
    pre.loop.start:
      - {name: approval, command: 'test -f approved', on_error: suspend}
",
        ),
        TWO_ITERATIONS,
    );
    let child = ws.start(&["run", "--output", "json", "-p", "task"]);
    wait_suspended(&ws);
    std::fs::write(ws.path().join("approved"), "").expect("approve");
    assert_eq!(code(ws.run(&["hooks", "resume"]).status), 0);
    let out = wait_output(child);
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(code(out.status), 0);
    assert_eq!(
        finished_hooks(&events),
        [
            ("approval".into(), "pre.loop.start".into(), "suspend".into()),
            (
                "approval".into(),
                "pre.loop.start".into(),
                "continue".into()
            ),
        ]
    );
    assert_eq!(of_type(&events, "hook_started")[1]["attempt"], 2);
}

#[test]
fn ctrl_c_while_suspended_ends_the_run_with_130() {
    let ws = Workspace::new(
        &config(
            "  enabled: true
  events:
    post.loop.start:
      - {name: approval, command: ['false'], on_error: suspend}
    post.loop.error:
      - {name: rec, command: 'cat >> payloads.jsonl', on_error: warn}
",
        ),
        TWO_ITERATIONS,
    );
    let child = ws.start(&["run", "-p", "task"]);
    wait_suspended(&ws);
    let out = ws.stop(child, nix::sys::signal::Signal::SIGINT);
    assert_eq!(code(out.status), 130);
    assert!(ws.agent_log().is_empty());
    assert!(ws.summary().contains("interrupted"));
    // No hook runs after Ctrl-C, so the run ends at once.
    assert!(payloads(&ws).is_empty());
}
