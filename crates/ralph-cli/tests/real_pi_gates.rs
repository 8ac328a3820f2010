//! A gate with the REAL pi against the offline mock model: pi claims completion before
//! the work is done, the gate refuses it, pi reads why in its next prompt, does the work
//! through its bash tool and claims again; the run completes after two iterations.

mod real_common;

use pretty_assertions::assert_eq;
use real_common::{PI, RealEnv};
use serde_json::{Value, json};

/// The first prompt has pi claim at once; a prompt that says a gate refused the claim
/// has it create the file first.
const SCRIPT: &str = r#"
default: claim
routes:
  - {contains: "ralph ran gate `done-file`", scenario: fix}
scenarios:
  claim:
    - shell: ralph emit LOOP_COMPLETE
    - text: Done, I think.
  fix:
    - shell: echo done > done.txt && ralph emit LOOP_COMPLETE
    - text: Created done.txt and claimed again.
"#;

#[test]
fn pi_is_told_why_its_claim_was_refused_fixes_it_and_completes() {
    let Some(env) = RealEnv::start(SCRIPT, &[PI]) else {
        return;
    };
    env.write_pi_config(
        "event_loop:\n  max_iterations: 4\ngates:\n  \
         - name: done-file\n    run: \"test -f done.txt || { echo 'done.txt is missing'; exit 1; }\"\n",
    );
    let run = env.run_json(&["-p", "Create done.txt."]);
    run.assert_ending("completed", 0, 0);
    let gates: Vec<Value> = run.fields("gate_finished", &["iteration", "passed", "output"]);
    assert_eq!(
        gates,
        [
            json!([1, false, "done.txt is missing"]),
            json!([2, true, null])
        ]
    );
    let scenarios: Vec<String> = env.model_turns().into_iter().map(|t| t.0).collect();
    assert_eq!(scenarios, ["claim", "claim", "fix", "fix"]);
    assert_eq!(env.file("done.txt"), Some("done\n".to_owned()));
    let history = env.history();
    assert_eq!(
        (&history[0]["withheld"], &history[1]["verified"]),
        (&json!(["LOOP_COMPLETE"]), &json!(["LOOP_COMPLETE"]))
    );
}

/// pi claims every time and the gate never passes: the loop stops at its limit (exit 2),
/// never as completed, its verdict names the gate, and the claims pi made with `ralph emit`
/// earn no note on how to signal completion (its answer quotes the promise).
#[test]
fn a_gate_that_never_passes_stops_the_real_pi_loop_at_its_limit_naming_the_gate() {
    const CLAIMS: &str = r#"
default: claim
scenarios:
  claim:
    - shell: ralph emit LOOP_COMPLETE
    - text: I ran `ralph emit LOOP_COMPLETE`, the work is done.
"#;
    let Some(env) = RealEnv::start(CLAIMS, &[PI]) else {
        return;
    };
    env.write_pi_config(
        "event_loop:\n  max_iterations: 2\ngates:\n  \
         - name: tests-pass\n    run: \"echo '3 tests failed'; exit 1\"\n",
    );
    let run = env.run_json(&["-p", "Make the tests pass."]);
    assert_eq!(
        (run.ending().0.as_str(), run.code),
        ("max_iterations", 2),
        "stderr:\n{}",
        run.stderr
    );
    let refused: Vec<Value> = run.fields("gate_finished", &["iteration", "passed", "output"]);
    assert_eq!(
        refused,
        [
            json!([1, false, "3 tests failed"]),
            json!([2, false, "3 tests failed"])
        ]
    );
    let notices: Vec<&Value> = run
        .of_type("notice")
        .into_iter()
        .map(|n| &n["notice"])
        .collect();
    assert!(
        !notices.contains(&&json!("promise_not_alone")),
        "{notices:?}"
    );
    assert!(
        run.finished().to_string().contains("tests-pass"),
        "the verdict names the gate: {}",
        run.finished()
    );
}
