//! ralph-orchestrator's `<event topic="…">…</event>` tags with the REAL pi against the
//! offline mock model: hat `a`'s instructions, written for ralph-orchestrator, have pi end
//! its answer with a tag instead of running `ralph emit`. The tag hands over to hat `b`,
//! which completes the run; the tags pi only thought, ran through its bash tool or quoted
//! in a code block publish nothing.

mod real_common;

use pretty_assertions::assert_eq;
use real_common::{PI, RealEnv};
use serde_json::json;

/// Hat `a` thinks a tag, prints one from bash, quotes one in a fenced block, and ends its
/// answer with the real one; hat `b` completes with `ralph emit`.
const SCRIPT: &str = r#"
routes:
  - {contains: "ROLE-A", scenario: a}
  - {contains: "ROLE-B", scenario: b}
scenarios:
  a:
    - thinking: "I could write <event topic=\"x.thought\">no</event> here."
      shell: "echo '<event topic=\"x.tool\">no</event>'"
    - text: "Done with A. An example:\n```\n<event topic=\"x.quoted\">no</event>\n```\n<event topic=\"x.done\">legacy payload</event>"
  b:
    - shell: ralph emit LOOP_COMPLETE
    - text: B done.
"#;

const HATS: &str = r#"event_loop:
  starting_event: work.start
  max_iterations: 4
hats:
  a:
    description: A
    triggers: [work.start]
    instructions: |
      ROLE-A. When done, output <event topic="x.done">summary</event>.
  b:
    description: B
    triggers: [x.done]
    instructions: ROLE-B.
"#;

#[test]
fn an_event_tag_at_the_end_of_pis_answer_hands_over_to_the_next_hat() {
    let Some(env) = RealEnv::start(SCRIPT, &[PI]) else {
        return;
    };
    env.write_pi_config(HATS);
    let run = env.run_json(&["-p", "Do it"]).expect_completed();
    let hats: Vec<_> = run.fields("iteration_finished", &["iteration", "hat", "completion"]);
    assert_eq!(hats, [json!([1, "a", null]), json!([2, "b", "event"])]);
    let history = env.history();
    assert_eq!(
        (&history[0]["events"], &history[0]["from_tags"]),
        (
            &json!([{"topic": "x.done", "payload": "legacy payload"}]),
            &json!(1)
        )
    );
    // Hat `b` was handed the tag's payload.
    assert_eq!(
        history[1]["consumed"],
        json!([{"topic": "x.done", "payload": "legacy payload"}])
    );
    let notices: Vec<_> = run.fields("notice", &["iteration", "notice", "topic"]);
    assert_eq!(notices, [json!([1, "legacy_event_tag", "x.done"])]);
    let scenarios: Vec<String> = env.model_turns().into_iter().map(|t| t.0).collect();
    assert_eq!(scenarios, ["a", "a", "b", "b"]);
}
