//! The table: one entry per `ralph.yml` key, in the order `ralph init` writes them and
//! `docs/config.md` lists them. To add a key, add its entry here, then read it in
//! `decode.rs` (or `decode_hat.rs`), carry it through `raw.rs`, `merge.rs`, `resolve.rs`
//! and `resolved.rs`, and write it in `dump.rs`; regenerate `docs/config.md`.

use super::defaults as d;
use super::{
    Default, EXIT_GRACE, IDLE_TIMEOUT, ITERATION_TIMEOUT, Init, Key, STARTUP_TIMEOUT, Section,
    Type, Value,
};

/// The example hats shown (commented out) at the end of the `ralph init` template: a
/// two-hat plan/build workflow whose planner ends the loop with the default completion
/// promise. Tests check that, uncommented, they validate.
pub const EXAMPLE_HATS: &str = "\
hats:
  planner:
    name: Planner
    description: Splits the task into small steps and hands out one at a time
    triggers: [work.start, step.done]
    publishes: [step.ready, LOOP_COMPLETE]
    instructions: |
      Read the scratchpad, pick the next unfinished step and emit step.ready with it.
      When every step is done and verified, emit LOOP_COMPLETE.
  builder:
    name: Builder
    description: Implements exactly one step, then verifies and commits it
    triggers: [step.ready]
    publishes: [step.done]
    default_publishes: step.done
";

const EXAMPLE_PRICING: &str = "\
pricing:
  gpt-5.5: {input: 1.25, output: 10, cache_read: 0.125}
";

const fn key(
    section: Section,
    name: &'static str,
    ty: Type,
    default: Default,
    doc: &'static str,
    init: Init,
) -> Key {
    Key {
        section,
        name,
        ty,
        default,
        doc,
        init,
    }
}

use Default::{Keys, Required, Unset};
use Section::{Cli, Core, EventLoop, Hat, HatBackend, Price, Scratchpad, Top};

const fn value(v: Value) -> Default {
    Default::Value(v)
}

