//! The REAL pi hitting a provider's rate limit (the mock answers HTTP 429): ralph sees
//! the limit in pi's stream, waits, runs the iteration again without counting it, and
//! the loop completes.

mod real_common;

use pretty_assertions::assert_eq;
use ralph_test_support::PiOptions;
use real_common::{PI, RealEnv};
use serde_json::{Value, json};

/// The first request is refused with 429; pi, told not to retry on its own, gives up at
/// once, so the next request is ralph's second attempt.
const SCRIPT: &str = r#"
default: task
scenarios:
  task:
    - text: "Nothing to do.\nLOOP_COMPLETE"
      fault: {http: 429, times: 1, retry_after_ms: 1}
"#;

#[test]
fn pi_hits_a_rate_limit_and_the_loop_waits_and_completes() {
    let options = PiOptions {
        max_retries: 0,
        provider_max_retries: Some(0),
        ..PiOptions::default()
    };
    let Some(env) = RealEnv::start_with(SCRIPT, &[PI], &options) else {
        return;
    };
    env.write_config(&format!(
        "cli:\n  backend: pi\n  command: {}\n  rate_limit_wait_seconds: 1\nevent_loop:\n  \
         max_iterations: 1\n",
        env.agent_path(PI).display()
    ));
    let run = env.run_json(&["-p", "Finish."]);
    assert_eq!(
        run.ending(),
        ("completed".to_owned(), 0, 0),
        "stderr:\n{}",
        run.stderr
    );
    let outcomes: Vec<Value> = run
        .iterations()
        .iter()
        .map(|i| json!([i["iteration"], i["outcome"]["status"]]))
        .collect();
    assert_eq!(
        outcomes,
        [json!([1, "rate_limited"]), json!([1, "succeeded"])]
    );
    let waits = run.of_type("rate_limit_wait");
    assert_eq!((waits.len(), &waits[0]["wait_secs"]), (1, &json!(1)));
    assert!(
        waits[0]["message"].as_str().unwrap().starts_with("429"),
        "{}",
        waits[0]
    );
    let requests: Vec<(usize, u32)> = env
        .model_turns()
        .into_iter()
        .map(|(_, turn, attempt, _)| (turn, attempt))
        .collect();
    assert_eq!(requests, [(0, 0), (0, 1)]);
}
