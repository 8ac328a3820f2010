//! `hooks:`: ralph-orchestrator's schema loads unchanged, each mistake is reported at its
//! place, and phases ralph does not reach yet load with a warning.

mod support;

use std::time::Duration;

use ralph_core::hooks::{HookPhase, OnError, SuspendMode};
use ralph_types::Invocation;
use support::{parse_errors, parse_ok, rendered, resolve_ok};

/// ralph-orchestrator's `examples/hooks/minimal/ralph.hooks.yml`, as it ships.
const UPSTREAM_MINIMAL: &str = include_str!("fixtures/upstream_hooks_minimal.yml");

#[test]
fn the_incumbents_minimal_example_loads_unchanged() {
    let resolved = resolve_ok(UPSTREAM_MINIMAL);
    assert_eq!(resolved.warnings, []);
    let hooks = resolved.config.hooks;
    assert!(hooks.enabled);
    let guard = hooks.at(HookPhase::PreLoopStart).next().expect("env-guard");
    assert_eq!(guard.name, "env-guard");
    assert_eq!(
        guard.command,
        Invocation::Argv(vec!["./examples/hooks/scripts/env-guard.sh".into()])
    );
    assert_eq!(guard.on_error, OnError::Block);
    assert_eq!(guard.timeout, Duration::from_secs(30));
    assert_eq!(guard.max_output_bytes, 8192);
    assert_eq!(guard.suspend_mode, SuspendMode::WaitForResume);
    let notify: Vec<_> = hooks.at(HookPhase::PostLoopComplete).collect();
    assert_eq!(notify.len(), 1);
    assert_eq!(notify[0].on_error, OnError::Warn);
}

#[test]
fn defaults_apply_and_each_hook_can_override_them_in_declaration_order() {
    let config = resolve_ok(
        "hooks:
  enabled: true
  defaults: {timeout_seconds: 9, max_output_bytes: 100, suspend_mode: retry_backoff}
  events:
    pre.iteration.start:
      - {name: a, command: 'echo a', on_error: warn}
      - {name: b, command: [b], on_error: suspend, timeout_seconds: 2, max_output_bytes: 5,
         suspend_mode: wait_then_retry, cwd: sub, env: {X: '1'}, mutate: {enabled: true}}
",
    )
    .config;
    let hooks: Vec<_> = config.hooks.at(HookPhase::PreIterationStart).collect();
    assert_eq!(hooks[0].name, "a");
    assert_eq!(hooks[0].command, Invocation::Shell("echo a".into()));
    assert_eq!(hooks[0].timeout, Duration::from_secs(9));
    assert_eq!(hooks[0].max_output_bytes, 100);
    assert_eq!(hooks[0].suspend_mode, SuspendMode::RetryBackoff);
    assert!(!hooks[0].mutate);
    assert_eq!(hooks[1].timeout, Duration::from_secs(2));
    assert_eq!(hooks[1].max_output_bytes, 5);
    assert_eq!(hooks[1].suspend_mode, SuspendMode::WaitThenRetry);
    assert_eq!(hooks[1].cwd.as_deref(), Some(std::path::Path::new("sub")));
    assert_eq!(hooks[1].env, [("X".to_owned(), "1".to_owned())]);
    assert!(hooks[1].mutate);
}

#[test]
fn mistakes_are_reported_at_their_place() {
    let errors = parse_errors(
        "hooks:
  enabled: true
  events:
    pre.loop.strat:
      - {name: a, command: [a], on_error: warn}
    post.loop.complete:
      - {command: [], on_error: warn}
      - {name: c, command: [c]}
      - {name: d, command: [d], on_error: stop, timeout: 3}
      - {name: e, command: 5, on_error: warn}
    pre.loop.error: {name: f}
",
    );
    assert_eq!(
        errors,
        [
            "ralph.yml:4:5: unknown key `pre.loop.strat` in `hooks.events`: did you mean \
             `hooks.events.pre.loop.start`?",
            "ralph.yml:7:9: `hooks.events.post.loop.complete[0].name` is missing: the name \
             identifies the hook in ralph's output and logs",
            "ralph.yml:7:19: `hooks.events.post.loop.complete[0].command` is empty: give the \
             program and its arguments as a list, or a shell command line as a string",
            "ralph.yml:8:9: `hooks.events.post.loop.complete[1].on_error` is missing: say what \
             a failure does: `warn` (go on), `block` (stop the loop) or `suspend` (wait)",
            "ralph.yml:9:43: `hooks.events.post.loop.complete[2].on_error` must be one of warn, \
             block, suspend, found `stop`",
            "ralph.yml:9:49: unknown key `timeout` in `hooks.events.post.loop.complete[2]`: did \
             you mean `timeout_seconds`?",
            "ralph.yml:10:28: `hooks.events.post.loop.complete[3].command` expects a string or a \
             list of strings, found a number (5)",
            "ralph.yml:11:21: `hooks.events.pre.loop.error` expects a list of hooks, found a \
             mapping",
        ]
    );
}

#[test]
fn an_env_name_or_value_the_environment_cannot_hold_is_an_error_at_its_place() {
    let errors = parse_errors(
        r#"hooks:
  enabled: true
  events:
    pre.loop.start:
      - name: a
        command: [a]
        on_error: warn
        env: {"A=B": x, "": y, "C\0D": z, OK: "v\0w", FINE: v}
"#,
    );
    assert_eq!(
        errors,
        [
            "ralph.yml:8:15: invalid environment variable name `A=B` in \
             `hooks.events.pre.loop.start[0].env`: a name cannot contain `=` (the environment \
             would take what follows it for the value); rename it",
            "ralph.yml:8:25: invalid environment variable name `` in \
             `hooks.events.pre.loop.start[0].env`: give the variable a name",
            "ralph.yml:8:32: invalid environment variable name `C\\0D` in \
             `hooks.events.pre.loop.start[0].env`: a name cannot contain a NUL byte; rename it",
            "ralph.yml:8:47: `hooks.events.pre.loop.start[0].env.OK` must be text without a NUL \
             byte (no environment variable can hold one), found a string with a NUL byte",
        ]
    );
}

#[test]
fn phases_ralph_does_not_reach_and_a_disabled_section_warn() {
    let parsed = parse_ok(
        "hooks:
  events:
    pre.plan.created:
      - {name: p, command: [p], on_error: warn}
    post.human.interact: []
",
    );
    assert_eq!(
        rendered(&parsed.warnings),
        [
            "ralph.yml:1:1: no hook runs unless `hooks.enabled` is `true`",
            "ralph.yml:3:5: the hooks in `hooks.events.pre.plan.created` never run: ralph has \
             no plan step or human-in-the-loop channel yet, so it does not reach this phase",
        ]
    );
    let config = resolve_ok("hooks: {enabled: false, events: {pre.loop.start: [{name: a, command: [a], on_error: block}]}}").config;
    assert_eq!(config.hooks.at(HookPhase::PreLoopStart).count(), 0);
}

#[test]
fn a_later_layer_replaces_the_section_whole() {
    // The section's defaults apply within one file, so a layer's hooks come as a unit.
    let dumped = resolve_ok(UPSTREAM_MINIMAL).config.to_yaml();
    let again = resolve_ok(&dumped).config;
    assert_eq!(again.hooks, resolve_ok(UPSTREAM_MINIMAL).config.hooks);
}
