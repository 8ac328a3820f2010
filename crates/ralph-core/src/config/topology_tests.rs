use std::path::Path;

use super::check;
use crate::config::decode::parse_layer;

/// The errors and warnings of `yaml` (which must parse), rendered as the user sees them.
fn findings(yaml: &str) -> (Vec<String>, Vec<String>) {
    let parsed = match parse_layer(yaml, Path::new("ralph.yml")) {
        Ok(parsed) => parsed,
        Err(errors) => panic!("expected the file to parse, got:\n{errors}"),
    };
    let found = check(&parsed.config);
    (
        found.errors.iter().map(ToString::to_string).collect(),
        found.warnings.iter().map(ToString::to_string).collect(),
    )
}

const PIPELINE: &str = "\
event_loop:
  starting_event: work.start
  required_events: [review.done]
hats:
  builder:
    description: builds
    triggers: [work.start]
    publishes: [build.done]
    default_publishes: build.done
  reviewer:
    description: reviews
    triggers: [build.done]
    publishes: [review.done, LOOP_COMPLETE]
";

#[test]
fn a_pipeline_that_fits_together_has_nothing_to_say() {
    assert_eq!(findings(PIPELINE), (vec![], vec![]));
}

#[test]
fn no_hats_and_the_defaults_have_nothing_to_say() {
    assert_eq!(
        findings("event_loop:\n  max_iterations: 3\n"),
        (vec![], vec![])
    );
    // The coordinator takes `task.start` whenever no starting event is named.
    let hats = "hats:\n  a:\n    description: x\n    triggers: [a.go]\n";
    assert_eq!(findings(hats), (vec![], vec![]));
}

#[test]
fn a_hat_triggering_on_the_promise_is_an_error_at_the_trigger() {
    let yaml = "\
event_loop:
  completion_promise: all.done
hats:
  closer:
    description: x
    triggers: [review.ok, all.done]
";
    let (errors, warnings) = findings(yaml);
    assert_eq!(
        errors,
        [
            "ralph.yml:6:27: hat `closer` triggers on `all.done`, the completion promise: \
          publishing the promise ends the loop, so the hat would never run on it. Trigger on a \
          topic of your own, or set `event_loop.completion_promise` to another topic"
        ]
    );
    assert_eq!(warnings, Vec::<String>::new());
    // The default promise counts as much as a configured one.
    let (errors, _) = findings("hats:\n  a:\n    description: x\n    triggers: [LOOP_COMPLETE]\n");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].starts_with("ralph.yml:4:16: hat `a` triggers on `LOOP_COMPLETE`"));
}

#[test]
fn starting_with_the_promise_is_an_error_at_the_key_written() {
    let start = "event_loop:\n  starting_event: LOOP_COMPLETE\n";
    assert_eq!(
        findings(start).0,
        [
            "ralph.yml:2:19: `event_loop.starting_event` and `event_loop.completion_promise` are \
          both `LOOP_COMPLETE`: the run would start by handing the agent its own end signal. \
          Give them different topics"
        ]
    );
    // Only the promise written: it is the key that collides with the default start.
    let promise = "event_loop:\n  completion_promise: task.start\n";
    let (errors, warnings) = findings(promise);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].starts_with("ralph.yml:2:23: "), "{errors:?}");
    assert_eq!(warnings, Vec::<String>::new());
}

#[test]
fn a_hat_without_triggers_is_a_warning() {
    let yaml = "\
hats:
  idle:
    description: x
  empty:
    description: x
    triggers: []
  busy:
    description: x
    triggers: [a.go]
";
    assert_eq!(
        findings(yaml).1,
        [
            "ralph.yml:2:3: hat `idle` has no triggers, so it never runs: list in \
             `hats.idle.triggers` the topics it handles, or remove the hat",
            "ralph.yml:6:15: hat `empty` has no triggers, so it never runs: list in \
             `hats.empty.triggers` the topics it handles, or remove the hat",
        ]
    );
}

#[test]
fn a_starting_event_no_hat_takes_is_a_warning_naming_the_coordinator() {
    let yaml = PIPELINE.replace("starting_event: work.start", "starting_event: work.begin");
    assert_eq!(
        findings(&yaml).1,
        [
            "ralph.yml:2:19: no hat triggers on the starting event `work.begin`, so ralph's \
          coordinator takes the first iteration: add `work.begin` to the `triggers` of the hat \
          that should start, or remove `event_loop.starting_event` if the coordinator is meant \
          to start"
        ]
    );
    // Without hats the coordinator is the only one there is: nothing to say.
    assert_eq!(
        findings("event_loop:\n  starting_event: work.begin\n"),
        (vec![], vec![])
    );
}

