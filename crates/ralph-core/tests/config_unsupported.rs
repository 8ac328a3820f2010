//! Upstream keys ralph does not implement: each is reported at its place, as an
//! error when ignoring it would change what the loop does, as a warning when it is
//! safe, and not at all when its value asks for what ralph does anyway.

mod support;

use support::{parse_errors, parse_ok, rendered, resolve_ok};

#[test]
fn safe_to_ignore_keys_are_warnings() {
    let yaml = "\
cli:
  backend: claude
  idle_timeout_secs: 30
  pty_mode: false
  pty_interactive: true
event_loop:
  cooldown_delay_seconds: 2
  mutation_score_warn_threshold: 0.6
  context_window_tokens: 200000
hats:
  builder:
    description: Builds
    timeout: 300
    scratchpad: .ralph/builder.md
    backend: {type: pi, prompt_mode: stdin}
memories: {enabled: true}
tasks: {enabled: true}
skills: {dirs: [.claude/skills], overrides: {x: {tags: [a]}}}
features: {parallel: true}
tui: {prefix_key: ctrl-a}
adapters: {claude: {timeout: 300}}
events: {build.done: {description: Built}}
name: My loop
description: Builds things
max_tokens: 100
retry_delay: 2
archive_prompts: true
enable_metrics: true
_suppress_warnings: true
verbose: true
";
    assert_eq!(
        rendered(&parse_ok(yaml).warnings),
        [
            "ralph.yml:3:3: `cli.idle_timeout_secs` is not supported by ralph (yet) and is \
             ignored: it applied to ralph-orchestrator's interactive mode only; ralph's \
             inactivity deadline is `cli.idle_timeout_seconds`",
            "ralph.yml:4:3: `cli.pty_mode` is not supported by ralph (yet) and is ignored: ralph \
             runs agents on pipes; set `cli.pty: true` (or a hat's `pty: true`) for an agent \
             that needs a terminal",
            "ralph.yml:5:3: `cli.pty_interactive` is not supported by ralph (yet) and is \
             ignored: ralph does not forward keystrokes to the agent",
            "ralph.yml:7:3: `event_loop.cooldown_delay_seconds` is not supported by ralph (yet) \
             and is ignored: ralph starts the next iteration at once; the limits still bound the \
             loop",
            "ralph.yml:8:3: `event_loop.mutation_score_warn_threshold` is not supported by ralph \
             (yet) and is ignored: ralph does not read mutation scores",
            "ralph.yml:9:3: `event_loop.context_window_tokens` is not supported by ralph (yet) \
             and is ignored: ralph takes each model's context window from its own table (the \
             footer's `context … of …`)",
            "ralph.yml:13:5: `hats.builder.timeout` is not supported by ralph (yet) and is \
             ignored: it applied to parallel workers; per-hat deadlines are \
             `iteration_timeout_seconds` and `idle_timeout_seconds`",
            "ralph.yml:14:5: `hats.builder.scratchpad` is not supported by ralph (yet) and is \
             ignored: every hat shares `core.scratchpad`",
            "ralph.yml:15:25: `hats.builder.backend.prompt_mode` only applies to the custom \
             backend and is ignored: `pi` receives its prompt and writes its output its own way",
            "ralph.yml:18:50: `skills.overrides.x.tags` is not supported by ralph (yet) and is \
             ignored: ralph does not choose skills by tag; limit a skill with `hats` or \
             `backends`",
            "ralph.yml:19:1: `features` is not supported by ralph (yet) and is ignored: ralph \
             never moves a second `ralph run` into a worktree by itself (it is refused with a \
             message) and never merges on its own; start a loop in a worktree of its own with \
             `ralph run --worktree`, and merge it with `ralph runs land`",
            "ralph.yml:20:1: `tui` is not supported by ralph (yet) and is ignored: the keys of \
             ralph's full-screen view (`ralph run --tui`, `ralph watch`) are fixed",
            "ralph.yml:21:1: `adapters` is not supported by ralph (yet) and is ignored: set \
             per-backend timeouts with `cli.iteration_timeout_seconds` and \
             `cli.idle_timeout_seconds`, and choose which backends auto-detection may pick with \
             `cli.backend_priority`; ralph would not leave out an adapter marked `enabled: \
             false`",
            "ralph.yml:22:1: `events` is not supported by ralph (yet) and is ignored: ralph does \
             not inject per-topic descriptions into hat instructions; put that guidance in the \
             hats' `instructions`",
            "ralph.yml:23:1: `name` is not supported by ralph (yet) and is ignored: ralph keeps \
             no name for a config",
            "ralph.yml:24:1: `description` is not supported by ralph (yet) and is ignored: ralph \
             keeps no description for a config",
            "ralph.yml:25:1: `max_tokens` is not supported by ralph (yet) and is ignored: a \
             version 1 key that ralph-orchestrator dropped as well",
            "ralph.yml:26:1: `retry_delay` is not supported by ralph (yet) and is ignored: a \
             version 1 key that ralph-orchestrator dropped as well",
            "ralph.yml:27:1: `archive_prompts` is not supported by ralph (yet) and is ignored: a \
             version 1 key that ralph-orchestrator dropped as well",
            "ralph.yml:28:1: `enable_metrics` is not supported by ralph (yet) and is ignored: a \
             version 1 key that ralph-orchestrator dropped as well",
            "ralph.yml:29:1: `_suppress_warnings` is not supported by ralph (yet) and is \
             ignored: ralph reports every key it ignores",
            "ralph.yml:30:1: `verbose` is not supported by ralph (yet) and is ignored: use `-v` \
             on the command line",
        ]
    );
}

