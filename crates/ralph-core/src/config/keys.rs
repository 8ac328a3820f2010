//! Every `ralph.yml` key, declared once: the table, one entry per key (see
//! [`super::key`] for what an entry holds), in the order `ralph init` writes them,
//! `--dry-run` dumps them and `docs/config.md` lists them. Each entry says how the key
//! is read into a layer (`read`) and how its resolved value is dumped (`dump`).
//!
//! To add a key: add its entry here and its field in `raw.rs` (layering follows from
//! the field), give it its resolved form in `resolved.rs` and `resolve.rs`, and
//! regenerate `docs/config.md`.

use saphyr::Yaml;

use super::choice::AUTO;
use super::decode_hat;
use super::hooks::EXAMPLE_HOOKS;
use super::key::defaults as d;
use super::key::{
    Default, Dump, EXIT_GRACE, IDLE_TIMEOUT, ITERATION_TIMEOUT, Init, Key, Read, STARTUP_TIMEOUT,
    Section, Type, Value,
};
use super::node::Schema;
use super::read;
use super::resolved::{
    AgentBackend, CustomBackend, DEFAULT_PROMPT_EVENTS_MAX_BYTES, DEFAULT_TASKS_ENABLED,
    HatBackend, Prompt, PromptSource, ResolvedConfig,
};
use super::unsupported::{self, Unsupported};
use super::yaml_value::{boolean, int, number, path_value, seconds, string, strings};

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

/// The example gates shown (commented out) in the `ralph init` template.
pub const EXAMPLE_GATES: &str = "\
gates:
  - name: tests
    run: cargo test --quiet
  - name: lint
    run: [cargo, clippy, --all-targets, --, -D, warnings]
    before: [LOOP_COMPLETE]
    timeout_seconds: 300
";

const EXAMPLE_PRICING: &str = "\
pricing:
  gpt-5.5: {input: 1.25, output: 10, cache_read: 0.125}
";

/// One row of the table, in [`Key`]'s field order.
#[expect(
    clippy::too_many_arguments,
    reason = "one positional call per key keeps each entry a compact row of the table"
)]
pub(super) const fn key(
    section: Section,
    name: &'static str,
    ty: Type,
    default: Default,
    doc: &'static str,
    init: Init,
    dump: Dump,
    read: Read,
) -> Key {
    Key {
        section,
        name,
        ty,
        default,
        doc,
        init,
        dump,
        read,
    }
}

impl Section {
    /// The keys of this section, in declaration order.
    pub fn keys(self) -> impl Iterator<Item = &'static Key> {
        all_keys().filter(move |k| k.section == self)
    }

    /// The names of this section's keys, for "expected one of" and suggestions.
    pub fn names(self) -> Vec<&'static str> {
        self.keys().map(|k| k.name).collect()
    }

    /// The upstream keys ralph knows about but does not implement, in this section's
    /// mappings.
    pub(crate) fn unsupported(self) -> &'static [Unsupported] {
        match self {
            Section::Top => unsupported::TOP_LEVEL,
            Section::Cli => unsupported::CLI,
            Section::EventLoop => unsupported::EVENT_LOOP,
            Section::Hat => unsupported::HAT,
            Section::HatBackend => unsupported::HAT_BACKEND,
            Section::SkillOverride => unsupported::SKILL_OVERRIDE,
            Section::Core
            | Section::Scratchpad
            | Section::Price
            | Section::Gate
            | Section::Tasks
            | Section::Transcripts
            | Section::Hooks
            | Section::HookDefaults
            | Section::Hook
            | Section::HookMutate
            | Section::Memories
            | Section::MemoryFilter
            | Section::Skills => &[],
        }
    }

    /// What a mapping of this section, at `path`, may hold.
    pub(crate) fn schema(self, path: &str) -> Schema<'_> {
        let elsewhere = if self.suggests_across() {
            Section::ALL
                .into_iter()
                .filter(|s| s.suggests_across() && *s != self)
                .flat_map(Section::keys)
                .map(Key::path)
                .collect()
        } else {
            Vec::new()
        };
        Schema {
            path,
            keys: self.names(),
            unsupported: self.unsupported(),
            elsewhere,
        }
    }
}

