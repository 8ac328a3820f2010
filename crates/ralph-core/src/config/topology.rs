//! The shape of the workflow: whether the hats, the starting event, the completion
//! promise and the required events fit together so that the loop can start, hand work
//! on and end as written.
//!
//! Each key is valid on its own by the time this runs; what is checked here needs the
//! merged layers at once. Two mistakes make the loop unable to work and are errors (a hat
//! waiting on the promise, a run started with the promise). The others leave a loop that
//! runs, only not the way the file reads (a hat that never runs, a first iteration that
//! goes to the coordinator, a default no hat is told about, a required event no hat is
//! told to emit, a hat told to finish with `LOOP_COMPLETE` when the promise is another
//! topic): warnings, so that a file that works for its author still loads.

use super::error::{ConfigError, ConfigErrorKind, ConfigWarning, ConfigWarningKind};
use super::origin::{Origin, Spanned};
use super::raw::{RawConfig, RawHat};
use super::resolved::DEFAULT_COMPLETION_PROMISE;
use crate::topic::{RESERVED_TRIGGERS, TASK_START};
use crate::trigger::{self, Rank};

/// What [`check`] found.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    pub errors: Vec<ConfigError>,
    pub warnings: Vec<ConfigWarning>,
}

/// Checks the merged layers' workflow (defaults applied to the promise and the
/// starting event).
pub(crate) fn check(raw: &RawConfig) -> Findings {
    let el = &raw.event_loop;
    let promise = el.completion_promise.as_ref();
    let promise_topic = promise.map_or(DEFAULT_COMPLETION_PROMISE, |p| p.value.as_str());
    let start = el.starting_event.as_ref();
    let start_topic = start.map_or(TASK_START, |s| s.value.as_str());
    let hats = &raw.hats;
    let mut found = Findings::default();

    for hat in hats {
        for topic in triggers(hat).filter(|t| t.value == promise_topic) {
            found.errors.push(ConfigError::new(
                topic.origin.clone(),
                ConfigErrorKind::TriggerIsPromise {
                    hat: hat.id.value.clone(),
                    topic: topic.value.clone(),
                },
            ));
        }
    }
    if start_topic == promise_topic {
        // Point at whichever of the two the user wrote (the starting event if both).
        let origin = start
            .or(promise)
            .map_or(Origin::Default, |s| s.origin.clone());
        found.errors.push(ConfigError::new(
            origin,
            ConfigErrorKind::StartIsPromise {
                topic: promise_topic.to_owned(),
            },
        ));
    }

    for hat in hats.iter().filter(|h| triggers(h).next().is_none()) {
        let origin = hat.triggers.as_ref().map_or(&hat.id.origin, |t| &t.origin);
        found.warnings.push(ConfigWarning {
            origin: origin.clone(),
            kind: ConfigWarningKind::HatWithoutTriggers {
                hat: hat.id.value.clone(),
            },
        });
    }

    // Without hats the coordinator is meant to take every event; the reserved topics
    // (`task.start` by default) always go to it, as no hat may trigger on them.
    let start_handled = hats
        .iter()
        .any(|h| triggers(h).any(|t| trigger::matches(&t.value, start_topic)));
    if let Some(start) = start
        && !hats.is_empty()
        && !start_handled
        && start_topic != promise_topic
        && !RESERVED_TRIGGERS.contains(&start_topic)
    {
        found.warnings.push(ConfigWarning {
            origin: start.origin.clone(),
            kind: ConfigWarningKind::StartGoesToCoordinator {
                topic: start_topic.to_owned(),
            },
        });
    }

    // ralph-orchestrator's files start hats with `task.*`; here the coordinator keeps
    // ralph's own start, which would silently change who starts.
    if RESERVED_TRIGGERS.contains(&start_topic) {
        for hat in hats {
            let fitting = triggers(hat).filter(|t| {
                trigger::rank(&t.value) == Rank::Segments && trigger::fits(&t.value, start_topic)
            });
            for pattern in fitting {
                found.warnings.push(ConfigWarning {
                    origin: pattern.origin.clone(),
                    kind: ConfigWarningKind::PatternSkipsStart {
                        hat: hat.id.value.clone(),
                        pattern: pattern.value.clone(),
                        topic: start_topic.to_owned(),
                    },
                });
            }
        }
    }

    for hat in hats {
        let (Some(default), Some(publishes)) = (&hat.default_publishes, &hat.publishes) else {
            continue;
        };
        if !publishes.value.is_empty() && !publishes.value.iter().any(|t| t.value == default.value)
        {
            found.warnings.push(ConfigWarning {
                origin: default.origin.clone(),
                kind: ConfigWarningKind::DefaultNotPublished {
                    hat: hat.id.value.clone(),
                    topic: default.value.clone(),
                },
            });
        }
    }

    // `LOOP_COMPLETE` is the promise of ralph-orchestrator's presets and of ralph's
    // default, and `ralph init --preset` writes it in the hats and the gate suggestion: a
    // hat of the user's that still names it under another promise is told to emit a topic
    // that ends nothing, and a gate before it never checks the completion (built-in
    // presets have it replaced at load). ralph does not read the literal as the promise
    // in a user's file: a topic means what is written.
    if promise_topic != DEFAULT_COMPLETION_PROMISE {
        for hat in hats {
            let listed = hat.publishes.iter().flat_map(|l| &l.value);
            let named = listed.map(|t| ("publishes", t)).chain(
                hat.default_publishes
                    .iter()
                    .map(|d| ("default_publishes", d)),
            );
            for (key, topic) in named.filter(|(_, t)| t.value == DEFAULT_COMPLETION_PROMISE) {
                found.warnings.push(ConfigWarning {
                    origin: topic.origin.clone(),
                    kind: ConfigWarningKind::PublishesOtherPromise {
                        hat: hat.id.value.clone(),
                        key: format!("hats.{}.{key}", hat.id.value),
                        topic: topic.value.clone(),
                        promise: promise_topic.to_owned(),
                    },
                });
            }
        }
        for gate in &raw.gates {
            let before = gate.before.iter().flat_map(|l| &l.value);
            for topic in before.filter(|t| t.value == DEFAULT_COMPLETION_PROMISE) {
                found.warnings.push(ConfigWarning {
                    origin: topic.origin.clone(),
                    kind: ConfigWarningKind::GateBeforeOtherPromise {
                        gate: gate.name.value.clone(),
                        topic: topic.value.clone(),
                        promise: promise_topic.to_owned(),
                    },
                });
            }
        }
    }

    // A hat without `publishes` may emit anything as far as the file says, so a
    // required event counts as unpublished only when every hat lists what it emits.
    if !hats.is_empty() && hats.iter().all(|h| h.publishes.is_some()) {
        let published = |topic: &str| {
            topic == start_topic
                || hats.iter().any(|h| {
                    h.default_publishes
                        .as_ref()
                        .is_some_and(|d| d.value == topic)
                        || h.publishes
                            .as_ref()
                            .is_some_and(|p| p.value.iter().any(|t| t.value == topic))
                })
        };
        let required = el.required_events.iter().flat_map(|l| &l.value);
        for topic in required.filter(|t| !published(&t.value)) {
            found.warnings.push(ConfigWarning {
                origin: topic.origin.clone(),
                kind: ConfigWarningKind::RequiredNotPublished {
                    topic: topic.value.clone(),
                },
            });
        }
    }
    found
}

/// The topics `hat` triggers on.
fn triggers(hat: &RawHat) -> impl Iterator<Item = &Spanned<String>> {
    hat.triggers.iter().flat_map(|t| &t.value)
}

#[cfg(test)]
#[path = "topology_tests.rs"]
mod tests;
