//! `ralph run` driving the REAL pi (0.73.1 and 0.51.6) against the offline mock model:
//! one iteration where pi runs its bash and write tools and finishes, and a three-hat loop
//! where pi publishes each hand-over with `ralph emit` through its bash tool. Each runs on
//! pipes and on a pseudo-terminal (`cli.pty: true`).

mod real_common;

use pretty_assertions::assert_eq;
use real_common::{PI, PI_OLD, RealEnv, Transport, three_hats_script};
use serde_json::{Value, json};

/// pi runs a command, writes a file from its output, and ends with the promise on its own
/// line (completion by the final text).
const ONE_ITERATION: &str = r#"
default: task
scenarios:
  task:
    - text: Let me look first.
      shell: echo "bash ran in $(basename "$PWD")" > bash.txt && readlink /proc/$PPID/fd/1 > agent-stdout.txt && cat bash.txt
    - write: {path: greeting.txt, content: "{{last_tool_result}}; then the write tool\n"}
    - text: "greeting.txt is written.\nLOOP_COMPLETE"
"#;

fn one_iteration(pi: &str, transport: Transport) {
    let Some(env) = RealEnv::start(ONE_ITERATION, &[pi]) else {
        return;
    };
    env.write_config(&format!(
        "cli:\n  backend: pi\n  command: {}\n{}event_loop:\n  max_iterations: 3\n",
        env.agent_path(pi).display(),
        transport.cli_line()
    ));
    let run = env.run_json(&["-p", "Write greeting.txt from what bash says."]);
    run.assert_ending("completed", 0, 0);
    assert_eq!(
        run.finished()["signal"],
        json!("final_text"),
        "{}",
        run.finished()
    );
    let finished: Vec<Value> = run
        .iterations()
        .iter()
        .map(|i| {
            json!([
                i["backend"],
                i["model"],
                i["outcome"],
                i["turns"],
                i["completion"]
            ])
        })
        .collect();
    assert_eq!(
        finished,
        vec![json!([
            "pi",
            "mock-model",
            {"status": "succeeded"},
            3,
            "final_text"
        ])]
    );
    let bash = r#"echo "bash ran in $(basename "$PWD")" > bash.txt && readlink /proc/$PPID/fd/1 > agent-stdout.txt && cat bash.txt"#;
    let write_args =
        json!({"path": "greeting.txt", "content": "bash ran in ws; then the write tool\n"});
    assert_eq!(
        run.agent_story(1),
        vec![
            json!(["message_finished", "tool_use", "Let me look first."]),
            json!(["tool_call_started", "bash", {"command": bash}]),
            json!(["tool_call_finished", "bash ran in ws\n", false]),
            json!(["message_finished", "tool_use", ""]),
            json!(["tool_call_started", "write", write_args]),
            json!([
                "tool_call_finished",
                "Successfully wrote 36 bytes to greeting.txt",
                false
            ]),
            json!([
                "message_finished",
                "completed",
                "greeting.txt is written.\nLOOP_COMPLETE"
            ]),
            json!(["run_finished", false]),
        ]
    );
    assert_eq!(
        (env.file("bash.txt"), env.file("greeting.txt")),
        (
            Some("bash ran in ws\n".to_owned()),
            Some("bash ran in ws; then the write tool\n".to_owned())
        )
    );
    // The bash tool's parent is pi: its stdout is the pipe or the terminal ralph gave it.
    let agent_stdout = env.file("agent-stdout.txt").unwrap_or_default();
    let expected_kind = match transport {
        Transport::Pipes => "pipe:",
        Transport::Pty => "/dev/pts/",
    };
    assert!(
        agent_stdout.starts_with(expected_kind),
        "pi's stdout is {agent_stdout:?}, expected {expected_kind}..."
    );
    assert_eq!(
        env.model_turns(),
        vec![
            ("task".to_owned(), 0, 0, "streamed".to_owned()),
            ("task".to_owned(), 1, 0, "streamed".to_owned()),
            ("task".to_owned(), 2, 0, "streamed".to_owned()),
        ]
    );
    assert!(
        env.summary()
            .contains("**Stopped:** completed: the agent's final answer ended with LOOP_COMPLETE"),
        "{}",
        env.summary()
    );
}