impl Key {
    /// The keys of the section this key opens (empty for a plain value).
    pub fn children(&self) -> Vec<&'static Key> {
        Section::opened_by(self).map_or_else(Vec::new, |s| s.keys().collect())
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
pub(super) fn hat_custom(backend: &HatBackend) -> Option<&CustomBackend> {
    match backend {
        HatBackend::Custom { backend, .. } => Some(backend),
        HatBackend::Builtin { .. } => None,
    }
}

use Default::{Keys, Unset};
use Section::{Cli, Core, EventLoop, Scratchpad, Tasks, Top};

/// What `ralph init` shows for `cli.fallback`.
const FALLBACK_EXAMPLE: &str = "[claude, {type: pi, args: [\"--provider\", \"openai\"]}]";

/// A hat backend's mapping form needs one of these two keys.
pub(super) const TYPE_OR_COMMAND: &str = "one of `type` and `command` is required";

pub(super) const fn value(v: Value) -> Default {
    Default::Value(v)
}

/// Every key ralph reads, table by table; within a section, in the order `ralph init`
/// writes them, `--dry-run` dumps them and `docs/config.md` lists them.
pub fn all_keys() -> impl Iterator<Item = &'static Key> {
    [
        MAIN_KEYS,
        super::keys_hat::HAT_KEYS,
        super::keys_gate::GATE_KEYS,
        super::keys_transcripts::TRANSCRIPT_KEYS,
        super::keys_hooks::HOOK_KEYS,
        super::keys_memory::MEMORY_KEYS,
    ]
    .into_iter()
    .flatten()
}

