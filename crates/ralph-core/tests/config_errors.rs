//! Every configuration error, asserted as the whole message the user sees, position
//! included.

mod support;

use support::{parse_errors, resolve_errors};

#[test]
fn misspelt_key_suggests_the_right_one() {
    assert_eq!(
        parse_errors("cli:\n  backnd: pi\n"),
        ["ralph.yml:2:3: unknown key `backnd` in `cli`: did you mean `backend`?"]
    );
}

#[test]
fn unknown_key_without_close_match_lists_the_valid_keys() {
    assert_eq!(
        parse_errors("cli:\n  backend: pi\nfoo: 1\n"),
        [
            "ralph.yml:3:1: unknown key `foo` at the top level (expected one of: cli, event_loop, \
             core, tasks, hats, gates, pricing, hooks, transcripts, memories, skills)"
        ]
    );
}

#[test]
fn key_in_the_wrong_section_points_to_its_section() {
    assert_eq!(
        parse_errors("cli:\n  max_iterations: 5\nmax_cost_usd: 3\n"),
        [
            "ralph.yml:2:3: unknown key `max_iterations` in `cli`: did you mean \
             `event_loop.max_iterations`?",
            "ralph.yml:3:1: unknown key `max_cost_usd` at the top level: did you mean \
             `event_loop.max_cost_usd`?",
        ]
    );
}

#[test]
fn quoted_number_is_a_wrong_type_with_a_hint() {
    assert_eq!(
        parse_errors("event_loop:\n  max_iterations: \"100\"\n"),
        [
            "ralph.yml:2:19: `event_loop.max_iterations` expects a whole number, found a string \
             (\"100\"): remove the quotes"
        ]
    );
}

#[test]
fn wrong_types_name_what_was_expected_and_found() {
    let yaml = "\
cli:
  command: 42
  args: --verbose
  startup_timeout_seconds: 2.5
core:
  scratchpad:
    enabled: yes
hats:
  builder:
    description: Builds
    triggers: build.start
";
    assert_eq!(
        parse_errors(yaml),
        [
            "ralph.yml:2:12: `cli.command` expects a string, found a number (42): put it in quotes",
            "ralph.yml:3:9: `cli.args` expects a list of strings, found a string (\"--verbose\"): \
             write a list, such as `[value]`",
            "ralph.yml:4:28: `cli.startup_timeout_seconds` expects a whole number, found a number \
             (2.5): drop the fraction",
            "ralph.yml:7:14: `core.scratchpad.enabled` expects `true` or `false`, found a string \
             (\"yes\"): write `true` or `false`",
            "ralph.yml:11:15: `hats.builder.triggers` expects a list of strings, found a string \
             (\"build.start\"): write a list, such as `[value]`",
        ]
    );
}

#[test]
fn section_that_is_not_a_mapping() {
    assert_eq!(
        parse_errors("cli: pi\n"),
        ["ralph.yml:1:6: `cli` expects a mapping, found a string (\"pi\")"]
    );
    assert_eq!(
        parse_errors("- cli\n- hats\n"),
        [
            "ralph.yml:1:1: a config file must be a mapping of sections (`cli`, `event_loop`, \
             `core`, `tasks`, `hats`, `gates`, `pricing`, `hooks`, `transcripts`, `memories`, \
             `skills`), found a list"
        ]
    );
}

#[test]
fn unknown_backend_lists_the_valid_ones() {
    assert_eq!(
        parse_errors("cli:\n  backend: claud\n"),
        [
            "ralph.yml:2:12: unknown backend `claud` in `cli.backend`: did you mean `claude`? \
             (valid backends: auto, claude, kiro, gemini, codex, amp, copilot, opencode, pi, \
             custom)"
        ]
    );
    assert_eq!(
        parse_errors("hats:\n  a:\n    description: x\n    backend: {type: roo}\n"),
        [
            "ralph.yml:4:21: unknown backend `roo` in `hats.a.backend.type` (valid backends: \
             claude, kiro, gemini, codex, amp, copilot, opencode, pi, custom)"
        ]
    );
}

#[test]
fn two_hats_on_one_trigger_point_at_the_second_and_name_the_first() {
    let yaml = "\
hats:
  planner:
    description: Plans
    triggers: [work.start, build.done]
  reviewer:
    description: Reviews
    triggers: [review.start, build.done]
";
    assert_eq!(
        resolve_errors(yaml),
        [
            "ralph.yml:7:30: hats `planner` and `reviewer` both trigger on `build.done` \
             (`planner` claims it at ralph.yml:4:28): each event must route to exactly one hat, \
             so remove `build.done` from one of them"
        ]
    );
}