#[test]
fn keys_the_loop_would_miss_are_errors() {
    let yaml = "\
cli:
  default_mode: interactive
event_loop:
  cancellation_promise: loop.cancel
  persistent: true
  starting_hat: planner
  enforce_hat_scope: true
hats:
  reviewer:
    description: Reviews
    disallowed_tools: [Edit]
    extra_instructions: [Be strict.]
    concurrency: 3
    aggregate: {mode: wait_for_all}
    import: shared/reviewer.yml
    backend: {type: kiro, agent: reviewer}
RObot: {enabled: true, timeout_seconds: 60}
adapters: {kiro: {enabled: false}}
agent: claude
agent_priority: [claude]
prompt_file: PROMPT.md
completion_promise: DONE
max_iterations: 5
max_runtime: 60
max_cost: 5
";
    assert_eq!(
        parse_errors(yaml),
        [
            "ralph.yml:2:3: `cli.default_mode` is not supported by ralph (yet): ralph always \
             runs the agent headless; use `ralph plan` for an interactive session",
            "ralph.yml:4:3: `event_loop.cancellation_promise` is not supported by ralph (yet): \
             ralph would not end the loop when the agent emits this topic; remove it, and let \
             the agent stop by emitting the completion promise",
            "ralph.yml:5:3: `event_loop.persistent` is not supported by ralph (yet): ralph ends \
             the loop on completion instead of resuming it; remove it (or set `false`)",
            "ralph.yml:6:3: `event_loop.starting_hat` is not supported by ralph (yet): name the \
             first hat's trigger in `event_loop.starting_event` instead",
            "ralph.yml:7:3: `event_loop.enforce_hat_scope` is not supported by ralph (yet): \
             ralph would not rewrite events a hat may not publish; remove it (or set `false`)",
            "ralph.yml:11:5: `hats.reviewer.disallowed_tools` is not supported by ralph (yet): \
             ralph cannot keep this hat from using those tools, so it could edit files it must \
             not; remove the key, or give the hat a backend whose arguments restrict its tools",
            "ralph.yml:13:5: `hats.reviewer.concurrency` is not supported by ralph (yet): ralph \
             runs one agent at a time; remove the key (or set 1)",
            "ralph.yml:14:5: `hats.reviewer.aggregate` is not supported by ralph (yet): ralph \
             runs one agent at a time, so there is nothing to aggregate; remove the key",
            "ralph.yml:15:5: `hats.reviewer.import` is not supported by ralph (yet): the hat \
             would lose everything it imports; copy the imported keys into this hat",
            "ralph.yml:16:27: `hats.reviewer.backend.agent` is not supported by ralph (yet): \
             ralph would run the backend's default agent instead; pass the agent through `args`",
            "ralph.yml:17:1: `RObot` is not supported by ralph (yet): ralph has no \
             human-in-the-loop channel, so questions for a human would go unanswered; set \
             `enabled: false` or remove the section to run without one",
            "ralph.yml:18:1: `adapters` is not supported by ralph (yet): set per-backend \
             timeouts with `cli.iteration_timeout_seconds` and `cli.idle_timeout_seconds`, and \
             choose which backends auto-detection may pick with `cli.backend_priority`; ralph \
             would not leave out an adapter marked `enabled: false`",
            "ralph.yml:19:1: `agent` is not supported by ralph (yet): this version 1 key moved: \
             write `cli.backend` instead",
            "ralph.yml:20:1: `agent_priority` is not supported by ralph (yet): this version 1 \
             key moved: write `cli.backend_priority` instead",
            "ralph.yml:21:1: `prompt_file` is not supported by ralph (yet): this version 1 key \
             moved: write `event_loop.prompt_file` instead",
            "ralph.yml:22:1: `completion_promise` is not supported by ralph (yet): this version \
             1 key moved: write `event_loop.completion_promise` instead",
            "ralph.yml:23:1: `max_iterations` is not supported by ralph (yet): this version 1 \
             key moved: write `event_loop.max_iterations` instead",
            "ralph.yml:24:1: `max_runtime` is not supported by ralph (yet): this version 1 key \
             moved: write `event_loop.max_runtime_seconds` instead",
            "ralph.yml:25:1: `max_cost` is not supported by ralph (yet): this version 1 key \
             moved: write `event_loop.max_cost_usd` instead",
        ]
    );
}

