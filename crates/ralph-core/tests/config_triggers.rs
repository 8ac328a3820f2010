//! Trigger patterns in a config: which are accepted, and which pairs of hats would both
//! claim a topic.

mod support;

use pretty_assertions::assert_eq;
use support::{rendered, resolve_errors, resolve_ok};

#[test]
fn segment_patterns_and_a_lone_star_are_triggers() {
    let resolved = resolve_ok(
        "\
event_loop:
  starting_event: work.start
hats:
  catchall:
    description: x
    triggers: ['*']
  builder:
    description: x
    triggers: [work.*, build.*]
  finisher:
    description: x
    triggers: [build.done]
",
    );
    // `work.*` takes the starting event: no warning that the coordinator would.
    assert_eq!(rendered(&resolved.warnings), Vec::<String>::new());
    let triggers: Vec<&[String]> = (resolved.config.hats.iter())
        .map(|h| h.triggers.as_slice())
        .collect();
    assert_eq!(
        triggers,
        [
            &["*".to_owned()][..],
            &["work.*".to_owned(), "build.*".to_owned()][..],
            &["build.done".to_owned()][..],
        ]
    );
}

#[test]
fn two_hats_patterns_that_can_take_one_topic_are_an_error() {
    let yaml = "\
hats:
  builder:
    description: x
    triggers: [build.*]
  closer:
    description: x
    triggers: ['*.done', review.*]
";
    assert_eq!(
        resolve_errors(yaml),
        [
            "ralph.yml:7:16: hats `builder` and `closer` have trigger patterns that can match the \
          same topic (`*.done` here, `build.*` at ralph.yml:4:16): each event must route to \
          exactly one hat, so narrow one of the patterns, or list the topics instead"
        ]
    );
}

#[test]
fn a_pattern_that_would_take_ralphs_start_is_a_warning() {
    // ralph-orchestrator's files start a hat with `task.*`; here the coordinator keeps
    // `task.start`, which the user is told, with what to write instead.
    let yaml = "hats:\n  a:\n    description: x\n    triggers: [task.*, '*']\n";
    assert_eq!(
        rendered(&resolve_ok(yaml).warnings),
        [
            "ralph.yml:4:16: hat `a`'s trigger `task.*` does not take the starting event \
          `task.start`: ralph hands its own start to its coordinator. To start with this hat, \
          set `event_loop.starting_event` to a topic of your own that the pattern takes"
        ]
    );
    let yaml = format!("event_loop:\n  starting_event: task.begin\n{yaml}");
    assert_eq!(rendered(&resolve_ok(&yaml).warnings), Vec::<String>::new());
}