#[test]
fn hat_without_description() {
    assert_eq!(
        parse_errors("hats:\n  builder:\n    triggers: [a.b]\n  fixer:\n    description: \" \"\n"),
        [
            "ralph.yml:2:3: hat `builder` has no `description`: add one line saying what the hat \
             does (the agent reads it to know which hat handles what)",
            "ralph.yml:5:18: hat `fixer` has no `description`: add one line saying what the hat \
             does (the agent reads it to know which hat handles what)",
        ]
    );
}

#[test]
fn prompt_and_prompt_file_together() {
    assert_eq!(
        parse_errors("event_loop:\n  prompt: Fix the bug\n  prompt_file: PROMPT.md\n"),
        [
            "ralph.yml:2:11: `event_loop.prompt` and `event_loop.prompt_file` are both set \
             (`event_loop.prompt_file` at ralph.yml:3:16): keep only one"
        ]
    );
}

#[test]
fn empty_completion_promise() {
    assert_eq!(
        parse_errors("event_loop:\n  completion_promise: \"\"\n"),
        [
            "ralph.yml:2:23: `event_loop.completion_promise` is empty: the agent could never \
             signal that the task is done; remove the key to use the default"
        ]
    );
}

#[test]
fn custom_backend_without_command() {
    assert_eq!(
        resolve_errors("cli:\n  backend: custom\n  prompt_mode: stdin\n"),
        [
            "ralph.yml:2:12: backend `custom` needs a command: set `cli.command` to the program to \
             run (and `cli.prompt_mode` to `arg` or `stdin`)"
        ]
    );
    assert_eq!(
        resolve_errors("hats:\n  a:\n    description: x\n    backend: custom\n"),
        [
            "ralph.yml:4:14: backend `custom` needs a command: set `cli.command` to the program to \
             run (and `cli.prompt_mode` to `arg` or `stdin`), or give this hat `backend: \
             {command: ...}`"
        ]
    );
}

#[test]
fn command_with_auto_backend() {
    assert_eq!(
        resolve_errors("cli:\n  command: /opt/claude/bin/claude\n"),
        [
            "ralph.yml:2:12: `cli.command` replaces the program of one backend, but `cli.backend` \
             is `auto`: set `cli.backend` to the backend this program is (or to `custom`)"
        ]
    );
}

#[test]
fn a_prompt_on_stdin_cannot_reach_an_agent_on_a_terminal() {
    let why = "on a terminal the agent's stdin is the terminal, so ralph has no way to write \
               the prompt to it; set `prompt_mode: arg` (and `prompt_flag` if the agent wants a \
               flag before it), or remove";
    assert_eq!(
        resolve_errors(
            "cli:\n  backend: custom\n  command: ./agent.sh\n  prompt_mode: stdin\n  pty: true\n"
        ),
        [format!(
            "ralph.yml:4:16: `prompt_mode: stdin` cannot work with `cli.pty: true` (at \
             ralph.yml:5:8): {why} `cli.pty`"
        )]
    );
    // A hat's own agent on its own terminal.
    assert_eq!(
        resolve_errors(
            "cli:\n  backend: pi\nhats:\n  b:\n    description: B\n    triggers: [go]\n    \
             pty: true\n    backend: {command: ./agent.sh, prompt_mode: stdin}\n"
        ),
        [format!(
            "ralph.yml:8:49: `prompt_mode: stdin` cannot work with `hats.b.pty: true` (at \
             ralph.yml:7:10): {why} `hats.b.pty`"
        )]
    );
    // Either alone is fine, and so is a terminal for another hat's agent.
    for yaml in [
        "cli:\n  backend: custom\n  command: ./agent.sh\n  prompt_mode: stdin\n",
        "cli:\n  backend: custom\n  command: ./agent.sh\n  pty: true\n",
        "cli:\n  backend: custom\n  command: ./agent.sh\n  prompt_mode: stdin\nhats:\n  b:\n    \
         description: B\n    triggers: [go]\n    pty: true\n    backend: pi\n",
    ] {
        support::resolve_ok(yaml);
    }
}

