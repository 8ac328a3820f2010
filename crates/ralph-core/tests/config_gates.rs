//! `gates:`: what a gate entry accepts, the errors a misconfigured one gives (with its
//! position), and how gates layer.

mod support;

use std::time::Duration;

use ralph_core::config::{DEFAULT_GATE_TIMEOUT, merge, parse_layer};
use ralph_types::Invocation;
use support::{parse_errors, parse_ok, resolve_errors, resolve_ok};

#[test]
fn a_gate_defaults_to_guarding_the_promise_with_the_default_timeout() {
    let config = resolve_ok("gates:\n  - name: tests\n    run: test -f done.txt\n").config;
    let gate = &config.gates[0];
    assert_eq!(gate.run, Invocation::Shell("test -f done.txt".into()));
    assert_eq!(gate.before, ["LOOP_COMPLETE"]);
    assert_eq!(gate.timeout, DEFAULT_GATE_TIMEOUT);
    assert_eq!(config.gates_before("LOOP_COMPLETE").count(), 1);
    assert_eq!(config.gates_before("build.done").count(), 0);
}

#[test]
fn a_gate_can_guard_a_topic_a_hat_publishes_and_the_promise_it_renamed() {
    let yaml = "\
event_loop:
  completion_promise: SHIP_IT
hats:
  builder:
    description: Builds
    triggers: [work.start]
    publishes: [build.done]
gates:
  - name: lint
    run: [cargo, clippy]
    before: [SHIP_IT, build.done]
    timeout_seconds: 5
";
    let gate = resolve_ok(yaml).config.gates.remove(0);
    assert_eq!(gate.before, ["SHIP_IT", "build.done"]);
    assert_eq!(
        gate.run,
        Invocation::Argv(vec!["cargo".into(), "clippy".into()])
    );
    assert_eq!(gate.timeout, Duration::from_secs(5));
}

#[test]
fn misconfigured_gates_are_errors_with_their_position() {
    let yaml = "\
gates:
  - name: empty
    run: ''
  - name: empty-list
    run: []
  - name: typo
    run: make
    befor: [LOOP_COMPLETE]
  - run: make
  - name: no-run
  - name: ../escape
    run: make
  - name: number
    run: 5
";
    assert_eq!(
        parse_errors(yaml),
        [
            "ralph.yml:3:10: `gates[0].run` is empty: give the program to run (and its arguments)",
            "ralph.yml:5:10: `gates[1].run` is empty: give the program to run (and its arguments)",
            "ralph.yml:8:5: unknown key `befor` in `gates[2]`: did you mean `before`?",
            "ralph.yml:9:5: `gates[3].name` is missing: name the gate (letters, digits, `-`, `_` \
             and `.`): ralph shows the name and names the gate's log file after it",
            "ralph.yml:10:5: `gates[4].run` is missing: give the command that checks the work, \
             such as `run: cargo test`",
            "ralph.yml:11:11: `gates[5].name` must be letters, digits, `-`, `_` and `.` (not \
             first), found a string (\"../escape\")",
            "ralph.yml:14:10: `gates[6].run` expects a command (a string, or a list of the \
             program and its arguments), found a number (5)",
        ]
    );
}

#[test]
fn gates_must_be_a_list_with_distinct_names() {
    assert_eq!(
        parse_errors("gates:\n  tests: {run: make}\n"),
        [
            "ralph.yml:2:3: `gates` expects a list of gates (each a mapping with `name` and \
             `run`), found a mapping"
        ]
    );
    assert_eq!(
        parse_errors("gates:\n  - {name: t, run: a}\n  - {name: t, run: b}\n"),
        [
            "ralph.yml:3:12: two gates are named `t` (the first at ralph.yml:2:12): give each gate \
          its own name"
        ]
    );
}

#[test]
fn a_gate_before_an_event_nothing_publishes_is_an_error() {
    assert_eq!(
        resolve_errors("gates:\n  - name: t\n    run: make\n    before: [build.done]\n"),
        [
            "ralph.yml:4:14: gate `t` guards `build.done`, which nothing publishes: without hats a \
          gate can only guard the completion promise `LOOP_COMPLETE` (leave `before` out for \
          that)"
        ]
    );
    let yaml = "\
hats:
  builder:
    description: Builds
    triggers: [work.start]
    publishes: [build.done]
    default_publishes: build.ready
gates:
  - name: t
    run: make
    before: [buld.done]
";
    assert_eq!(
        resolve_errors(yaml),
        [
            "ralph.yml:10:14: gate `t` guards `buld.done`, which nothing publishes: a gate guards \
          the completion promise `LOOP_COMPLETE` or a topic a hat publishes (`build.done`, \
          `build.ready`)"
        ]
    );
}

#[test]
fn a_later_layer_replaces_a_gate_of_the_same_name_and_appends_new_ones() {
    let user = parse_ok("gates:\n  - {name: a, run: one}\n  - {name: b, run: two}\n").config;
    let project = parse_layer(
        "gates:\n  - {name: b, run: three}\n  - {name: c, run: four}\n",
        std::path::Path::new("p.yml"),
    )
    .unwrap()
    .config;
    let merged = merge(user, project);
    let shown: Vec<_> = merged
        .gates
        .iter()
        .map(|g| {
            (
                g.name.value.as_str(),
                g.run.as_ref().unwrap().value.to_string(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("a", "one".into()),
            ("b", "three".into()),
            ("c", "four".into())
        ]
    );
}