/// Every key ralph reads. Not reformatted by rustfmt, so that each entry stays one
/// compact unit.
#[rustfmt::skip]
pub static KEYS: &[Key] = &[
    // The top level.
    key(Top, "cli", Type::Mapping, Keys, "Which agent ralph runs, and how.", Init::Keys),
    key(Top, "event_loop", Type::Mapping, Keys,
        "The task, how the agent says it is done, and the limits that stop the loop.",
        Init::Keys),
    key(Top, "core", Type::Mapping, Keys,
        "Files and rules shared by every iteration.", Init::Keys),
    key(Top, "hats", Type::NamedMappings("hat ids"), Unset("no hats: one agent does the whole task"),
        "Roles that hand the work over through events: each event goes to the one hat that \
         triggers on it.",
        Init::Block {
            example: EXAMPLE_HATS,
            note: "To use the example below, uncomment it and set `event_loop.starting_event` \
                   to `work.start`.",
        }),
    key(Top, "pricing", Type::NamedMappings("model names"), Unset("ralph's built-in list prices"),
        "Model prices for agents that count tokens but report no cost (Codex, Gemini CLI); \
         in US dollars per million tokens, they override and extend ralph's built-in list \
         prices.",
        Init::Block {
            example: EXAMPLE_PRICING,
            note: "`cache_read` and `cache_write` default to `input`. Codex never names its model in its output: ralph prices it as the model its \
                   `args` ask for (`-m NAME`).",
        }),
    // cli
    key(Cli, "backend", Type::Choice(d::BACKENDS), value(d::BACKEND),
        "The agent to run; `auto` takes the first one installed, in `backend_priority` order.",
        Init::Backend),
    key(Cli, "command", Type::NonEmptyText, Unset("the backend's own program"),
        "The program to run: required for `custom`; for another backend, its program's name \
         or path.",
        Init::ForCustom("my-agent")),
    key(Cli, "prompt_mode", Type::Choice(d::PROMPT_MODES), value(d::ARG),
        "Custom backend only: pass the prompt as the last argument, or on standard input.",
        Init::ForCustom("arg")),
    key(Cli, "prompt_flag", Type::NonEmptyText, Unset("the prompt is the last argument"),
        "Custom backend only: the flag written before the prompt argument.",
        Init::Example("--prompt")),
    key(Cli, "output_format", Type::Choice(d::OUTPUT_FORMATS), value(d::TEXT_FORMAT),
        "Custom backend only: how to read its output (plain text, or an agent's JSON stream).",
        Init::ForCustom("text")),
    key(Cli, "args", Type::Strings, value(Value::EmptyList),
        "Extra arguments appended to the agent's command line, such as `[\"--model\", \"NAME\"]`.",
        Init::Default),
    key(Cli, STARTUP_TIMEOUT, Type::Seconds, value(d::STARTUP),
        "Stop the agent if it prints nothing at all within this many seconds of starting.",
        Init::Default),
    key(Cli, IDLE_TIMEOUT, Type::Seconds, value(d::IDLE),
        "Stop the agent after this many seconds without output (longer than the tool calls \
         it runs silently).",
        Init::Default),
    key(Cli, ITERATION_TIMEOUT, Type::Seconds, value(d::ITERATION),
        "Stop the agent when one iteration takes longer than this many seconds.",
        Init::Default),
    key(Cli, EXIT_GRACE, Type::Seconds, value(d::GRACE),
        "Seconds an agent that has emitted its final event may take to exit.",
        Init::Default),
    key(Cli, "pty", Type::Bool, value(Value::Bool(false)),
        "Run the agent on a pseudo-terminal instead of pipes, for an agent that needs one.",
        Init::Default),
    key(Cli, "backend_priority", Type::BackendList, value(Value::Names(d::BUILTIN_BACKENDS)),
        "The backends `auto` tries, in order (`custom` cannot be detected).",
        Init::Default),
    // event_loop
    key(EventLoop, "prompt", Type::NonEmptyText,
        Unset("the prompt file"),
        "The task, written inline (`-p` on the command line replaces it and `prompt_file`).",
        Init::Example("\"Add a dark mode to the settings page.\"")),
    key(EventLoop, "prompt_file", Type::Path,
        Unset("`PROMPT.md` next to the project config, if it exists"),
        "A file holding the task, relative to this config file (`-P` replaces it and `prompt`).",
        Init::Example(d::PROMPT_FILE)),
    key(EventLoop, "completion_promise", Type::Topic, value(d::PROMISE),
        "The topic the agent emits (`ralph emit TOPIC`) when the task is done; the loop ends \
         there.",
        Init::Default),
    key(EventLoop, "max_iterations", Type::Count, value(d::ITERATIONS),
        "Stop the loop after this many iterations.",
        Init::Default),
    key(EventLoop, "max_runtime_seconds", Type::Seconds, value(d::RUNTIME),
        "Stop the loop once it has run this many seconds.",
        Init::Default),
    key(EventLoop, "max_cost_usd", Type::Dollars, Unset("no cost limit"),
        "Stop the loop once the agents' cost reaches this many US dollars.",
        Init::Example("10.0")),
    key(EventLoop, "max_consecutive_failures", Type::Count, value(d::FAILURES),
        "Stop the loop after this many failed iterations in a row.",
        Init::Default),
    key(EventLoop, "starting_event", Type::Topic, value(d::STARTING_EVENT),
        "The topic ralph publishes to start the run (with hats, the first hat triggers on it).",
        Init::Default),
    key(EventLoop, "required_events", Type::Topics, value(Value::EmptyList),
        "Topics that must all have been emitted before completion is accepted.",
        Init::Default),
    // core
    key(Core, "scratchpad", Type::PathOrMapping, Keys,
        "Notes the agent keeps between iterations (each starts with a fresh context); a path \
         alone means `{enabled: true, path: PATH}`.",
        Init::Keys),
    key(Scratchpad, "enabled", Type::Bool, value(Value::Bool(true)),
        "Whether the agent keeps a scratchpad.",
        Init::Default),
    key(Scratchpad, "path", Type::Path, value(d::SCRATCHPAD),
        "The scratchpad file, relative to the workspace.",
        Init::Default),
    key(Core, "guardrails", Type::Strings, value(Value::EmptyList),
        "Rules repeated in every prompt, such as `Run the tests before every commit.`",
        Init::Default),
    key(Core, "specs_dir", Type::Path, value(d::SPECS_DIR),
        "Where `ralph plan` writes specs, relative to the workspace.",
        Init::Default),
    // hats.<id>
    key(Hat, "name", Type::NonEmptyText, Unset("the hat id"),
        "The name shown in ralph's output.", Init::InExample),
    key(Hat, "description", Type::NonEmptyText, Required,
        "One line saying what the hat does (the agent reads it to know which hat handles what).",
        Init::InExample),
    key(Hat, "triggers", Type::Topics, value(Value::EmptyList),
        "The topics this hat handles; a topic triggers one hat only.", Init::InExample),
    key(Hat, "publishes", Type::Topics, value(Value::EmptyList),
        "The topics this hat may emit.", Init::InExample),
    key(Hat, "instructions", Type::Text, value(Value::Text("\"\"")),
        "What the agent is told to do while wearing this hat.", Init::InExample),
    key(Hat, "backend", Type::BackendOrMapping, Unset("`cli.backend`"),
        "The agent this hat runs: a backend name, `{type: NAME, args: [...]}`, or \
         `{command: PROGRAM, ...}`.",
        Init::InExample),
    key(Hat, "args", Type::Strings, value(Value::EmptyList),
        "Extra arguments appended to whichever backend the hat runs.", Init::InExample),
    key(Hat, "backend_args", Type::Strings, value(Value::EmptyList),
        "Another name for `args` (set one of the two).", Init::InExample),
    key(Hat, "default_publishes", Type::Topic, Unset("nothing is published for it"),
        "The topic published for the hat when its agent succeeds without emitting one.",
        Init::InExample),
    key(Hat, "max_activations", Type::Count, Unset("no limit"),
        "How many times the hat may run; after that ralph publishes `<id>.exhausted` instead.",
        Init::InExample),
    key(Hat, STARTUP_TIMEOUT, Type::Seconds, Unset("`cli.startup_timeout_seconds`"),
        "Overrides `cli.startup_timeout_seconds` (seconds) for this hat's agent.", Init::InExample),
    key(Hat, IDLE_TIMEOUT, Type::Seconds, Unset("`cli.idle_timeout_seconds`"),
        "Overrides `cli.idle_timeout_seconds` (seconds) for this hat's agent.", Init::InExample),
    key(Hat, ITERATION_TIMEOUT, Type::Seconds, Unset("`cli.iteration_timeout_seconds`"),
        "Overrides `cli.iteration_timeout_seconds` (seconds) for this hat's agent.", Init::InExample),
    key(Hat, EXIT_GRACE, Type::Seconds, Unset("`cli.exit_grace_seconds`"),
        "Overrides `cli.exit_grace_seconds` (seconds) for this hat's agent.", Init::InExample),
    key(Hat, "pty", Type::Bool,
        Unset("`cli.pty` if the hat runs `cli.backend`'s program, else `false`"),
        "Run this hat's agent on a pseudo-terminal.", Init::InExample),
    // hats.<id>.backend
    key(HatBackend, "type", Type::Choice(d::BUILTIN_BACKENDS), Unset("one of `type` and `command` is required"),
        "A built-in backend.", Init::InExample),
    key(HatBackend, "command", Type::NonEmptyText, Unset("one of `type` and `command` is required"),
        "A custom program instead of a built-in backend.", Init::InExample),
    key(HatBackend, "prompt_mode", Type::Choice(d::PROMPT_MODES), value(d::ARG),
        "With `command`: pass the prompt as the last argument, or on standard input.",
        Init::InExample),
    key(HatBackend, "prompt_flag", Type::NonEmptyText, Unset("the prompt is the last argument"),
        "With `command`: the flag written before the prompt argument.", Init::InExample),
    key(HatBackend, "output_format", Type::Choice(d::OUTPUT_FORMATS), value(d::TEXT_FORMAT),
        "With `command`: how to read the program's output.", Init::InExample),
    key(HatBackend, "args", Type::Strings, value(Value::EmptyList),
        "Extra arguments for this backend (the hat's own `args` follow them).", Init::InExample),
    // pricing.<model>
    key(Price, "input", Type::PricePerMillion, Required,
        "US dollars per million input tokens.", Init::InExample),
    key(Price, "output", Type::PricePerMillion, Required,
        "US dollars per million output tokens.", Init::InExample),
    key(Price, "cache_read", Type::PricePerMillion, Unset("the `input` price"),
        "US dollars per million tokens read from the prompt cache.", Init::InExample),
    key(Price, "cache_write", Type::PricePerMillion, Unset("the `input` price"),
        "US dollars per million tokens written to the prompt cache.", Init::InExample),
];