#[test]
fn hat_triggered_by_reserved_topics() {
    assert_eq!(
        parse_errors("hats:\n  a:\n    description: x\n    triggers: [task.start, task.resume]\n"),
        [
            "ralph.yml:4:16: hat `a` cannot trigger on `task.start`: ralph publishes it itself to \
             start or resume a run. To start with this hat, set `event_loop.starting_event` to a \
             topic of your own (such as `work.start`) and trigger on that",
            "ralph.yml:4:28: hat `a` cannot trigger on `task.resume`: ralph publishes it itself to \
             start or resume a run. To start with this hat, set `event_loop.starting_event` to a \
             topic of your own (such as `work.start`) and trigger on that",
        ]
    );
}

#[test]
fn invalid_topic_names() {
    let yaml = "\
event_loop:
  starting_event: work start
  required_events: [review..done]
hats:
  a:
    description: x
    triggers: [bu*ld.x, ok.topic, ok.topic]
    publishes: [\"\"]
    default_publishes: done!
";
    assert_eq!(
        parse_errors(yaml),
        [
            "ralph.yml:2:19: invalid topic `work start` in `event_loop.starting_event`: ` ` is not \
             allowed in a topic (use letters, digits, `_`, `-` and `.`)",
            "ralph.yml:3:21: invalid topic `review..done` in `event_loop.required_events`: a topic \
             cannot start or end with `.` or contain `..`",
            "ralph.yml:7:16: invalid topic `bu*ld.x` in `hats.a.triggers`: `*` stands for a \
             whole segment (`build.*`), or alone for any topic (`*`), not for part of a segment",
            "ralph.yml:7:35: `hats.a.triggers` lists `ok.topic` twice: remove one",
            "ralph.yml:8:17: invalid topic `` in `hats.a.publishes`: a topic cannot be empty",
            "ralph.yml:9:24: invalid topic `done!` in `hats.a.default_publishes`: `!` is not \
             allowed in a topic (use letters, digits, `_`, `-` and `.`)",
        ]
    );
}

#[test]
fn a_wildcard_is_refused_with_what_the_key_takes_instead() {
    let yaml = "\
event_loop:
  completion_promise: done.*
  starting_event: work.*
  required_events: [review.*]
hats:
  a:
    description: x
    triggers: [a.go]
    publishes: [a.*]
    default_publishes: a.*
gates:
  - name: t
    run: make
    before: [a.*]
";
    assert_eq!(
        parse_errors(yaml),
        [
            "ralph.yml:2:23: invalid topic `done.*` in `event_loop.completion_promise`: the \
             promise is one exact topic, not a pattern: name the topic the agent emits when the \
             task is done",
            "ralph.yml:3:19: invalid topic `work.*` in `event_loop.starting_event`: ralph \
             publishes this topic itself, so it is one exact topic, not a pattern: name it",
            "ralph.yml:4:21: invalid topic `review.*` in `event_loop.required_events`: required \
             events are exact topics, not patterns: list each topic that must be emitted before \
             completion",
            "ralph.yml:9:17: invalid topic `a.*` in `hats.a.publishes`: a hat publishes exact \
             topics, not patterns: list each topic the hat may emit",
            "ralph.yml:10:24: invalid topic `a.*` in `hats.a.default_publishes`: ralph publishes \
             this topic itself, so it is one exact topic, not a pattern: name it",
            "ralph.yml:14:14: invalid topic `a.*` in `gates[0].before`: a gate guards exact \
             topics, not patterns: list each topic the gate guards",
        ]
    );
}

#[test]
fn the_coordinators_id_is_not_a_hat_id() {
    assert_eq!(
        parse_errors("hats:\n  ralph:\n    description: x\n    triggers: [work.start]\n"),
        [
            "ralph.yml:2:3: a hat cannot have the id `ralph`: ralph's own coordinator has it \
             (it handles the events no hat triggers on). Give this hat another id; its `name` \
             may still read `ralph`"
        ]
    );
}

#[test]
fn invalid_hat_id() {
    assert_eq!(
        parse_errors("hats:\n  my hat:\n    description: x\n"),
        [
            "ralph.yml:2:3: invalid hat id `my hat`: ` ` is not allowed in a topic (use letters, \
             digits, `_`, `-` and `.`); hat ids become part of topics such as `<id>.exhausted`"
        ]
    );
}

#[test]
fn limits_out_of_range() {
    let yaml = "\
event_loop:
  max_iterations: 0
  max_runtime_seconds: -5
  max_cost_usd: -1
  max_consecutive_failures: 4294967296
hats:
  a:
    description: x
    max_activations: 0
    idle_timeout_seconds: 0
";
    assert_eq!(
        parse_errors(yaml),
        [
            "ralph.yml:2:19: `event_loop.max_iterations` must be between 1 and 4294967295, found 0",
            "ralph.yml:3:24: `event_loop.max_runtime_seconds` must be between 1 and 31536000, \
             found -5",
            "ralph.yml:4:17: `event_loop.max_cost_usd` must be a number greater than 0, found -1",
            "ralph.yml:5:29: `event_loop.max_consecutive_failures` must be between 1 and \
             4294967295, found 4294967296",
            "ralph.yml:9:22: `hats.a.max_activations` must be between 1 and 4294967295, found 0",
            "ralph.yml:10:27: `hats.a.idle_timeout_seconds` must be between 1 and 31536000, found 0",
        ]
    );
}

#[test]
fn seconds_past_a_year_and_numbers_past_yaml_integers_are_out_of_range() {
    let yaml = "\
cli:
  startup_timeout_seconds: 31536001
  idle_timeout_seconds: 9223372036854775807
event_loop:
  max_runtime_seconds: 9223372036854775808
gates:
  - {name: g, run: 'true', timeout_seconds: 18446744073709551616}
hooks:
  defaults:
    timeout_seconds: 31536000
";
    assert_eq!(
        parse_errors(yaml),
        [
            "ralph.yml:2:28: `cli.startup_timeout_seconds` must be between 1 and 31536000, found \
             31536001",
            "ralph.yml:3:25: `cli.idle_timeout_seconds` must be between 1 and 31536000, found \
             9223372036854775807",
            "ralph.yml:5:24: `event_loop.max_runtime_seconds` must be between 1 and 31536000, \
             found 9223372036854775808",
            "ralph.yml:7:45: `gates[0].timeout_seconds` must be between 1 and 31536000, found \
             18446744073709551616",
        ]
    );
}

#[test]
fn invalid_choices_suggest_the_closest() {
    assert_eq!(
        parse_errors(
            "cli:\n  backend: custom\n  command: x\n  prompt_mode: stdn\n  output_format: json\n"
        ),
        [
            "ralph.yml:4:16: `cli.prompt_mode` must be one of arg, stdin, found `stdn`: did you \
             mean `stdin`?",
            "ralph.yml:5:18: `cli.output_format` must be one of pi, claude, codex, gemini, \
             opencode, copilot, text, found `json`",
        ]
    );
}

#[test]
fn malformed_hat_backends() {
    let yaml = "\
hats:
  a:
    description: x
    backend: {args: [--fast]}
  b:
    description: x
    backend: {type: pi, command: ./pi}
  c:
    description: x
    backend: {type: custom}
  d:
    description: x
    backend: auto
  e:
    description: x
    backend: [pi]
  f:
    description: x
    args: [--a]
    backend_args: [--b]
";
    assert_eq!(
        parse_errors(yaml),
        [
            "ralph.yml:4:14: `hats.a.backend` needs `type` (a backend name, such as `type: pi`) or \
             `command` (the program of a custom backend)",
            "ralph.yml:7:25: `hats.b.backend.command` and `hats.b.backend.type` are both set \
             (`hats.b.backend.type` at ralph.yml:7:15): keep only one",
            "ralph.yml:10:21: `hats.c.backend.type` cannot be `custom`: a custom backend needs a \
             program, so write `backend: {command: my-agent, ...}` instead",
            "ralph.yml:13:14: `hats.d.backend` cannot be `auto`: remove it, and the hat runs \
             `cli.backend`",
            "ralph.yml:16:14: `hats.e.backend` expects a backend name or a mapping with `type` or \
             `command`, found a list",
            "ralph.yml:20:19: `hats.f.backend_args` and `hats.f.args` are both set (`hats.f.args` \
             at ralph.yml:19:11): keep only one",
        ]
    );
}

#[test]
fn backend_priority_rejects_custom_and_repeats() {
    assert_eq!(
        parse_errors("cli:\n  backend_priority: [claude, custom, pi, claude]\n"),
        [
            "ralph.yml:2:30: `custom` cannot be auto-detected: remove it from \
             `cli.backend_priority` (set `cli.backend: custom` to use it)",
            "ralph.yml:2:42: `cli.backend_priority` lists `claude` twice: remove one",
        ]
    );
}

#[test]
fn yaml_syntax_errors_keep_their_position() {
    assert_eq!(
        parse_errors("cli:\n  backend: pi\n  args: [--model, x\nevent_loop: {}\n"),
        [
            "ralph.yml:4:11: invalid YAML: illegal placement of ':' indicator (check the \
             indentation, brackets and quotes on this line and the lines before it)"
        ]
    );
    assert_eq!(
        parse_errors("cli:\n  backend: pi\n  backend: claude\n"),
        ["ralph.yml:3:3: `backend` appears twice in the same mapping: keep only one of them"]
    );
    assert_eq!(
        parse_errors("cli: {}\n---\ncli: {}\n"),
        [
            "ralph.yml:3:1: a config file holds one YAML document, this one holds 2: remove the \
             `---` separators or split the file"
        ]
    );
}

#[test]
fn merge_keys_and_tags_are_refused() {
    assert_eq!(
        parse_errors("cli:\n  <<: {backend: pi}\n  backend: !custom pi\n"),
        [
            "ralph.yml:2:3: YAML merge keys (`<<`) are not supported in `cli`: write the keys out \
             in full",
            "ralph.yml:3:12: `cli.backend` expects a string, found a value tagged `!custom` (tags \
             are not supported)",
        ]
    );
}

#[test]
fn missing_prompt_file_names_the_file() {
    assert_eq!(
        resolve_errors("event_loop:\n  prompt_file: specs/TASK.md\n"),
        [
            "ralph.yml:2:16: cannot read the prompt file `specs/TASK.md`: No such file or \
             directory (os error 2). Create it, or fix the path (a path in a config file is \
             relative to that file's directory)"
        ]
    );
}

#[test]
fn every_error_of_a_file_is_reported_in_order() {
    let yaml = "\
cli:
  backend: gemeni
  idle_timeout: 30
event_loop:
  max_iterations: many
  completion_promise: \"\"
hats:
  builder:
    triggers: [task.start]
";
    assert_eq!(
        parse_errors(yaml),
        [
            "ralph.yml:2:12: unknown backend `gemeni` in `cli.backend`: did you mean `gemini`? \
             (valid backends: auto, claude, kiro, gemini, codex, amp, copilot, opencode, pi, \
             custom)",
            "ralph.yml:3:3: unknown key `idle_timeout` in `cli`: did you mean \
             `idle_timeout_seconds`?",
            "ralph.yml:5:19: `event_loop.max_iterations` expects a whole number, found a string \
             (\"many\")",
            "ralph.yml:6:23: `event_loop.completion_promise` is empty: the agent could never \
             signal that the task is done; remove the key to use the default",
            "ralph.yml:8:3: hat `builder` has no `description`: add one line saying what the hat \
             does (the agent reads it to know which hat handles what)",
            "ralph.yml:9:16: hat `builder` cannot trigger on `task.start`: ralph publishes it \
             itself to start or resume a run. To start with this hat, set \
             `event_loop.starting_event` to a topic of your own (such as `work.start`) and \
             trigger on that",
        ]
    );
}

#[test]
fn a_whole_number_too_large_for_yaml_is_out_of_range_not_a_fraction() {
    assert_eq!(
        parse_errors("event_loop:\n  max_iterations: 99999999999999999999\n  max_cost_usd: 1\n"),
        [
            // As written, not as the float the parser made of it (1e20).
            "ralph.yml:2:19: `event_loop.max_iterations` must be between 1 and 4294967295, \
          found 99999999999999999999"
        ]
    );
}

#[test]
fn a_fallback_names_backends_as_a_hat_does() {
    assert_eq!(
        parse_errors("cli:\n  fallback: [auto, claud, {type: pi, command: x}]\n"),
        [
            "ralph.yml:2:14: `cli.fallback` cannot name `auto`: name the backend to fail over to",
            "ralph.yml:2:20: unknown backend `claud` in `cli.fallback`: did you mean `claude`? \
             (valid backends: claude, kiro, gemini, codex, amp, copilot, opencode, pi, custom)",
            "ralph.yml:2:38: `cli.fallback.command` and `cli.fallback.type` are both set \
             (`cli.fallback.type` at ralph.yml:2:28): keep only one",
        ]
    );
}