/// The keys of the top level, `cli`, `event_loop` and `core`. Not reformatted by
/// rustfmt, so that each entry stays one compact unit.
#[rustfmt::skip]
static MAIN_KEYS: &[Key] = &[
    // The top level.
    key(Top, "cli", Type::Mapping, Keys, "Which agent ralph runs, and how.", Init::Keys,
        Dump::Keys,
        Read::Keys),
    key(Top, "event_loop", Type::Mapping, Keys,
        "The task, how the agent says it is done, and the limits that stop the loop.",
        Init::Keys,
        Dump::Keys,
        Read::Keys),
    key(Top, "core", Type::Mapping, Keys,
        "Files and rules shared by every iteration.", Init::Keys,
        Dump::Keys,
        Read::Keys),
    key(Top, "tasks", Type::Mapping, Keys,
        "The task list agents keep with `ralph tools task` (.ralph/agent/tasks.jsonl).",
        Init::Keys,
        Dump::Keys,
        Read::Keys),
    key(Top, "hats", Type::NamedMappings("hat ids"),
        Unset("no hats: one agent does the whole task"),
        "Roles that hand the work over through events: each event goes to the one hat that \
         triggers on it (events no hat triggers on go to ralph's coordinator, whose id \
         `ralph` no hat may take).",
        Init::Block {
            example: EXAMPLE_HATS,
            note: "To use the example below, uncomment it and set `event_loop.starting_event` \
                   to `work.start`.",
        },
        Dump::Hats,
        Read::Hats),
    key(Top, "gates", Type::MappingList, Unset("no gates: the agent's word is taken"),
        "Commands ralph runs itself, in the workspace, after an iteration: an event a gate \
         guards counts only once the gate exits 0; otherwise ralph publishes `gate.failed` \
         with the gate's output instead.",
        Init::Block {
            example: EXAMPLE_GATES,
            note: "A string runs through `sh -c`, a list is the program and its arguments. \
                   `ralph gates` runs them by hand.",
        },
        Dump::Gates,
        Read::Gates),
    key(Top, "pricing", Type::NamedMappings("model names"), Unset("ralph's built-in list prices"),
        "Model prices for agents that count tokens but report no cost (Codex, Gemini CLI); \
         in US dollars per million tokens, they override and extend ralph's built-in list \
         prices.",
        Init::Block {
            example: EXAMPLE_PRICING,
            note: "`cache_read` and `cache_write` default to `input`. Codex never names its \
                   model in its output: ralph prices it as the model its \
                   `args` ask for (`-m NAME`).",
        },
        Dump::Prices,
        Read::Prices),
    key(Top, "hooks", Type::Mapping, Unset("no hooks"),
        "Commands ralph runs at the loop's boundaries, with a JSON description of the \
         boundary on stdin (ralph-orchestrator's schema; see docs/hooks.md).",
        Init::Block {
            example: EXAMPLE_HOOKS,
            note: "Hook commands run in the workspace; a list is the program and its arguments \
                   (no shell), a string runs through `sh -c`.",
        },
        Dump::Hooks,
        Read::Hooks),
    // cli
    key(Cli, "backend", Type::Choice(d::BACKENDS), value(d::BACKEND),
        "The agent to run; `auto` takes the first one installed, in `backend_priority` order.",
        Init::Backend,
        Dump::Config(|c| Some(string(c.agent.backend.kind().map_or(AUTO, |k| k.name())))),
        Read::Layer(|dec, f, c| c.cli.backend = read::backend_choice(dec, f))),
    key(Cli, "command", Type::NonEmptyText, Unset("the backend's own program"),
        "The program to run: required for `custom`; for another backend, its program's name \
         or path.",
        Init::ForCustom("my-agent"),
        Dump::Config(|c| match &c.agent.backend {
            AgentBackend::Builtin { command, .. } => command.as_deref().map(string),
            AgentBackend::Custom(custom) => Some(string(&custom.command)),
            AgentBackend::Auto => None,
        }),
        Read::Layer(|dec, f, c| c.cli.command = dec.nonempty_string(f, read::COMMAND_WHY))),
    key(Cli, "prompt_mode", Type::Choice(d::PROMPT_MODES), value(d::ARG),
        "Custom backend only: pass the prompt as the last argument, or on standard input \
         (`stdin` cannot be combined with `pty: true`: the agent's stdin is then the terminal).",
        Init::ForCustom("arg"),
        Dump::Config(|c| cli_custom(c).map(|b| string(b.prompt_mode.name()))),
        Read::Layer(|dec, f, c| c.cli.prompt_mode = read::prompt_mode(dec, f))),
    key(Cli, "prompt_flag", Type::NonEmptyText, Unset("the prompt is the last argument"),
        "Custom backend only: the flag written before the prompt argument.",
        Init::Example("--prompt"),
        Dump::Config(|c| cli_custom(c)?.prompt_flag.as_deref().map(string)),
        Read::Layer(|dec, f, c| c.cli.prompt_flag = dec.nonempty_string(f, read::PROMPT_FLAG_WHY))),
    key(Cli, "output_format", Type::Choice(d::OUTPUT_FORMATS), value(d::TEXT_FORMAT),
        "Custom backend only: how to read its output (plain text, or an agent's JSON stream).",
        Init::ForCustom("text"),
        Dump::Config(|c| cli_custom(c).map(|b| string(b.output_format.name()))),
        Read::Layer(|dec, f, c| c.cli.output_format = read::output_format(dec, f))),
    key(Cli, "args", Type::Strings, value(Value::EmptyList),
        "Extra arguments appended to the agent's command line, such as `[\"--model\", \"NAME\"]`.",
        Init::Default,
        Dump::Config(|c| Some(strings(&c.agent.args))),
        Read::Layer(|dec, f, c| c.cli.args = dec.plain_strings(f))),
    key(Cli, STARTUP_TIMEOUT, Type::Seconds, value(d::STARTUP),
        "Stop the agent if it prints nothing at all within this many seconds of starting.",
        Init::Default,
        Dump::Config(|c| Some(seconds(c.agent.deadlines.startup))),
        Read::Layer(|dec, f, c| c.cli.deadlines.startup_timeout_seconds = read::seconds(dec, f))),
    key(Cli, IDLE_TIMEOUT, Type::Seconds, value(d::IDLE),
        "Stop the agent after this many seconds without output (longer than the tool calls \
         it runs silently, and, for Codex and OpenCode, which print an answer only once it \
         is whole, longer than the model takes to write its longest answer). A retry delay the agent announces (Claude Code's `api_retry`, \
         pi's `auto_retry_start`) does not count, up to an hour; a provider's `retry-after` \
         that pi waits out inside a call, without a word, does.",
        Init::Default,
        Dump::Config(|c| Some(seconds(c.agent.deadlines.idle))),
        Read::Layer(|dec, f, c| c.cli.deadlines.idle_timeout_seconds = read::seconds(dec, f))),
    key(Cli, ITERATION_TIMEOUT, Type::Seconds, value(d::ITERATION),
        "Stop the agent when one iteration takes longer than this many seconds.",
        Init::Default,
        Dump::Config(|c| Some(seconds(c.agent.deadlines.iteration))),
        Read::Layer(|dec, f, c| c.cli.deadlines.iteration_timeout_seconds = read::seconds(dec, f))),
    key(Cli, EXIT_GRACE, Type::Seconds, value(d::GRACE),
        "Seconds an agent that has emitted its final event may take to exit.",
        Init::Default,
        Dump::Config(|c| Some(seconds(c.agent.deadlines.exit_grace))),
        Read::Layer(|dec, f, c| c.cli.deadlines.exit_grace_seconds = read::seconds(dec, f))),
    key(Cli, "pty", Type::Bool, value(Value::Bool(false)),
        "Run the agent on a pseudo-terminal instead of pipes, for an agent that needs one. Its \
         stdin is then the terminal, so a custom agent must take its prompt as an argument \
         (`prompt_mode: arg`).",
        Init::Default,
        Dump::Config(|c| Some(boolean(c.agent.pty))),
        Read::Layer(|dec, f, c| c.cli.pty = dec.boolean(f))),
    key(Cli, "steering", Type::Bool, value(Value::Bool(false)),
        "Let `ralph steer` reach the agent during its turn where it can: pi then runs in RPC \
         mode, Claude Code reads stream-json input; other agents get the message in the next \
         iteration's prompt.",
        Init::Default,
        Dump::Config(|c| Some(boolean(c.agent.steering))),
        Read::Layer(|dec, f, c| c.cli.steering = dec.boolean(f))),
    key(Cli, "on_rate_limit", Type::Choice(d::RATE_LIMIT_POLICIES), value(d::RATE_LIMIT_POLICY),
        "When an agent's run ends on a provider's rate or usage limit: `wait` until it resets \
         (or a backoff), then run the iteration again, without counting it; `failover` runs \
         it again at once on the next backend of `fallback` that is not limited (back on the \
         primary once its limit has reset; waits when all are limited); `fail` counts it as a \
         failed iteration. An overloaded or unavailable provider (HTTP 529 or 503, no reset \
         time) is waited for 3 times in a row; each further overload in a row counts as a failed iteration.",
        Init::Default,
        Dump::Config(|c| Some(string(c.rate_limits.policy.name()))),
        Read::Layer(|dec, f, c| c.cli.on_rate_limit = read::rate_limit_policy(dec, f))),
    key(Cli, "rate_limit_wait_seconds", Type::Seconds, value(d::RATE_LIMIT_WAIT),
        "The first wait when the agent gives no reset time; it doubles with each limit in a \
         row, up to 30 minutes. From the second limit in a row, also the least wait when \
         the agent gives one.",
        Init::Default,
        Dump::Config(|c| Some(seconds(c.rate_limits.wait))),
        Read::Layer(|dec, f, c| c.cli.rate_limit_wait_seconds = read::seconds(dec, f))),
    key(Cli, "fallback", Type::BackendOrMappingList, value(Value::EmptyList),
        "The backends `on_rate_limit: failover` runs, in order, while the primary is limited; \
         each is checked when the run starts.",
        Init::Example(FALLBACK_EXAMPLE),
        Dump::Config(|c| Some(super::dump::backend_list(&c.rate_limits.fallback))),
        Read::Layer(|dec, f, c| c.cli.fallback = decode_hat::fallback(dec, f))),
    key(Cli, "backend_priority", Type::BackendList, value(Value::Names(d::BUILTIN_BACKENDS)),
        "The backends `auto` tries, in order (`custom` cannot be detected).",
        Init::Default,
        Dump::Config(|c| {
            Some(Yaml::Sequence(c.backend_priority.iter().map(|k| string(k.name())).collect()))
        }),
        Read::Layer(|dec, f, c| c.cli.backend_priority = read::backend_priority(dec, f))),
    // event_loop
    key(EventLoop, "prompt", Type::NonEmptyText,
        Unset("the prompt file"),
        "The task, written inline (`-p` on the command line replaces it and `prompt_file`).",
        Init::Example("\"Add a dark mode to the settings page.\""),
        Dump::Config(|c| match c.event_loop.prompt.as_ref()? {
            Prompt { source: PromptSource::Inline, text } => Some(string(text)),
            Prompt { source: PromptSource::File(_), .. } => None,
        }),
        Read::Layer(|dec, f, c| c.event_loop.prompt = dec.nonempty_string(f, read::PROMPT_WHY))),
    key(EventLoop, "prompt_file", Type::Path,
        Unset("`PROMPT.md` next to the project config, if it exists"),
        "A file holding the task, relative to this config file (`-P` replaces it and `prompt`); \
         a regular file (or a link to one) of at most 1 MiB.",
        Init::Example(d::PROMPT_FILE),
        Dump::Config(|c| match &c.event_loop.prompt.as_ref()?.source {
            PromptSource::File(path) => Some(path_value(path)),
            PromptSource::Inline => None,
        }),
        Read::Layer(|dec, f, c| c.event_loop.prompt_file = read::prompt_file(dec, f))),
    key(EventLoop, "completion_promise", Type::Topic, value(d::PROMISE),
        "The topic the agent emits (`ralph emit TOPIC`) when the task is done; the loop ends \
         there. The hat that finishes lists it in `publishes`; a built-in preset's \
         `LOOP_COMPLETE` (with `-H builtin:NAME`) stands for it. The hats and gates `ralph \
         init --preset` writes are your own: change their `LOOP_COMPLETE` with this (ralph \
         warns where they differ).",
        Init::Default,
        Dump::Config(|c| Some(string(&c.event_loop.completion_promise))),
        Read::Layer(|dec, f, c| {
            c.event_loop.completion_promise = read::completion_promise(dec, f);
        })),
    key(EventLoop, "max_iterations", Type::Count, value(d::ITERATIONS),
        "Stop the loop after this many iterations.",
        Init::Default,
        Dump::Config(|c| Some(int(c.event_loop.max_iterations.into()))),
        Read::Layer(|dec, f, c| c.event_loop.max_iterations = read::count(dec, f))),
    key(EventLoop, "max_runtime_seconds", Type::Seconds, value(d::RUNTIME),
        "Stop the loop once it has run this many seconds; the agent, gate or hook running \
         then is stopped. The hooks of the loop's end run after it has stopped, bounded by \
         their own `timeout_seconds` only.",
        Init::Default,
        Dump::Config(|c| Some(seconds(c.event_loop.max_runtime))),
        Read::Layer(|dec, f, c| c.event_loop.max_runtime_seconds = read::seconds(dec, f))),
    key(EventLoop, "max_cost_usd", Type::Dollars, Unset("no cost limit"),
        "Stop the loop once the agents' cost reaches this many US dollars.",
        Init::Example("10.0"),
        Dump::Config(|c| c.event_loop.max_cost_usd.map(number)),
        Read::Layer(|dec, f, c| c.event_loop.max_cost_usd = dec.positive_number(f))),
    key(EventLoop, "max_consecutive_failures", Type::Count, value(d::FAILURES),
        "Stop the loop after this many failed iterations in a row (an agent the system will not start, not executable or its interpreter missing, stops it at the first).",
        Init::Default,
        Dump::Config(|c| Some(int(c.event_loop.max_consecutive_failures.into()))),
        Read::Layer(|dec, f, c| c.event_loop.max_consecutive_failures = read::count(dec, f))),
    key(EventLoop, "starting_event", Type::Topic, value(d::STARTING_EVENT),
        "The topic ralph publishes to start the run: the hat that triggers on it runs first. The default `task.start` goes to ralph's coordinator, as no hat may trigger on it; set another topic to start with a hat of yours.",
        Init::Default,
        Dump::Config(|c| Some(string(&c.event_loop.starting_event))),
        Read::Layer(|dec, f, c| c.event_loop.starting_event = dec.topic(f))),
    key(EventLoop, "required_events", Type::Topics, value(Value::EmptyList),
        "Topics that must all have been emitted before completion is accepted.",
        Init::Default,
        Dump::Config(|c| Some(strings(&c.event_loop.required_events))),
        Read::Layer(|dec, f, c| c.event_loop.required_events = dec.topics(f))),
    key(EventLoop, "prompt_events_max_bytes", Type::Count,
        value(Value::Count(DEFAULT_PROMPT_EVENTS_MAX_BYTES)),
        "The most bytes of pending events a prompt carries: the newest are kept, a longer \
         payload is cut, and the prompt says how many were left out (`ralph events` shows \
         them all).",
        Init::Default,
        Dump::Config(|c| Some(int(c.event_loop.prompt_events_max_bytes.into()))),
        Read::Layer(|dec, f, c| c.event_loop.prompt_events_max_bytes = read::count(dec, f))),
    // core
    key(Core, "scratchpad", Type::PathOrMapping, Keys,
        "Notes the agent keeps between iterations (each starts with a fresh context); a path \
         alone means `{enabled: true, path: PATH}`.",
        Init::Keys,
        Dump::Keys,
        Read::Scratchpad),
    key(Scratchpad, "enabled", Type::Bool, value(Value::Bool(true)),
        "Whether the agent keeps a scratchpad.",
        Init::Default,
        Dump::Config(|c| Some(boolean(c.core.scratchpad.is_some()))),
        Read::Layer(|dec, f, c| c.core.scratchpad.enabled = dec.boolean(f))),
    key(Scratchpad, "path", Type::Path, value(d::SCRATCHPAD),
        "The scratchpad file, relative to the workspace.",
        Init::Default,
        Dump::Config(|c| c.core.scratchpad.as_deref().map(path_value)),
        Read::Layer(|dec, f, c| c.core.scratchpad.path = dec.path(f, read::SCRATCHPAD_WHY))),
    key(Core, "guardrails", Type::Strings, value(Value::EmptyList),
        "Rules repeated in every prompt, such as `Run the tests before every commit.`",
        Init::Default,
        Dump::Config(|c| Some(strings(&c.core.guardrails))),
        Read::Layer(|dec, f, c| c.core.guardrails = dec.plain_strings(f))),
    key(Core, "specs_dir", Type::Path, value(d::SPECS_DIR),
        "Where `ralph plan` writes specs, relative to the workspace.",
        Init::Default,
        Dump::Config(|c| Some(path_value(&c.core.specs_dir))),
        Read::Layer(|dec, f, c| c.core.specs_dir = dec.path(f, read::SPECS_DIR_WHY))),
    // tasks
    key(Tasks, "enabled", Type::Bool, value(Value::Bool(DEFAULT_TASKS_ENABLED)),
        "Show the ready tasks in every prompt, and refuse completion while a task of the run \
         is open or in progress.",
        Init::Default,
        Dump::Config(|c| Some(boolean(c.tasks.enabled))),
        Read::Layer(|dec, f, c| c.tasks.enabled = dec.boolean(f))),
];

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
