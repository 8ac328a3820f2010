//! The REAL pi's iteration, kept as a transcript, read back: `ralph inspect --run last
//! --iteration 1` gives the summary the live run's agent events give (`ralph inspect` on
//! the run's own `--output json` capture) and the figures of its `iteration_finished`.

mod real_common;

use pretty_assertions::assert_eq;
use real_common::{PI, RealEnv};
use serde_json::Value;

const TWO_TURNS: &str = r#"
default: task
scenarios:
  task:
    - text: Let me look first.
      shell: echo looked > looked.txt && cat looked.txt
    - text: "Looked.\nLOOP_COMPLETE"
"#;

fn summary(env: &RealEnv, args: &[&str]) -> Value {
    ralph_test_support::success_json(&env.ralph(args).output().expect("ralph inspect"))
}

#[test]
fn a_real_pi_iteration_read_back_from_its_transcript_has_the_live_summary() {
    let Some(env) = RealEnv::start(TWO_TURNS, &[PI]) else {
        return;
    };
    env.write_pi_config("event_loop:\n  max_iterations: 2\n");
    let run = env.run_json(&["-p", "Look, then finish."]);
    assert_eq!(run.ending().0, "completed", "stderr:\n{}", run.stderr);
    let capture = env.root().join("capture.jsonl");
    let lines: Vec<String> = run.events.iter().map(Value::to_string).collect();
    std::fs::write(&capture, lines.join("\n") + "\n").expect("the capture");

    let mut kept = summary(&env, &["inspect", "--run", "last", "--iteration", "1"]);
    let mut live = summary(
        &env,
        &["inspect", "--iteration", "1", capture.to_str().unwrap()],
    );
    assert_eq!(kept["agent"], "pi");
    assert_eq!(kept["succeeded"], true);
    assert_eq!(kept["turns"], 2);
    // The iteration's footer figures are the transcript's.
    let finished = run.iterations()[0].clone();
    assert_eq!(kept["turns"], finished["turns"]);
    assert_eq!(kept["tokens"], finished["tokens"]);
    assert_eq!(kept["cost_usd"], finished["cost_usd"]);
    // Lines are pi's in one, ralph's in the other: everything else is the same.
    kept.as_object_mut().unwrap().remove("lines");
    live.as_object_mut().unwrap().remove("lines");
    assert_eq!(kept, live);

    // The prompt pi was given is kept as sent.
    let run_dir = std::fs::read_dir(env.ws().join(".ralph/runs"))
        .expect("runs")
        .next()
        .expect("one run")
        .expect("entry")
        .path();
    let prompt = std::fs::read_to_string(run_dir.join("iterations/1/prompt.md")).expect("prompt");
    assert!(prompt.contains("Look, then finish."), "{prompt}");
}