#[test]
fn a_default_publishes_outside_publishes_is_a_warning() {
    let yaml = PIPELINE.replace(
        "default_publishes: build.done",
        "default_publishes: build.ok",
    );
    assert_eq!(
        findings(&yaml).1,
        [
            "ralph.yml:9:24: hat `builder`'s `default_publishes` is `build.ok`, which its \
          `publishes` does not list: the agent is told it emits other topics, yet ralph \
          publishes `build.ok` for it. Add `build.ok` to `hats.builder.publishes`, or make the \
          default one of the topics listed"
        ]
    );
    // Without `publishes` (or with an empty list) the hat is told nothing to contradict.
    for publishes in ["", "    publishes: []\n"] {
        let yaml = format!(
            "hats:\n  a:\n    description: x\n    triggers: [a.go]\n{publishes}    \
             default_publishes: a.done\n"
        );
        assert_eq!(findings(&yaml), (vec![], vec![]), "{publishes:?}");
    }
}

#[test]
fn a_required_event_no_hat_publishes_is_a_warning_when_every_hat_lists_its_topics() {
    let yaml = PIPELINE.replace("[review.done]", "[review.done, docs.done]");
    assert_eq!(
        findings(&yaml).1,
        [
            "ralph.yml:3:34: `docs.done` is required before completion, but no hat lists it in \
          `publishes`: no agent is told to emit it, so completion is refused until one does \
          anyway. Add it to the `publishes` of the hat that should emit it"
        ]
    );
    // A hat's default counts as published, and so does the starting event.
    let yaml = PIPELINE
        .replace("[review.done]", "[review.done, build.ok, work.start]")
        .replace(
            "default_publishes: build.done",
            "default_publishes: build.ok",
        )
        .replace(
            "publishes: [build.done]",
            "publishes: [build.done, build.ok]",
        );
    assert_eq!(findings(&yaml), (vec![], vec![]));
    // A hat that does not say what it emits may emit anything.
    let yaml = PIPELINE
        .replace("[review.done]", "[review.done, docs.done]")
        .replace("    publishes: [review.done, LOOP_COMPLETE]\n", "");
    assert_eq!(findings(&yaml), (vec![], vec![]));
}

#[test]
fn a_hat_finishing_with_loop_complete_under_another_promise_is_a_warning_at_the_topic() {
    let yaml = PIPELINE.replace(
        "  required_events: [review.done]\n",
        "  required_events: [review.done]\n  completion_promise: ALL_DONE\n",
    ) + "  closer:\n    description: closes\n    triggers: [review.done]\n    \
         default_publishes: LOOP_COMPLETE\n";
    assert_eq!(
        findings(&yaml).1,
        [
            "ralph.yml:14:30: `hats.reviewer.publishes` names `LOOP_COMPLETE`, but this run's \
             completion promise is `ALL_DONE`: hat `reviewer` is told to finish with \
             `LOOP_COMPLETE`, which ralph routes as an ordinary event, so its emit never ends \
             the run. Write `ALL_DONE` there instead, or set `event_loop.completion_promise` \
             to `LOOP_COMPLETE`",
            "ralph.yml:18:24: `hats.closer.default_publishes` names `LOOP_COMPLETE`, but this \
             run's completion promise is `ALL_DONE`: hat `closer` is told to finish with \
             `LOOP_COMPLETE`, which ralph routes as an ordinary event, so its emit never ends \
             the run. Write `ALL_DONE` there instead, or set `event_loop.completion_promise` \
             to `LOOP_COMPLETE`",
        ]
    );
    // Under the default promise, `LOOP_COMPLETE` is the promise.
    assert_eq!(findings(PIPELINE), (vec![], vec![]));
}

#[test]
fn a_gate_before_loop_complete_under_another_promise_is_a_warning_at_the_topic() {
    // What `ralph init --preset` writes (its gate suggestion uncommented), with the
    // promise changed afterwards.
    let gate =
        "gates:\n  - name: lint\n    run: cargo clippy\n    before: [build.done, LOOP_COMPLETE]\n";
    let yaml = PIPELINE.replace(
        "  required_events: [review.done]\n",
        "  required_events: [review.done]\n  completion_promise: ALL_DONE\n",
    ) + gate;
    let warnings = findings(&yaml).1;
    assert_eq!(
        warnings.last().map(String::as_str),
        Some(
            "ralph.yml:18:26: gate `lint`'s `before` names `LOOP_COMPLETE`, but this run's \
             completion promise is `ALL_DONE`: the gate never runs before the run completes, \
             so completion goes unchecked. Write `ALL_DONE` there instead, or set \
             `event_loop.completion_promise` to `LOOP_COMPLETE`"
        ),
        "{warnings:#?}"
    );
    // Under the default promise, the gate checks the completion.
    assert_eq!(findings(&(PIPELINE.to_owned() + gate)), (vec![], vec![]));
}