#[test]
fn values_that_match_what_ralph_does_are_not_reported() {
    let yaml = "\
cli:
  default_mode: autonomous
event_loop:
  cooldown_delay_seconds: 0
  cancellation_promise: \"\"
  persistent: false
  starting_hat: null
  enforce_hat_scope: false
hats:
  reviewer:
    description: Reviews
    disallowed_tools: []
    extra_instructions: []
    concurrency: 1
memories: {enabled: false}
tasks: {enabled: false}
skills: {enabled: false}
hooks: {enabled: false, events: {pre.loop.start: []}}
RObot: {enabled: false, timeout_seconds: 120}
";
    assert_eq!(parse_ok(yaml).warnings, []);
}

#[test]
fn a_top_level_x_key_holds_anchors_and_is_ignored_without_a_word() {
    let yaml = "x-common: &shared \"Run the tests before you emit.\"\n\
                event_loop:\n  prompt: go\n  starting_event: s\n\
                hats:\n  a:\n    description: A\n    triggers: [s]\n    \
                publishes: [LOOP_COMPLETE]\n    extra_instructions: [*shared]\n";
    let parsed = parse_ok(yaml);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let resolved = resolve_ok(yaml);
    assert!(
        resolved.config.hats[0]
            .instructions
            .contains("Run the tests before you emit."),
        "{:?}",
        resolved.config.hats[0]
    );
}

#[test]
fn an_x_key_below_the_top_level_is_still_unknown() {
    let errors = parse_errors("cli:\n  x-note: 1\n");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("ralph.yml:2:3: unknown key `x-note` in `cli`"),
        "{errors:?}"
    );
}
