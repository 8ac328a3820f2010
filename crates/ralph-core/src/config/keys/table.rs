//! The table: one entry per `ralph.yml` key, in the order `ralph init` writes them and
//! `docs/config.md` lists them. To add a key, add its entry here, then read it in
//! `decode.rs` (or `decode_hat.rs`), carry it through `raw.rs`, `merge.rs`, `resolve.rs`
//! and `resolved.rs`; regenerate `docs/config.md`. The entry's `dump` says how
//! `--dry-run` writes the resolved value.

use saphyr::Yaml;

use super::defaults as d;
use super::{
    Default, Dump, EXIT_GRACE, IDLE_TIMEOUT, ITERATION_TIMEOUT, Init, Key, STARTUP_TIMEOUT,
    Section, Type, Value,
};
use crate::config::choice::AUTO;
use crate::config::resolved::{
    AgentBackend, CustomBackend, HatBackend, Prompt, PromptSource, ResolvedConfig,
};
use crate::config::yaml_value::{boolean, int, number, path_value, seconds, string, strings};

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
    dump: Dump,
) -> Key {
    Key {
        section,
        name,
        ty,
        default,
        doc,
        init,
        dump,
    }
}

/// The custom backend `cli` runs, if it runs one.
fn cli_custom(config: &ResolvedConfig) -> Option<&CustomBackend> {
    match &config.agent.backend {
        AgentBackend::Custom(custom) => Some(custom),
        AgentBackend::Auto | AgentBackend::Builtin { .. } => None,
    }
}

/// The custom program a hat's backend runs, if it runs one.
fn hat_custom(backend: &HatBackend) -> Option<&CustomBackend> {
    match backend {
        HatBackend::Custom { backend, .. } => Some(backend),
        HatBackend::Builtin { .. } => None,
    }
}

use Default::{Keys, Required, Unset};
use Section::{Cli, Core, EventLoop, Hat, Price, Scratchpad, Top};

const fn value(v: Value) -> Default {
    Default::Value(v)
}