#[test]
fn pi_runs_bash_writes_a_file_and_finishes_in_one_iteration() {
    one_iteration(PI, Transport::Pipes);
}

#[test]
fn old_pi_runs_bash_writes_a_file_and_finishes_in_one_iteration() {
    one_iteration(PI_OLD, Transport::Pipes);
}

#[test]
fn pi_on_a_terminal_runs_bash_writes_a_file_and_finishes_in_one_iteration() {
    one_iteration(PI, Transport::Pty);
}

const HATS_CONFIG: &str = "\
event_loop:
  starting_event: work.start
  required_events: [review.approved]
  max_iterations: 6
hats:
  planner:
    name: Planner
    description: Plans the work
    triggers: [work.start]
    publishes: [plan.ready]
    instructions: You are the planner. Publish the plan.
  builder:
    name: Builder
    description: Builds what was planned
    triggers: [plan.ready]
    publishes: [build.done]
    instructions: You are the builder. Build it.
  reviewer:
    name: Reviewer
    description: Reviews the build
    triggers: [build.done]
    publishes: [review.approved, LOOP_COMPLETE]
    instructions: You are the reviewer. Check the build.
";

fn three_hats(pi: &str, transport: Transport) {
    let Some(env) = RealEnv::start(&three_hats_script("hello\n"), &[pi]) else {
        return;
    };
    env.write_config(&format!(
        "cli:\n  backend: pi\n  command: {}\n{}{HATS_CONFIG}",
        env.agent_path(pi).display(),
        transport.cli_line()
    ));
    let run = env.run_json(&["-p", "Put hello in hello.txt."]);
    run.assert_ending("completed", 0, 0);
    assert_eq!(run.finished()["signal"], json!("event"));
    let hand_overs: Vec<Value> = env
        .history()
        .iter()
        .map(|r| {
            json!([
                r["hat"],
                r["outcome"]["status"],
                r["consumed"],
                r["events"],
                r["completion"]
            ])
        })
        .collect();
    assert_eq!(
        hand_overs,
        vec![
            json!(["planner", "succeeded",
                [{"topic": "work.start", "payload": null}],
                [{"topic": "plan.ready", "payload": "write hello.txt"}],
                null]),
            json!(["builder", "succeeded",
                [{"topic": "plan.ready", "payload": "write hello.txt"}],
                [{"topic": "build.done", "payload": "wrote hello.txt in iteration 2"}],
                null]),
            json!(["reviewer", "succeeded",
                [{"topic": "build.done", "payload": "wrote hello.txt in iteration 2"}],
                [{"topic": "review.approved", "payload": "hello.txt says hello"},
                 {"topic": "LOOP_COMPLETE", "payload": null}],
                "event"]),
        ]
    );
    let emitted: Vec<&Value> = run
        .of_type("events_emitted")
        .into_iter()
        .map(|e| &e["iteration"])
        .collect();
    assert_eq!(emitted, vec![&json!(1), &json!(2), &json!(3)]);
    assert_eq!(env.file("hello.txt"), Some("hello\n".to_owned()));
    let turns: Vec<(String, usize)> = env
        .model_turns()
        .into_iter()
        .map(|(scenario, turn, _, _)| (scenario, turn))
        .collect();
    // Each hat's scenario played all its turns, in order.
    let expected: Vec<(String, usize)> = [("planner", 2), ("builder", 3), ("reviewer", 3)]
        .into_iter()
        .flat_map(|(scenario, turns)| (0..turns).map(move |t| (scenario.to_owned(), t)))
        .collect();
    assert_eq!(turns, expected);
}

#[test]
fn pi_plays_three_hats_that_hand_over_with_ralph_emit() {
    three_hats(PI, Transport::Pipes);
}

#[test]
fn pi_on_a_terminal_plays_three_hats_that_hand_over_with_ralph_emit() {
    three_hats(PI, Transport::Pty);
}

#[test]
fn old_pi_plays_three_hats_that_hand_over_with_ralph_emit() {
    three_hats(PI_OLD, Transport::Pipes);
}