/// Every key ralph reads. Not reformatted by rustfmt, so that each entry stays one
/// compact unit.
#[rustfmt::skip]
pub static KEYS: &[Key] = &[
    // The top level.
    key(Top, "cli", Type::Mapping, Keys, "Which agent ralph runs, and how.", Init::Keys,
        Dump::Keys),
    key(Top, "event_loop", Type::Mapping, Keys,
        "The task, how the agent says it is done, and the limits that stop the loop.",
        Init::Keys,
        Dump::Keys),
    key(Top, "core", Type::Mapping, Keys,
        "Files and rules shared by every iteration.", Init::Keys,
        Dump::Keys),
    key(Top, "hats", Type::NamedMappings("hat ids"), Unset("no hats: one agent does the whole task"),
        "Roles that hand the work over through events: each event goes to the one hat that \
         triggers on it.",
        Init::Block {
            example: EXAMPLE_HATS,
            note: "To use the example below, uncomment it and set `event_loop.starting_event` \
                   to `work.start`.",
        },
        Dump::Hats),
    key(Top, "pricing", Type::NamedMappings("model names"), Unset("ralph's built-in list prices"),
        "Model prices for agents that count tokens but report no cost (Codex, Gemini CLI); \
         in US dollars per million tokens, they override and extend ralph's built-in list \
         prices.",
        Init::Block {
            example: EXAMPLE_PRICING,
            note: "`cache_read` and `cache_write` default to `input`. Codex never names its model in its output: ralph prices it as the model its \
                   `args` ask for (`-m NAME`).",
        },
        Dump::Prices),
    // cli
    key(Cli, "backend", Type::Choice(d::BACKENDS), value(d::BACKEND),
        "The agent to run; `auto` takes the first one installed, in `backend_priority` order.",
        Init::Backend,
        Dump::Config(|c| Some(string(c.agent.backend.kind().map_or(AUTO, |k| k.name()))))),
    key(Cli, "command", Type::NonEmptyText, Unset("the backend's own program"),
        "The program to run: required for `custom`; for another backend, its program's name \
         or path.",
        Init::ForCustom("my-agent"),
        Dump::Config(|c| match &c.agent.backend {
            AgentBackend::Builtin { command, .. } => command.as_deref().map(string),
            AgentBackend::Custom(custom) => Some(string(&custom.command)),
            AgentBackend::Auto => None,
        })),
    key(Cli, "prompt_mode", Type::Choice(d::PROMPT_MODES), value(d::ARG),
        "Custom backend only: pass the prompt as the last argument, or on standard input.",
        Init::ForCustom("arg"),
        Dump::Config(|c| cli_custom(c).map(|b| string(b.prompt_mode.name())))),
    key(Cli, "prompt_flag", Type::NonEmptyText, Unset("the prompt is the last argument"),
        "Custom backend only: the flag written before the prompt argument.",
        Init::Example("--prompt"),
        Dump::Config(|c| cli_custom(c)?.prompt_flag.as_deref().map(string))),
    key(Cli, "output_format", Type::Choice(d::OUTPUT_FORMATS), value(d::TEXT_FORMAT),
        "Custom backend only: how to read its output (plain text, or an agent's JSON stream).",
        Init::ForCustom("text"),
        Dump::Config(|c| cli_custom(c).map(|b| string(b.output_format.name())))),
    key(Cli, "args", Type::Strings, value(Value::EmptyList),
        "Extra arguments appended to the agent's command line, such as `[\"--model\", \"NAME\"]`.",
        Init::Default,
        Dump::Config(|c| Some(strings(&c.agent.args)))),
    key(Cli, STARTUP_TIMEOUT, Type::Seconds, value(d::STARTUP),
        "Stop the agent if it prints nothing at all within this many seconds of starting.",
        Init::Default,
        Dump::Config(|c| Some(seconds(c.agent.deadlines.startup)))),
    key(Cli, IDLE_TIMEOUT, Type::Seconds, value(d::IDLE),
        "Stop the agent after this many seconds without output (longer than the tool calls \
         it runs silently).",
        Init::Default,
        Dump::Config(|c| Some(seconds(c.agent.deadlines.idle)))),
    key(Cli, ITERATION_TIMEOUT, Type::Seconds, value(d::ITERATION),
        "Stop the agent when one iteration takes longer than this many seconds.",
        Init::Default,
        Dump::Config(|c| Some(seconds(c.agent.deadlines.iteration)))),
    key(Cli, EXIT_GRACE, Type::Seconds, value(d::GRACE),
        "Seconds an agent that has emitted its final event may take to exit.",
        Init::Default,
        Dump::Config(|c| Some(seconds(c.agent.deadlines.exit_grace)))),
    key(Cli, "pty", Type::Bool, value(Value::Bool(false)),
        "Run the agent on a pseudo-terminal instead of pipes, for an agent that needs one.",
        Init::Default,
        Dump::Config(|c| Some(boolean(c.agent.pty)))),
    key(Cli, "backend_priority", Type::BackendList, value(Value::Names(d::BUILTIN_BACKENDS)),
        "The backends `auto` tries, in order (`custom` cannot be detected).",
        Init::Default,
        Dump::Config(|c| Some(Yaml::Sequence(c.backend_priority.iter().map(|k| string(k.name())).collect())))),
    // event_loop
    key(EventLoop, "prompt", Type::NonEmptyText,
        Unset("the prompt file"),
        "The task, written inline (`-p` on the command line replaces it and `prompt_file`).",
        Init::Example("\"Add a dark mode to the settings page.\""),
        Dump::Config(|c| match c.event_loop.prompt.as_ref()? {
            Prompt { source: PromptSource::Inline, text } => Some(string(text)),
            Prompt { source: PromptSource::File(_), .. } => None,
        })),
    key(EventLoop, "prompt_file", Type::Path,
        Unset("`PROMPT.md` next to the project config, if it exists"),
        "A file holding the task, relative to this config file (`-P` replaces it and `prompt`).",
        Init::Example(d::PROMPT_FILE),
        Dump::Config(|c| match &c.event_loop.prompt.as_ref()?.source {
            PromptSource::File(path) => Some(path_value(path)),
            PromptSource::Inline => None,
        })),
    key(EventLoop, "completion_promise", Type::Topic, value(d::PROMISE),
        "The topic the agent emits (`ralph emit TOPIC`) when the task is done; the loop ends \
         there.",
        Init::Default,
        Dump::Config(|c| Some(string(&c.event_loop.completion_promise)))),
    key(EventLoop, "max_iterations", Type::Count, value(d::ITERATIONS),
        "Stop the loop after this many iterations.",
        Init::Default,
        Dump::Config(|c| Some(int(c.event_loop.max_iterations.into())))),
    key(EventLoop, "max_runtime_seconds", Type::Seconds, value(d::RUNTIME),
        "Stop the loop once it has run this many seconds.",
        Init::Default,
        Dump::Config(|c| Some(seconds(c.event_loop.max_runtime)))),
    key(EventLoop, "max_cost_usd", Type::Dollars, Unset("no cost limit"),
        "Stop the loop once the agents' cost reaches this many US dollars.",
        Init::Example("10.0"),
        Dump::Config(|c| c.event_loop.max_cost_usd.map(number))),
    key(EventLoop, "max_consecutive_failures", Type::Count, value(d::FAILURES),
        "Stop the loop after this many failed iterations in a row.",
        Init::Default,
        Dump::Config(|c| Some(int(c.event_loop.max_consecutive_failures.into())))),
    key(EventLoop, "starting_event", Type::Topic, value(d::STARTING_EVENT),
        "The topic ralph publishes to start the run (with hats, the first hat triggers on it).",
        Init::Default,
        Dump::Config(|c| Some(string(&c.event_loop.starting_event)))),
    key(EventLoop, "required_events", Type::Topics, value(Value::EmptyList),
        "Topics that must all have been emitted before completion is accepted.",
        Init::Default,
        Dump::Config(|c| Some(strings(&c.event_loop.required_events)))),
    // core
    key(Core, "scratchpad", Type::PathOrMapping, Keys,
        "Notes the agent keeps between iterations (each starts with a fresh context); a path \
         alone means `{enabled: true, path: PATH}`.",
        Init::Keys,
        Dump::Keys),
    key(Scratchpad, "enabled", Type::Bool, value(Value::Bool(true)),
        "Whether the agent keeps a scratchpad.",
        Init::Default,
        Dump::Config(|c| Some(boolean(c.core.scratchpad.is_some())))),
    key(Scratchpad, "path", Type::Path, value(d::SCRATCHPAD),
        "The scratchpad file, relative to the workspace.",
        Init::Default,
        Dump::Config(|c| c.core.scratchpad.as_deref().map(path_value))),
    key(Core, "guardrails", Type::Strings, value(Value::EmptyList),
        "Rules repeated in every prompt, such as `Run the tests before every commit.`",
        Init::Default,
        Dump::Config(|c| Some(strings(&c.core.guardrails)))),
    key(Core, "specs_dir", Type::Path, value(d::SPECS_DIR),
        "Where `ralph plan` writes specs, relative to the workspace.",
        Init::Default,
        Dump::Config(|c| Some(path_value(&c.core.specs_dir)))),
    // hats.<id>
    key(Hat, "name", Type::NonEmptyText, Unset("the hat id"),
        "The name shown in ralph's output.", Init::InExample,
        Dump::Hat(|h| Some(string(&h.name)))),
    key(Hat, "description", Type::NonEmptyText, Required,
        "One line saying what the hat does (the agent reads it to know which hat handles what).",
        Init::InExample,
        Dump::Hat(|h| Some(string(&h.description)))),
    key(Hat, "triggers", Type::Topics, value(Value::EmptyList),
        "The topics this hat handles; a topic triggers one hat only.", Init::InExample,
        Dump::Hat(|h| Some(strings(&h.triggers)))),
    key(Hat, "publishes", Type::Topics, value(Value::EmptyList),
        "The topics this hat may emit.", Init::InExample,
        Dump::Hat(|h| Some(strings(&h.publishes)))),
    key(Hat, "instructions", Type::Text, value(Value::Text("\"\"")),
        "What the agent is told to do while wearing this hat.", Init::InExample,
        Dump::Hat(|h| (!h.instructions.is_empty()).then(|| string(&h.instructions)))),
    key(Hat, "backend", Type::BackendOrMapping, Unset("`cli.backend`"),
        "The agent this hat runs: a backend name, `{type: NAME, args: [...]}`, or \
         `{command: PROGRAM, ...}`.",
        Init::InExample,
        Dump::Keys),
    key(Hat, "args", Type::Strings, value(Value::EmptyList),
        "Extra arguments appended to whichever backend the hat runs.", Init::InExample,
        Dump::Hat(|h| (!h.args.is_empty()).then(|| strings(&h.args)))),
    key(Hat, "backend_args", Type::Strings, value(Value::EmptyList),
        "Another name for `args` (set one of the two).", Init::InExample,
        Dump::Skip),
    key(Hat, "default_publishes", Type::Topic, Unset("nothing is published for it"),
        "The topic published for the hat when its agent succeeds without emitting one.",
        Init::InExample,
        Dump::Hat(|h| h.default_publishes.as_deref().map(string))),
    key(Hat, "max_activations", Type::Count, Unset("no limit"),
        "How many times the hat may run; after that ralph publishes `<id>.exhausted` instead.",
        Init::InExample,
        Dump::Hat(|h| h.max_activations.map(|n| int(n.into())))),
    key(Hat, STARTUP_TIMEOUT, Type::Seconds, Unset("`cli.startup_timeout_seconds`"),
        "Overrides `cli.startup_timeout_seconds` (seconds) for this hat's agent.", Init::InExample,
        Dump::Hat(|h| Some(seconds(h.deadlines.startup)))),
    key(Hat, IDLE_TIMEOUT, Type::Seconds, Unset("`cli.idle_timeout_seconds`"),
        "Overrides `cli.idle_timeout_seconds` (seconds) for this hat's agent.", Init::InExample,
        Dump::Hat(|h| Some(seconds(h.deadlines.idle)))),
    key(Hat, ITERATION_TIMEOUT, Type::Seconds, Unset("`cli.iteration_timeout_seconds`"),
        "Overrides `cli.iteration_timeout_seconds` (seconds) for this hat's agent.", Init::InExample,
        Dump::Hat(|h| Some(seconds(h.deadlines.iteration)))),
    key(Hat, EXIT_GRACE, Type::Seconds, Unset("`cli.exit_grace_seconds`"),
        "Overrides `cli.exit_grace_seconds` (seconds) for this hat's agent.", Init::InExample,
        Dump::Hat(|h| Some(seconds(h.deadlines.exit_grace)))),
    key(Hat, "pty", Type::Bool,
        Unset("`cli.pty` if the hat runs `cli.backend`'s program, else `false`"),
        "Run this hat's agent on a pseudo-terminal.", Init::InExample,
        Dump::Hat(|h| Some(boolean(h.pty)))),
    // hats.<id>.backend
    key(Section::HatBackend, "type", Type::Choice(d::BUILTIN_BACKENDS), Unset("one of `type` and `command` is required"),
        "A built-in backend.", Init::InExample,
        Dump::Backend(|b| match b {
            HatBackend::Builtin { kind, .. } => Some(string(kind.name())),
            HatBackend::Custom { .. } => None,
        })),
    key(Section::HatBackend, "command", Type::NonEmptyText, Unset("one of `type` and `command` is required"),
        "A custom program instead of a built-in backend.", Init::InExample,
        Dump::Backend(|b| hat_custom(b).map(|c| string(&c.command)))),
    key(Section::HatBackend, "prompt_mode", Type::Choice(d::PROMPT_MODES), value(d::ARG),
        "With `command`: pass the prompt as the last argument, or on standard input.",
        Init::InExample,
        Dump::Backend(|b| hat_custom(b).map(|c| string(c.prompt_mode.name())))),
    key(Section::HatBackend, "prompt_flag", Type::NonEmptyText, Unset("the prompt is the last argument"),
        "With `command`: the flag written before the prompt argument.", Init::InExample,
        Dump::Backend(|b| hat_custom(b)?.prompt_flag.as_deref().map(string))),
    key(Section::HatBackend, "output_format", Type::Choice(d::OUTPUT_FORMATS), value(d::TEXT_FORMAT),
        "With `command`: how to read the program's output.", Init::InExample,
        Dump::Backend(|b| hat_custom(b).map(|c| string(c.output_format.name())))),
    key(Section::HatBackend, "args", Type::Strings, value(Value::EmptyList),
        "Extra arguments for this backend (the hat's own `args` follow them).", Init::InExample,
        Dump::Backend(|b| match b {
            HatBackend::Builtin { args, .. } | HatBackend::Custom { args, .. } => Some(strings(args)),
        })),
    // pricing.<model>
    key(Price, "input", Type::PricePerMillion, Required,
        "US dollars per million input tokens.", Init::InExample,
        Dump::Price(|p| Some(number(p.price.input)))),
    key(Price, "output", Type::PricePerMillion, Required,
        "US dollars per million output tokens.", Init::InExample,
        Dump::Price(|p| Some(number(p.price.output)))),
    key(Price, "cache_read", Type::PricePerMillion, Unset("the `input` price"),
        "US dollars per million tokens read from the prompt cache.", Init::InExample,
        Dump::Price(|p| Some(number(p.price.cache_read)))),
    key(Price, "cache_write", Type::PricePerMillion, Unset("the `input` price"),
        "US dollars per million tokens written to the prompt cache.", Init::InExample,
        Dump::Price(|p| Some(number(p.price.cache_write)))),
];
